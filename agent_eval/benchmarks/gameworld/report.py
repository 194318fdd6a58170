"""The GameWorld parts of `agent-eval report`: per task a filmstrip with one shot per decision (the screen the step
was decided on, its action and the evaluator's verdict after it; a reset's last screen marked), and the
evaluator's outcome; per run the success rate and mean progress. A long task is sampled: at most MAX_SHOTS shots,
evenly spaced, plus every step where the game was reset and the last. Layout: templates/gw_*.j2."""

from __future__ import annotations

from agent_eval.analysis.measures import GRADED
from agent_eval.benchmarks.games.folder import GAME_DIR, read_timeline
from agent_eval.benchmarks.games.frames import FRAMES_DIR, frame_name
from agent_eval.benchmarks.games.reading import sampled
from agent_eval.benchmarks.gameworld.grading import TaskMetrics, rollup_records
from agent_eval.benchmarks.gameworld.records import read_end
from agent_eval.benchmarks.gameworld.show import action_words
from agent_eval.benchmarks.notes import versions, where_words

MAX_SHOTS = 60


def filmstrip(timeline: list[dict], start_frame: int | None, embed) -> tuple[list[dict], int]:
    """One shot per decision: the screen it was decided on, then what it did and how the task stood after; the
    last shot is the final screen. (Shots, how many were left out.)"""
    drawn = sampled(len(timeline), MAX_SHOTS, (i for i, entry in enumerate(timeline) if entry.get("reset_frame")))
    shots = []
    for entry in (timeline[index] for index in sorted(drawn)):
        seen = entry.get("seen") or start_frame
        verdict = entry.get("evaluation") or {}
        progress = verdict.get("progress")
        path = f"{GAME_DIR}/{FRAMES_DIR}/{frame_name(seen)}" if seen else None
        shots.append(
            {
                "step": entry["step"],
                "label": action_words(entry),
                "status": verdict.get("status", ""),
                "progress": "" if progress is None else f"{progress:.2f}",
                "reset": bool(entry.get("reset_frame")),
                "invalid": bool(entry.get("invalid")),
                "img": embed(path, f"step {entry['step']}: the screen it was decided on") if path else None,
            }
        )
    if timeline:
        final = embed(f"{GAME_DIR}/{FRAMES_DIR}/{frame_name(timeline[-1]['frame'])}", "the last screen")
        shots.append(
            dict(step="end", label="the last screen", status="", progress="", reset=False, invalid=False, img=final)
        )
    return shots, len(timeline) - len(drawn)


def game_item(run, record, images, embed) -> dict:
    """What gw_item.html.j2 reads of one task: its shots, the evaluator's outcome, the notes, a game error."""
    metrics = TaskMetrics.of(record)
    timeline = read_timeline(images.base) or []
    shots, more = filmstrip(timeline, 1, embed)
    view = {"shots": shots, "more": more, "steps": len(timeline), "metrics": metrics}
    view["progress"] = "—" if metrics.progress is None else f"{metrics.progress:.2f}"
    view["notes"] = [{**version, "where": where_words(version)} for version in versions(images.base)]
    end = read_end(images.base)
    view["error"] = end.error if end is not None else None
    return view


def game_summary(records) -> dict:
    rollup = rollup_records(records)
    rollup["errors_harness"] = sum(r.status not in GRADED for r in records)
    rollup["runs"] = len(records)
    rollup["rate_text"] = f"{rollup['successes']}/{len(records)}"
    rollup["progress_text"] = "—" if rollup["mean_progress"] is None else f"{rollup['mean_progress']:.3f}"
    return rollup
