"""The AI GameStore parts of `agent-eval report`: per game a filmstrip per move (a decision's five frames with its
inputs; the start, each restart), sampled when long (reading.sampled); per run the scores. Layout: templates/."""

from __future__ import annotations

from agent_eval.analysis.measures import GRADED
from agent_eval.benchmarks.aigamestore.measures import GameStoreMetrics, graded_games, number_text, summary
from agent_eval.benchmarks.aigamestore.record import read_end
from agent_eval.benchmarks.games.folder import GAME_DIR, read_timeline
from agent_eval.benchmarks.games.frames import FRAMES_DIR, frame_name
from agent_eval.benchmarks.games.reading import sampled
from agent_eval.benchmarks.notes import versions, where_words

MAX_DECISIONS = 40  # decision strips drawn per game, evenly spaced (restarts and the last come on top)


def strips(timeline: list[dict], embed) -> tuple[list[dict], int]:
    """(one strip per drawn move, how many moves were not drawn)."""
    restarts = (i for i, e in enumerate(timeline) if e["kind"] != "play" or e.get("restarted_first"))
    chosen = sampled(len(timeline), MAX_DECISIONS, restarts)
    out = []
    for entry in (timeline[index] for index in sorted(chosen)):
        segments = entry.get("segments") or [[entry["kind"]]] * len(entry["frames"])
        state = entry.get("state") or {}
        out.append(
            {
                "decision": entry["decisions"],
                "kind": entry["kind"],
                "episode": entry["episode"],
                "phase": state.get("gamePhase"),
                "score": state.get("score"),
                "restarted_first": entry.get("restarted_first", False),
                "problem": entry.get("problem"),
                "shots": [
                    {
                        "frame": number,
                        "label": "+".join(segments[k]) if k < len(segments) else "",
                        "img": embed(f"{GAME_DIR}/{FRAMES_DIR}/{frame_name(number)}", f"frame {number}"),
                    }
                    for k, number in enumerate(entry["frames"])
                ],
            }
        )
    return out, len(timeline) - len(chosen)


def game_item(run, record, images, embed) -> dict:
    timeline = read_timeline(images.base) or []
    end = read_end(images.base)
    metrics = GameStoreMetrics.of(record)
    shown, more = strips(timeline, embed)
    return {
        "strips": shown,
        "more": more,
        "moves": len(timeline),
        "metrics": metrics,
        "error": end.error if end else None,
        "raw": number_text(metrics.raw_score, "g"),
        "normalized": None if metrics.normalized is None else f"{metrics.normalized:.1f}",
        "notes": [{**v, "where": where_words(v)} for v in versions(images.base)],
    }


def game_summary(records) -> dict:
    s = summary(graded_games(records))
    s["errors"] = sum(r.status not in GRADED for r in records)
    s["geometric_text"] = number_text(s["geometric_mean"], ".1f")
    s["arithmetic_text"] = number_text(s["arithmetic_mean"], ".1f")
    s["decisions"] = sum(GameStoreMetrics.of(r).decisions for r in records if r.status in GRADED)
    return s
