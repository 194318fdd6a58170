"""The AI GameStore parts of `agent-eval show`: the run's geometric mean of normalised scores with the raw score per
game; per game its moves (the start, each decision with its inputs, each restart), the game's phase and score
after each (which the model never saw), and where the frames and the page's requests are. And the game as it goes,
from its item's folder alone: its progress for `watch` and the live report, and its frames captioned for a replay,
each held for the game time it covered (the page's virtual clock: the replay runs at the game's own pace)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from agent_eval.benchmarks.aigamestore.measures import GameStoreMetrics, graded_games, number_text, summary
from agent_eval.benchmarks.aigamestore.record import REQUESTS, best_score, read_end, read_moves, read_requests
from agent_eval.benchmarks.games.folder import GAME_DIR, read_timeline
from agent_eval.benchmarks.games.frames import FRAMES_DIR, frame_name
from agent_eval.benchmarks.games.reading import print_paged, show_command
from agent_eval.benchmarks.notes import print_notes
from agent_eval.benchmarks.presentation import GameProgress, ReplayFrame

MIN_MS = 20  # a replay's frame shown for less is skipped by most players


def totals_phrase(records) -> str:
    s = summary(graded_games(records))
    mean = (
        "no normalised score (no human median or no score read)"
        if s["geometric_mean"] is None
        else f"normalised score {s['geometric_mean']:.1f} (geometric mean over {s['scored_games']} game(s); "
        f"arithmetic {s['arithmetic_mean']:.1f})"
    )
    raws = ", ".join(f"{game} {number_text(g['raw'], 'g')}" for game, g in s["per_game"].items())
    return f"{mean}; raw score per game: {raws or 'none'}"


def inputs_words(entry: dict) -> str:
    if entry["kind"] != "play":
        return entry["kind"]
    # HOLD_LEFT as hLEFT, NOOP as -: five segments fit a line
    short = [[a.replace("HOLD_", "h").replace("NOOP", "-") for a in segment] for segment in entry.get("segments") or []]
    text = " ".join("+".join(segment) for segment in short)
    return ("restart, " if entry.get("restarted_first") else "") + text


def print_timeline(console: Console, record, base, page: int | None = None, run_dir=None) -> GameStoreMetrics | None:
    timeline = read_timeline(base)
    if timeline is None:
        console.print(Rule("game: no timeline (the game never started)"))
        return None
    names = ("move", "dec", "inputs (5 × 0.2 s; h: held)", "ep", "phase", "score (best)", "frames", "game s")
    columns = [
        (n, "left" if n.startswith("inputs") or n == "phase" else "right", not n.startswith("inputs")) for n in names
    ]

    def row(entry: dict) -> tuple[list[str], str | None]:
        state = entry.get("state") or {}
        score, best = number_text(state.get("score"), "g"), state.get("highScore")
        score += f" ({number_text(best, 'g')})" if best not in (None, state.get("score")) else ""
        frames = entry["frames"]
        cells = [
            str(entry["n"]),
            str(entry["decisions"]),
            inputs_words(entry),
            str(entry["episode"]),
            str(state.get("gamePhase") or "?"),
            score,
            (f"{frames[0]}-{frames[-1]}" if len(frames) > 1 else ",".join(map(str, frames))) or "—",
            f"{entry['clock_ms'] / 1000:.1f}",
        ]
        return cells, "yellow" if entry.get("problem") else None

    hint = ("moves", show_command(record, run_dir))
    print_paged(console, timeline, page, f"game moves ({len(timeline)})", columns, row, "n", hint)
    problems = [e for e in timeline if e.get("problem")]
    if problems:
        console.print(
            Text(f"{len(problems)} reply(ies) read with a problem, e.g. {problems[0]['problem']}", style="yellow")
        )
    print_notes(console, base)
    refused = [r for r in read_requests(base) if r.get("outcome") == "refused"]
    if refused:
        shown = ", ".join(sorted({r["url"] for r in refused})[:4])
        console.print(Text(f"the page's requests refused (offline): {len(refused)}: {shown}", style="dim"))
    end = read_end(base)
    if end is not None and end.error:
        console.print(Text(f"game error: {end.error}", style="red"))
    console.print(f"frames: {base / GAME_DIR / FRAMES_DIR}/NNNN.png; requests: {base / GAME_DIR / REQUESTS}")
    return GameStoreMetrics.of(record)


def print_outcome(console: Console, record, metrics: GameStoreMetrics) -> None:
    if not metrics.game:
        return
    raw = "no score read" if metrics.raw_score is None else f"raw score {metrics.raw_score:g}"
    norm = (
        f", normalised {metrics.normalized:.1f} against the human median {metrics.human_median:g} "
        f"({metrics.median_source})"
        if metrics.normalized is not None and metrics.human_median is not None
        else ", no human median: not normalised"
    )
    console.print(
        f"game: {raw}{norm}; {metrics.decisions}/{metrics.max_decisions} decisions, {metrics.episodes} episode(s), "
        f"protocol {metrics.protocol}"
        + (f"; replayed {metrics.restores} time(s) after a restart" if metrics.restores else "")
    )
    if metrics.started_over:
        console.print(Text("started over: " + json.dumps(metrics.started_over), style="yellow"))


def progress(item_root: Path) -> GameProgress | None:
    game = Path(item_root) / GAME_DIR
    moves = read_moves(game)
    if not moves:
        return None
    last, end = moves[-1], read_end(item_root)
    best = best_score(moves)
    numbers = [n for m in moves for n in m.frames]
    return GameProgress(
        moves=last.decisions,
        move_word="decision",
        last_move=inputs_words(vars(last)),
        levels=None if last.state.get("level") is None else str(last.state["level"]),
        episodes=last.episode,
        score=None if best is None else f"raw score {best:g}",
        state=last.state.get("gamePhase"),
        budget=end.max_decisions if end and end.max_decisions else None,
        frames=max(numbers, default=0),
        last_frame=game / FRAMES_DIR / frame_name(numbers[-1]) if numbers else None,
        game_s=last.clock_ms / 1000,
    )


def replay(item_root: Path) -> list[ReplayFrame]:
    game = Path(item_root) / GAME_DIR
    out, clock = [], 0.0
    for move in read_moves(game):
        each = max(MIN_MS, round((move.clock_ms - clock) / max(1, len(move.frames))))
        clock = move.clock_ms
        words = inputs_words(vars(move))
        score = move.state.get("score")
        for k, number in enumerate(move.frames, start=1):
            caption = (
                f"decision {move.decisions} (episode {move.episode}): {words} · "
                f"{move.state.get('gamePhase') or '?'}, score {'?' if score is None else f'{score:g}'}"
                + (f" · frame {k}/{len(move.frames)}" if len(move.frames) > 1 else "")
                + f" · move {move.n}"
            )
            out.append(ReplayFrame(game / FRAMES_DIR / frame_name(number), caption, each))
    return out
