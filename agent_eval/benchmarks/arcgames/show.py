"""The ARC-AGI-3 parts of `agent-eval show`: the run's mean game score, wins and levels; per game the action timeline
(paged: games/reading.py, with the steps where a level was completed) and where its frames are kept."""

from __future__ import annotations

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from agent_eval.analysis.measures import GRADED
from agent_eval.benchmarks.arcgames.game_record import read_end
from agent_eval.benchmarks.arcgames.grading import rollup_games
from agent_eval.benchmarks.arcgames.metrics import GameMetrics
from agent_eval.benchmarks.games.folder import GAME_DIR, read_timeline
from agent_eval.benchmarks.games.frames import FRAMES_DIR
from agent_eval.benchmarks.games.reading import print_paged, show_command
from agent_eval.benchmarks.notes import print_notes


def totals_phrase(records) -> str:
    r = rollup_games([GameMetrics.of(x) for x in records if x.status in GRADED])
    score = (
        "no game score (no baselines)"
        if r["mean_score"] is None
        else f"mean game score {r['mean_score']:.1f} of 100 over {r['scored_games']} scored game(s)"
    )
    return (
        f"{score}; won {r['wins']}/{len(records)}; levels {r['levels_completed']}/{r['levels_total']}; "
        f"{r['actions']} actions" + (f"; stopped early {r['stopped_early']}" if r["stopped_early"] else "")
    )


def print_scorecards(console: Console, manifest) -> None:
    """Online and competition runs: the run's scorecard(s) at the ARC API, from run.json (kind_run)."""
    kind_run = (manifest.kind_run if manifest is not None else None) or {}
    cards = kind_run.get("scorecards") or []
    if not cards:
        return
    mode = kind_run.get("arc_mode", "online")
    if len(cards) > 1:
        console.print(
            Text(
                f"{mode} run over {len(cards)} scorecards (its first closed before every game was played): no one "
                f"card holds the whole run",
                style="yellow",
            )
        )
    for card in cards:
        console.print(Text(f"{mode} scorecard {card['card_id']} ({card.get('state', '?')}): {card.get('url', '')}"))
        summary = card.get("summary") or {}
        if summary:
            console.print(
                f"  the ARC API's summary: score {summary.get('score', 0):.1f} over "
                f"{summary.get('total_environments', 0)} game(s), "
                f"{summary.get('total_environments_completed', 0)} won, levels "
                f"{summary.get('total_levels_completed', 0)}/{summary.get('total_levels', 0)}, "
                f"{summary.get('total_actions', 0)} actions",
                highlight=False,
            )
        if card.get("error"):
            console.print(Text(f"  {card['error']}", style="yellow"))


def online_line(metrics: GameMetrics) -> str | None:
    """One game's result on the run's card (online), beside the offline scorecard of the same actions."""
    online = metrics.online
    if not online:
        return None
    where = f"scorecard {online.get('card_id', '?')}"
    if "unavailable" in online:
        return f"online ({where}): {online['unavailable']}"
    differs = online.get("differs_from_offline")
    agreement = (
        ""
        if differs is None
        else "; equal to the offline scorecard of the same actions"
        if not differs
        else f"; differs from the offline scorecard of the same actions in {', '.join(differs)}"
    )
    score = online.get("score")
    said = f"game score {score:.1f}" if isinstance(score, (int, float)) else "no game score"
    return (
        f"online ({where}): {'WON' if online.get('completed') else 'not won'}, levels "
        f"{online.get('levels_completed', 0)}, {online.get('actions', 0)} actions ({online.get('resets', 0)} resets), "
        f"{said}{agreement}"
    )


def with_closed_card(metrics: object, manifest) -> object:
    """A competition game's entry, known only once the run's card closed: taken from run.json's closed card."""
    if not isinstance(metrics, GameMetrics) or "unavailable" not in metrics.online:
        return metrics
    game_id, card_id = f"{metrics.game}-{metrics.version}", metrics.online.get("card_id")
    for card in ((manifest.kind_run if manifest is not None else None) or {}).get("scorecards") or []:
        if card.get("card_id") == card_id and card.get("summary"):
            entry = next((e for e in card["summary"].get("environments") or [] if e.get("id") == game_id), None)
            if entry is not None:
                metrics.online = {"card_id": card_id, **entry, "from": "the closed scorecard (run.json)"}
    return metrics


def _action(entry: dict) -> str:
    return entry["action"] + (f" ({entry['x']}, {entry['y']})" if entry.get("x") is not None else "")


def _frames(numbers: list[int]) -> str:
    if not numbers:
        return "—"
    return str(numbers[0]) if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]} ({len(numbers)})"


def print_timeline(console: Console, record, base, page: int | None = None, run_dir=None) -> GameMetrics | None:
    timeline = read_timeline(base)
    if timeline is None:
        console.print(Rule("game: no timeline (the game never started)"))
        return None
    right = ("step", "frames", "game ms")
    columns = [(n, "right" if n in right else "left", True) for n in ("step", "action", "state", "levels", *right[1:])]

    def row(entry: dict) -> tuple[list[str], str | None]:
        levels = f"{entry['levels_completed']}/{entry['win_levels']}"
        cells = [str(entry["step"]), _action(entry), entry["state"], levels, _frames(entry["frames"])]
        return [*cells, f"{entry['game_ms']:.1f}"], "red" if entry.get("error") else None

    title = f"game timeline ({len(timeline)} play call(s))"
    last = print_paged(
        console, timeline, page, title, columns, row, "step", ("play calls", show_command(record, run_dir))
    )
    levels = _level_steps(timeline)
    if levels and (last > 1 or page is not None):
        console.print("levels completed at step(s): " + ", ".join(f"{s} (level {k})" for k, s in levels))
    print_notes(console, base)
    end = read_end(base)
    if end is not None and end.error:
        console.print(Text(f"game error: {end.error}", style="red"))
    console.print(f"frames: {base / GAME_DIR / FRAMES_DIR}/NNNN.npy (colour indices) and NNNN.png (as shown)")
    return GameMetrics.of(record)


def _level_steps(timeline: list[dict]) -> list[tuple[int, int]]:
    out, before = [], 0
    for entry in timeline:
        now = entry.get("levels_completed") or 0
        if now > before:
            out.append((now, entry["step"]))
        before = now
    return out


def print_outcome(console: Console, record, metrics: object) -> None:
    assert isinstance(metrics, GameMetrics), metrics  # what print_timeline returned (the hooks' show_item_page)
    if not metrics.game:
        return
    score = f"{metrics.score:.1f}" if metrics.score is not None else f"none ({metrics.score_note})"
    console.print(
        f"scorecard: {'WON' if metrics.won else 'not won'}, levels {metrics.levels_completed}/"
        f"{metrics.win_levels or '?'}, {metrics.actions} actions ({metrics.resets} resets), game score {score}"
    )
    if metrics.level_actions:
        n = len(metrics.level_actions)
        baselines: list[int | None] = list(metrics.level_baseline_actions) or [None] * n  # empty: none known
        resets = metrics.level_resets + [0] * n
        levels = zip(metrics.level_actions, baselines, metrics.level_scores or [0.0] * n, resets)
        console.print(
            "per level: "
            + "; ".join(
                f"L{i + 1} {a} actions"
                + (f" (baseline {b}, score {s:.1f})" if b else "")
                + (f", {r} reset(s)" if r else "")
                for i, (a, b, s, r) in enumerate(levels)
            )
        )
    if metrics.budget_spent:
        console.print(Text(f"the action budget ({metrics.max_actions}) was spent", style="yellow"))
    if metrics.early_stops or metrics.stopped_early:
        ended = "; it ended that way: graded as it stood" if metrics.stopped_early else ", each continued"
        console.print(
            Text(f"the agent stopped with the game live {metrics.early_stops} time(s){ended}", style="yellow")
        )
    if metrics.refused_unseen:
        console.print(
            f"{metrics.refused_unseen} play(s) refused: sent before the previous play's result had reached the model"
        )
    line = online_line(metrics)
    if line is not None:
        console.print(line, highlight=False)
