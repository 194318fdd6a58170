"""Whether the agent's evidence rests on what it saw (evidence_view_observed, evidence_in_graph and the graph's
size; docs/kinds/activeobs.md, "What the evidence rests on"), beside the paper's metrics: descriptive, not part
of the grading rules or their hash."""

from __future__ import annotations

import json
from pathlib import Path

from agent_eval.benchmarks.activeobs.geometry import at_least, circular_iou, view_box_to_pano, view_span
from agent_eval.benchmarks.activeobs.grading import DEFAULT_RULES
from agent_eval.benchmarks.activeobs.grading import as_number as _number
from agent_eval.benchmarks.activeobs.worldmodel import StoredGraph, load_graph, pano_box

PASSIVE_FILE = "passive.json"
LOG_FILE = "observations.jsonl"


def placed_evidence(evidence, width: int, height: int) -> tuple[int, float, tuple] | None:
    """(frame, angle, panorama box) of an evidence object the grader could place, else None."""
    if not isinstance(evidence, dict):
        return None
    frame, angle, bbox = _number(evidence.get("frame")), _number(evidence.get("angle")), evidence.get("bbox")
    numbers = [_number(v) for v in bbox] if isinstance(bbox, (list, tuple)) and len(bbox) == 4 else []
    coords = [min(1000.0, max(0.0, v)) for v in numbers if v is not None]
    if frame is None or angle is None or len(coords) != 4 or frame != round(frame):
        return None
    x1, y1, x2, y2 = coords
    return int(frame), angle, view_box_to_pano((x1, y1, x2, y2), angle, width, height, height)


def seen_views(item_root: Path, width: int) -> list[tuple[int, int | None]] | None:
    """The views the agent obtained as (frame, the view's first panorama column, None for a whole frame shown); None
    when the item's folder logged none (an old run, or a failure before setup)."""
    log, passive = Path(item_root) / "observations" / LOG_FILE, Path(item_root) / "observations" / PASSIVE_FILE
    try:
        if log.is_file():
            rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
            return [(r["frame_index"], view_span(float(r["angle_deg"]), width).x0) for r in rows if r.get("ok")]
        if passive.is_file():
            return [(r["frame"], None) for r in json.loads(passive.read_text(encoding="utf-8"))]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return None


def in_graph(frame: int, box: tuple, graph: StoredGraph, width: int, height: int) -> bool:
    for entity in graph.entities:
        try:
            if entity.get("frame") == frame and at_least(
                circular_iou(pano_box(entity, width, height), box, width), DEFAULT_RULES.evidence_iou
            ):
                return True
        except (KeyError, TypeError, ValueError):
            continue
    return False


def seen_metrics(evidence, item_root: Path, width: int, height: int) -> dict:
    """The fields above for one graded attempt (ActiveObsMetrics' names)."""
    placed = placed_evidence(evidence, width, height)
    views = seen_views(item_root, width)
    graph = load_graph(item_root)
    out: dict = {"evidence_view_observed": None, "evidence_in_graph": None}
    if placed is not None and views is not None:
        columns = view_span(placed[1], width).x0
        out["evidence_view_observed"] = any(f == placed[0] and x0 in (None, columns) for f, x0 in views)
    if graph is not None:
        out["evidence_in_graph"] = in_graph(placed[0], placed[2], graph, width, height) if placed else False
        out |= {
            "graph_entities": len(graph.entities),
            "graph_attributes": len(graph.attributes),
            "graph_relations": len(graph.relations),
            "graph_size": graph.size,
            "graph_refused": graph.refused,
        }
    return out
