"""The GameWorld parts of `agent-eval show`: the run's success rate and mean progress (GameWorld's suite measures);
per task the step timeline (step, role, action or why nothing was sent, the evaluator's status, progress and stop
reason, the screens) and where the screens are kept. A long timeline is paged like a game's (PAGE steps a page)."""

from __future__ import annotations

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from agent_eval.benchmarks.games.folder import GAME_DIR, read_timeline
from agent_eval.benchmarks.games.frames import FRAMES_DIR
from agent_eval.benchmarks.games.reading import print_paged, show_command
from agent_eval.benchmarks.gameworld.actions import describe_action
from agent_eval.benchmarks.gameworld.grading import TaskMetrics, rollup_records
from agent_eval.benchmarks.gameworld.records import read_end
from agent_eval.benchmarks.notes import print_notes


def totals_phrase(records) -> str:
    r = rollup_records(records)
    progress = "—" if r["mean_progress"] is None else f"{r['mean_progress']:.3f}"
    return (
        f"success rate {r['successes']}/{len(records)} ({r['success_rate']:.1%} of the graded); mean progress "
        f"{progress}; {r['steps']} steps, {r['resets']} reset(s) after a failed terminal"
    )


def action_words(entry: dict) -> str:
    if entry.get("action"):
        text = describe_action(entry["action"])
        given = entry.get("given") or {}
        return f"{given['control']}: {text}" if entry.get("interface") == "semantic" and "control" in given else text
    return f"✗ {entry.get('invalid') or 'nothing sent'}"


def print_timeline(console: Console, record, base, page: int | None = None, run_dir=None) -> TaskMetrics | None:
    timeline = read_timeline(base)
    if timeline is None:
        console.print(Rule("task: no timeline (the game never started)"))
        return None
    roles = len({entry.get("role", 0) for entry in timeline}) > 1
    names = ["step", *(["role"] if roles else []), "action", "status", "progress", "stop", "screen", "game s"]
    columns = [(n, "right" if n in ("step", "progress", "screen", "game s") else "left", False) for n in names]

    def row(entry: dict) -> tuple[list[str], str | None]:
        verdict = entry.get("evaluation") or {}
        progress = verdict.get("progress")
        cells = [
            str(entry["step"]),
            *([str(entry.get("role", 0))] if roles else []),
            action_words(entry),
            verdict.get("status", "—"),
            "—" if progress is None else f"{progress:.2f}",
            verdict.get("stop_reason") or "",
            f"{entry['reset_frame']}↺{entry['frame']}" if entry.get("reset_frame") else str(entry["frame"]),
            f"{entry['game_ms'] / 1000:.2f}",
        ]
        return cells, "yellow" if entry.get("invalid") else None

    title, hint = f"task timeline ({len(timeline)} step(s))", ("steps", show_command(record, run_dir))
    print_paged(console, timeline, page or None, title, columns, row, "step", hint, gap_at=2 if roles else 1)
    print_notes(console, base)
    end = read_end(base)
    if end is not None and end.error:
        console.print(Text(f"game error: {end.error}", style="red"))
    console.print(f"screens: {base / GAME_DIR / FRAMES_DIR}/NNNN.png (↺: the screen before a reset, then after)")
    return TaskMetrics.of(record)


def print_outcome(console: Console, record, metrics: TaskMetrics) -> None:
    if not metrics.game:
        return
    progress = "—" if metrics.progress is None else f"{metrics.progress:.3f}"
    score = "—" if metrics.score is None else f"{metrics.score:g}"
    target = "—" if metrics.target is None else f"{metrics.target:g}"
    console.print(
        f"GameWorld's evaluator: {metrics.status} ({metrics.stop_reason or 'not stopped'}"
        + (f": {metrics.summary}" if metrics.summary else "")
        + f"), progress {progress}, best score {score} of target {target}, {metrics.steps} steps of "
        f"{metrics.max_steps or '?'}, {metrics.resets} reset(s), {metrics.invalid_steps} invalid"
    )
    if metrics.restores or metrics.started_over:
        console.print(
            Text(
                f"replayed {metrics.restores} time(s) after the harness was killed"
                + (f"; started over: {'; '.join(metrics.started_over)}" if metrics.started_over else ""),
                style="yellow",
            )
        )
