"""The active-observation parts of `agent-eval report`: per item the views the agent chose, in call order, and its
evidence drawn on the view it names beside the target's true box; per run the answer, evidence, combined accuracy
and hallucination rate per family. Layout: templates/active_*.j2."""

from __future__ import annotations

import base64
import io
import re

from agent_eval.analysis.item_images import Img
from agent_eval.benchmarks.activeobs.evidence import (
    RunTruth,
    active_rollup,
    evidence_of,
    evidence_view,
    load_observations,
    truth_view,
)
from agent_eval.benchmarks.activeobs.graph_view import graph_figures, graph_summary, graph_tables
from agent_eval.benchmarks.activeobs.metrics import ActiveObsMetrics
from agent_eval.benchmarks.activeobs.worldmodel import load_graph
from agent_eval.benchmarks.presentation import ReportedItem

PASSIVE_NAME = re.compile(r"panorama-(\d+)-f(\d+)\.png$")


def png_img(image, caption: str) -> Img:
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    data = base64.b64encode(buffer.getvalue()).decode()
    return Img(caption, f"data:image/png;base64,{data}", image.width, image.height)


def _passive_label(path: str) -> str:
    match = PASSIVE_NAME.search(path)
    return f"image {int(match.group(1))} · frame {int(match.group(2))}" if match else path


def active_item(reported: ReportedItem) -> dict:
    """Call before the steps are embedded: a view the agent saw is then shown once, here, and the
    transcript points back to it ("same image as observation #1 above")."""
    record, images, embed, truth = reported.record, reported.images, reported.embed, reported.truth
    assert isinstance(truth, RunTruth), truth  # what this kind's report_truth returned
    observations, note = load_observations(images.base)
    item, scene = truth.item_and_scene(record.id)
    evidence = evidence_of(record, observations, item, scene)
    passive = [
        dict(embed(p, _passive_label(p)).__dict__, label=_passive_label(p))
        for p in (reported.transcript.prompt_images if reported.transcript else [])
    ]
    views = [
        {
            "n": o.n,
            "ok": o.ok,
            "label": o.describe(),
            "is_evidence": o.n == evidence.observed,
            "img": embed(o.image, f"observation #{o.n}") if o.image else None,
        }
        for o in observations or []
    ]
    figures, notes = [], [n for n in (note, truth.note) if n]
    image, caption = evidence_view(evidence, scene, images.base, observations)
    if image is not None:
        figures.append(png_img(image, caption))
    elif caption:
        notes.append(caption)
    if item is not None and scene is not None and not evidence.correct:
        figures.append(png_img(*truth_view(item, scene, evidence.frame)))
    graph = load_graph(images.base)
    graph_view = None
    if graph is not None:
        graph_view = {
            "summary": graph_summary(graph, images.base),
            "tables": [{"title": t, "header": h, "rows": r} for t, h, r in graph_tables(graph)],
            "figures": [png_img(image, caption) for image, caption in graph_figures(images.base, scene)],
            "refused": [f"{h.get('tool')}: {h.get('error')}" for h in graph.history if not h.get("ok")],
        }
    return {
        "question": item.question if item is not None else None,
        "mode": reported.run.config.tools or "?",
        "logged": observations is not None,
        "views": views,
        "passive": passive,
        "evidence_lines": evidence.lines(),
        "evidence_given": evidence.given,
        "evidence_correct": evidence.correct,
        "combined": ActiveObsMetrics.of(record).combined,
        "figures": figures,
        "notes": notes,
        "graph": graph_view,
    }


def active_summary(records, per_category: dict) -> dict:
    """Per family and overall: the active rollup, plus harness errors per family."""
    rollup = active_rollup(records)
    for name, s in rollup["families"].items():
        s["errors"] = (per_category.get(name) or {}).get("errors", 0)
    rollup["overall"]["errors"] = sum(s["errors"] for s in rollup["families"].values())
    return rollup


def active_glance(run_views: list[dict]) -> dict | None:
    """Side by side for the active runs of a report: overall and per family, each run's four rates."""
    active = [rv for rv in run_views if rv["summary"].get("kind")]
    if not active:
        return None
    families = sorted({f for rv in active for f in rv["summary"]["kind"]["families"]})
    rows = [("overall", [rv["summary"]["kind"]["overall"] for rv in active])]
    rows += [(f, [rv["summary"]["kind"]["families"].get(f) for rv in active]) for f in families]
    return {"runs": active, "rows": rows}
