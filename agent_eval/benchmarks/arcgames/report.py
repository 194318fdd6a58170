"""The ARC-AGI-3 parts of `agent-eval report`: per game a filmstrip per level (the frame each action ended on, sampled
in a long game, the rest counted) and the scorecard; per run the mean game score, wins and levels (templates/)."""

from __future__ import annotations

from agent_eval.analysis.measures import GRADED
from agent_eval.benchmarks.arcgames.game_record import read_end
from agent_eval.benchmarks.arcgames.grading import rollup_games
from agent_eval.benchmarks.arcgames.metrics import GameMetrics
from agent_eval.benchmarks.games import reading as game_reading
from agent_eval.benchmarks.games.folder import GAME_DIR, read_timeline
from agent_eval.benchmarks.games.frames import FRAMES_DIR, frame_name
from agent_eval.benchmarks.notes import versions, where_words

MAX_SHOTS = 60  # frames drawn per game, evenly spaced (level ends and the last play come on top)


def sampled(timeline: list[dict], most: int = MAX_SHOTS) -> set[int]:
    """The indices of the plays with a frame drawn (games/reading.sampled), each that completed a level kept."""
    framed = [i for i, entry in enumerate(timeline) if entry["frames"]]
    levels = [timeline[i]["levels_completed"] for i in framed]
    ends = [k for k, level in enumerate(levels) if level > (levels[k - 1] if k else 0)]
    return {framed[k] for k in game_reading.sampled(len(framed), most, ends)}


def filmstrips(timeline: list[dict], embed) -> list[dict]:
    drawn = sampled(timeline)
    strips: list[dict] = []
    level = 0
    for index, entry in enumerate(timeline):
        if not strips or strips[-1]["level"] != level + 1:
            strips.append({"level": level + 1, "shots": [], "more": 0})
        strip = strips[-1]
        label = entry["action"] + (f" ({entry['x']},{entry['y']})" if entry.get("x") is not None else "")
        if entry["frames"]:
            if index in drawn:
                path = f"{GAME_DIR}/{FRAMES_DIR}/{frame_name(entry['frames'][-1])}"
                strip["shots"].append(
                    {
                        "step": entry["step"],
                        "label": label,
                        "state": entry["state"],
                        "n_frames": len(entry["frames"]),
                        "img": embed(path, f"step {entry['step']}"),
                    }
                )
            else:
                strip["more"] += 1
        level = entry["levels_completed"]
    return strips


def game_item(run, record, images, embed) -> dict:
    timeline = read_timeline(images.base) or []
    end = read_end(images.base)
    metrics = GameMetrics.of(record)
    return {
        "strips": filmstrips(timeline, embed),
        "plays": len(timeline),
        "metrics": metrics,
        "error": end.error if end else None,
        "won": metrics.won,
        "score": None if metrics.score is None else f"{metrics.score:.1f}",
        "levels": f"{metrics.levels_completed}/{metrics.win_levels or '?'}",
        "notes": [{**v, "where": where_words(v)} for v in versions(images.base)],
    }


def game_summary(records) -> dict:
    rollup = rollup_games([GameMetrics.of(r) for r in records if r.status in GRADED])
    rollup["errors"] = sum(r.status not in GRADED for r in records)
    rollup["mean_score_text"] = "—" if rollup["mean_score"] is None else f"{rollup['mean_score']:.1f}"
    return rollup
