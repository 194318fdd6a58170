"""Grading from the game, not from the text: the record's metrics are the toolkit's scorecard of the game
as the agent played it (read from the item's `game/result.json`), `correct` means the game was won,
and the final text's <answer> tag only says whether the agent ended as asked."""

from __future__ import annotations

import hashlib
import inspect
import statistics
from pathlib import Path

from agent_eval.benchmarks.answers import extract_answer
from agent_eval.benchmarks.arcgames.game_record import GameEnd, read_end
from agent_eval.benchmarks.arcgames.metrics import GameMetrics
from agent_eval.benchmarks.games.folder import read_timeline
from agent_eval.benchmarks.notes import read_history

NO_BASELINES = "no game score: the game's metadata.json has no baseline_actions"


def environment_score(scorecard: dict | None) -> dict:
    """The one game's entry of a toolkit scorecard, as an `EnvironmentScore` (score, levels_completed, actions,
    resets, completed, state, level_scores, level_actions, level_baseline_actions): the entry itself, or from a
    whole card (`environments[0]`): its per-level lists from its last run, its totals (the toolkit's own: the best
    run's score and levels, every run's actions and resets) from the game's entry."""
    card = dict(scorecard or {})
    environments = card.get("environments")
    if not (isinstance(environments, list) and environments and isinstance(environments[0], dict)):
        return card
    game = environments[0]
    runs = game.get("runs") if isinstance(game.get("runs"), list) else []
    entry = dict(runs[-1]) if runs else {}
    entry.update({k: game[k] for k in ("score", "levels_completed", "actions", "resets", "completed") if k in game})
    return entry


def game_entry(scorecard: dict | None) -> dict:
    """The game's scorecard as the game process reads the toolkit's (game_host.scorecard: score, or None and
    `score_unavailable`; won, levels_completed, actions, resets, level_actions, level_scores, baseline_actions,
    the toolkit's card in `toolkit_scorecard`), or a bare toolkit card read the same way."""
    card = dict(scorecard or {})
    if "toolkit_scorecard" in card or "won" in card:
        return card
    entry = environment_score(card)
    return {**entry, "won": bool(entry.get("completed")), "baseline_actions": entry.get("level_baseline_actions")}


def game_metrics(end: GameEnd, baselines: tuple[int, ...] | None) -> GameMetrics:
    entry = game_entry(end.scorecard)
    metrics = GameMetrics(
        game=end.game,
        version=end.version,
        state=end.state,
        win_levels=entry.get("win_levels") or end.win_levels,
        won=bool(entry.get("won")) or end.state == "WIN",
        levels_completed=int(entry.get("levels_completed", end.levels_completed) or 0),
        actions=int(entry.get("actions", end.actions_used) or 0),
        resets=int(entry.get("resets") or 0),
        level_actions=list(entry.get("level_actions") or []),
        level_scores=list(entry.get("level_scores") or []),
        level_baseline_actions=list(entry.get("baseline_actions") or baselines or []),
        max_actions=end.max_actions,
        budget_spent=end.budget_spent,
        plays=end.actions_used,
        frames=end.frames,
        scorecard=dict(end.scorecard or {}),
    )
    if baselines and entry.get("score") is not None:
        metrics.score = float(entry["score"])
    elif not baselines:
        metrics.score_note = NO_BASELINES
    else:
        metrics.score_note = f"no game score: {entry.get('score_unavailable') or 'the toolkit gave none'}"
    return metrics


def resets_per_level(timeline: list[dict], win_levels: int | None) -> list[int]:
    """RESETs played on each level, from the play timeline: a RESET before any other action starts the game
    and is not one (as the toolkit counts them)."""
    counts = [0] * max(win_levels or 0, 0)
    level, started = 0, False
    for entry in timeline:
        if entry["action"] == "RESET" and started and entry.get("state") != "ERROR" and level < len(counts):
            counts[level] += 1
        started = started or entry["action"] != "RESET"
        level = entry.get("levels_completed", level)
    return counts


def grade_game(final_text: str | None, item, item_root: Path) -> tuple[GameMetrics | None, str | None, bool]:
    """(metrics, the game's error or None, whether the final text had an answer tag)."""
    _, has_tag = extract_answer(final_text)
    end = read_end(item_root)
    if end is None:
        return None, f"{item.id}@{item.version}: the game left no result (game/result.json is missing)", has_tag
    metrics = game_metrics(end, item.baseline_actions)
    metrics.level_resets = resets_per_level(read_timeline(item_root) or [], metrics.win_levels)
    # How the game survived restarts of the harness (not grading: left out of the rules' hash)
    metrics.play_s = end.play_s
    metrics.restores = sum(r.get("outcome") == "replayed" for r in end.restores)
    metrics.started_over = [r.get("why", "") for r in end.restores if r.get("outcome") == "started over"]
    metrics.observations = dict(end.observations)
    metrics.notes_written = len(read_history(item_root))
    # each continued stop is a line of stops.jsonl; with --early-stop grade the one stop is the game's end
    metrics.early_stops = len(end.early_stops) or int(end.stopped_early)
    metrics.stopped_early = end.stopped_early
    metrics.refused_unseen = end.refused_unseen
    metrics.online = online_entry(end.scorecard, metrics)
    return metrics, end.error, has_tag


ONLINE_TOTALS = ("score", "levels_completed", "actions", "resets")


def online_entry(scorecard: dict | None, offline: GameMetrics) -> dict:
    """An online game's entry on the run's card, with where its totals differ from the offline scorecard of the
    same actions (the local replay's): the two are the same toolkit's, so a difference is a finding (another game
    version at the API, or a rule the API keeps differently: in competition mode a first RESET counts)."""
    card = dict(scorecard or {})
    online = dict(card.get("online") or {})
    if not online:
        return {}
    online["local_replay"] = card.get("local_replay")
    if "unavailable" not in online:
        here = {"score": card.get("score"), "levels_completed": offline.levels_completed, "actions": offline.actions}
        here["resets"] = offline.resets  # (a game without baselines has no score here: not compared)
        online["differs_from_offline"] = [
            name for name in ONLINE_TOTALS if here[name] is not None and not _same(online.get(name), here[name])
        ]
    return online


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(float(a) - float(b)) < 1e-9
    return a == b


def prediction_text(metrics: GameMetrics) -> str:
    score = f", score {metrics.score:.1f}" if metrics.score is not None else ""
    return (
        f"{metrics.state or 'not played'}: {metrics.levels_completed}/{metrics.win_levels or '?'} levels in "
        f"{metrics.actions} actions{score}"
    )


def rollup_games(metrics: list[GameMetrics]) -> dict:
    """The run's summary: mean game score (0-100, RHAE; over the games that have one), wins, levels."""
    scored = [m.score for m in metrics if m.score is not None]
    return {
        "games": len(metrics),
        "wins": sum(m.won for m in metrics),
        "levels_completed": sum(m.levels_completed for m in metrics),
        "levels_total": sum(m.win_levels or 0 for m in metrics),
        "mean_score": statistics.fmean(scored) if scored else None,
        "scored_games": len(scored),
        "actions": sum(m.actions for m in metrics),
        "budget_spent": sum(m.budget_spent for m in metrics),
        "stopped_early": sum(m.stopped_early for m in metrics),
    }


def rules_hash() -> str:
    """What grading means, hashed: a change here changes every run's scorer hash."""
    from agent_eval.benchmarks import answers

    source = (
        inspect.getsource(game_metrics)
        + inspect.getsource(game_entry)
        + inspect.getsource(environment_score)
        + inspect.getsource(answers)
    )
    return "arcgames-" + hashlib.sha256(source.encode()).hexdigest()[:12]
