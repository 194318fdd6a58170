"""The self-contained HTML report: one context dict built from runs, laid out by templates/report.html.j2."""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from agent_eval.agents.received import describe as describe_received
from agent_eval.analysis.formatting import (
    fmt_agent_time,
    fmt_break,
    fmt_cache,
    fmt_cost,
    fmt_time,
    fmt_tokens,
    session_words,
    tool_input_text,
    total_time,
)
from agent_eval.analysis.item_images import ImageEmbedder, Img, ItemImages
from agent_eval.analysis.measures import headline
from agent_eval.benchmarks.presentation import ReportedItem
from agent_eval.datamodel.prompt_cache import cache_figures, cache_of
from agent_eval.datamodel.records import FAILURE_STATUSES, ItemRecord
from agent_eval.datamodel.results import rollup_of
from agent_eval.reading.replay import ReplayError, replay_bytes
from agent_eval.reading.runs import LoadedRun, RunError, run_warnings
from agent_eval.reading.transcripts import item_dir, load_transcript

TEMPLATES = Path(__file__).resolve().parents[1] / "reading" / "templates"


MAX_TEXT_LINES = 400  # a tool output longer than this is cut in the report (show --full has it all)


MAX_UNSEEN = 12  # scratch images per item shown from the workdir
MAX_BREAKS = 10  # prefix breaks listed under an item (its gateway.jsonl has each)


@dataclass
class StepView:
    kind: str
    label: str
    text: str = ""
    is_error: bool = False
    images: list[Img] = field(default_factory=list)


def _cut(text: str) -> str:
    lines = text.splitlines()
    if len(lines) <= MAX_TEXT_LINES:
        return text
    return (
        "\n".join(lines[:MAX_TEXT_LINES]) + f"\n... {len(lines) - MAX_TEXT_LINES} more lines (agent-eval show --full)"
    )


def _step_views(transcript, embed: ImageEmbedder) -> list[StepView]:
    received = {image.path: describe_received(image) for image in transcript.images if image.path}
    views = []
    for n, step in enumerate(transcript.steps, start=1):
        when = f" · {step.t:.1f}s" if step.t is not None else ""
        if step.kind == "tool_call":
            view = StepView("tool_call", f"{n} · tool call · {step.tool}{when}", _cut(tool_input_text(step.input)))
        elif step.kind == "tool_result":
            view = StepView(
                "tool_result",
                f"{n} · tool result{' · error' if step.is_error else ''}{when}",
                _cut(step.text),
                step.is_error,
            )
        else:
            view = StepView(
                step.kind, f"{n} · {'reasoning' if step.kind == 'reasoning' else 'assistant'}{when}", _cut(step.text)
            )
        view.images = [embed(p, f"step {n}") for p in step.images]
        for img in view.images:
            img.received = received.get(img.path, "")
        views.append(view)
    return views


def _replay(run: LoadedRun, record: ItemRecord) -> dict | None:
    """A game's replay as an animated WebP (report --replays): every recorded frame, captioned; None: not a game."""
    frames = run.hooks.replay_frames(item_dir(run, record))
    if not frames:
        return None
    try:
        data = replay_bytes(frames, "WEBP")
    except ReplayError as error:
        return {"src": "", "frames": len(frames), "note": str(error)}
    return {"src": f"data:image/webp;base64,{base64.b64encode(data).decode()}", "frames": len(frames), "note": ""}


def _item(run: LoadedRun, record: ItemRecord, max_px: int, dataset: dict, truth=None, replays: bool = False) -> dict:
    """`truth`: the run's kind's report_truth; with one, the kind's own view (its figures, if it draws any, replace
    the single original).
    `replays`: a game's replay embedded too."""
    images = ItemImages(item_dir(run, record))
    embed = ImageEmbedder(images, max_px)
    transcript, why = load_transcript(run, record)
    data_item = dataset.get(record.id)
    kind, original_path = None, None
    if truth is not None:
        view = run.hooks.report_item(ReportedItem(run, record, images, embed, transcript, truth))
        kind = view.for_template() if view else None
    if kind is None or not kind.get("figures_template"):  # a kind view without figures of its own keeps the original
        original_path = images.original(transcript.prompt_images if transcript else [])
        dataset_image = getattr(data_item, "image", None)
        if original_path is None and dataset_image is not None:
            original_path = str(dataset_image.resolve())  # no-tool results keep no image: the dataset's
    original = embed(original_path, "the original") if original_path else None
    if original is not None and transcript is not None and transcript.prompt_images:
        inline = [image for image in transcript.images if image.via == "inline"]
        original.received = (
            describe_received(inline[0])
            if inline
            else "the model received no image"
            if transcript.images or record.status == "image_dropped"
            else ""
        )
    steps = _step_views(transcript, embed) if transcript else []
    shown = [
        *(transcript.prompt_images if transcript else []),
        *(p for step in (transcript.steps if transcript else []) for p in step.images),
    ]
    unseen = images.not_shown(shown, original_path)
    final = (record.answer_text or (transcript.final_text if transcript else None) or "").strip() or None
    last_text = next((s.text.strip() for s in reversed(steps) if s.kind == "text"), None)
    return {
        "id": record.id,
        "task": record.task,
        "category": record.category,
        "repeat": record.repeat,
        "status": record.status,
        "is_error": record.status in FAILURE_STATUSES,
        "correct": record.correct,
        "prediction": record.prediction,
        "truth": record.ground_truth,
        # a kind's own measures (a game's score) in place of prediction, truth and right or wrong
        "measures": [{"name": m.name, "value": m.item(record)} for m in run.hooks.measures()],
        "question": data_item.question if data_item else (kind or {}).get("question"),
        "prompt": transcript.prompt if transcript else None,
        "original": original,
        "kind": kind,
        "steps": steps,
        "transcript_note": why,
        "agent_error": transcript.error if transcript else None,
        "final_text": None if final == last_text else final,  # no need to repeat the last message
        "error": record.error,
        "tokens": fmt_tokens(record.usage),
        "cost": fmt_cost(record.cost_usd),
        "cache": _cache_line([record]),
        "cache_breaks": [fmt_break(b) for b in ((cache_of(record) or {}).get("break_list") or [])[:MAX_BREAKS]],
        "time": fmt_agent_time(record.elapsed_s, record.provider_wait_s),
        "turns": "?" if record.num_turns is None else record.num_turns,
        "tool_calls": record.tool_calls,
        "attempts": record.attempts,
        "sessions": session_words(record),
        "unseen": [embed(p, p) for p in unseen[:MAX_UNSEEN]],
        "unseen_more": max(0, len(unseen) - MAX_UNSEEN),
        "replay": _replay(run, record) if replays else None,
    }


def _cache_line(records: list[ItemRecord]) -> str | None:
    figures = cache_figures(records)
    return None if figures is None else fmt_cache(figures)


def _summary(run: LoadedRun) -> dict:
    rollup = rollup_of(run.records)
    o = rollup["overall"]
    view = run.hooks.report_summary(run.records, rollup["per_category"])
    kind = view.for_template() if view else None
    return {
        "overall": o,
        "per_category": rollup["per_category"],
        "per_task": rollup["per_task"],
        "kind": kind,
        "cost": "unknown"
        if o["cost_usd"] is None
        else fmt_cost(o["cost_usd"]) + (f" ({o['cost_unknown']} unknown)" if o["cost_unknown"] else ""),
        "time": "unknown" if total_time(run.records) is None else fmt_time(total_time(run.records)),
        "cache": _cache_line(run.records),
        "failures": {k: v for k, v in o["statuses"].items() if k != "ok"},
    }


def _measured(run: LoadedRun, records: list[ItemRecord]) -> str | None:
    """A kind's own measures over these item runs in one phrase (None: the kind has none, or no item ran)."""
    measures = run.hooks.measures()
    return headline(measures, records) if measures and records else None


def build_context(
    runs: list[LoadedRun], dataset: dict, max_px: int, title: str, data: Path | None = None, replays: bool = False
) -> dict:
    """`data`: the --data dir, handed to each run's kind (e.g. the scenes behind an active-observation run);
    `replays`: each game's replay embedded in its item (reading/replay.py)."""
    from agent_eval.reading.report_findings import run_findings

    run_views: list[dict[str, Any]] = []
    loaded: dict = {}
    for letter, run in zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", runs):
        truth = run.hooks.report_truth(run, data, loaded)
        run_views.append(
            {
                "letter": letter,
                "name": run.name,
                "dir": run.root.name,
                "path": str(run.root),
                "label": run.label,
                "config": sorted((k, "?" if v is None else str(v)) for k, v in run.config.as_dict().items())
                if run.manifest
                else [],
                "manifest": {
                    k: str(v)
                    for k in ("started_at", "finished_at", "project_version")
                    if run.manifest and (v := getattr(run.manifest, k)) is not None
                },
                "warnings": run_warnings(run),
                "summary": _summary(run),
                "entries": [_item(run, r, max_px, dataset, truth, replays) for r in run.records],
                "findings": run_findings(run),
                "measured_overall": _measured(run, run.records),
            }
        )
    tasks = sorted({r.task for run in runs for r in run.records})
    side = [
        {
            "task": t,
            "acc": [rv["summary"]["per_task"].get(t) for rv in run_views],
            "measured": [_measured(run, [r for r in run.records if r.task == t]) for run in runs],
        }
        for t in tasks
    ]
    all_measured = all(run.hooks.measures() for run in runs)
    kinds = {run.benchmark: run.hooks for run in runs}
    if not any(hooks.side_by_side for hooks in kinds.values()):
        side = []  # e.g. one task, and the kind's own glance table says more
    glance_view = next(filter(None, (hooks.report_glance(run_views) for hooks in kinds.values())), None)
    glance = glance_view.for_template() if glance_view else None
    from agent_eval.reading.report_changes import changed_sections
    from agent_eval.reading.report_findings import comparison

    paired = comparison(
        runs
    )  # runs compare refuses to pair (other scorer, other benchmark) get no changed items either
    return {
        "title": title,
        "generated_at": time.strftime("%Y-%m-%d %H:%M"),
        "runs": run_views,
        "tasks": tasks,
        "comparison": paired,
        "changed": [] if paired["why_not"] else changed_sections(runs, run_views),
        "side_by_side": side,
        "all_measured": all_measured,
        "glance_words": "The kind's own measures" if all_measured else "Accuracy",
        "kind_glance": glance,
        "kind_templates": [str(h.templates_dir) for h in kinds.values() if h.templates_dir],
        "kind_css": [h.report_css for h in kinds.values() if h.report_css],
        "n_items": sum(len(rv["entries"]) for rv in run_views),
        "live": None,  # report --live: the run as it stands (reading/report_live.py)
    }


def render(context: dict) -> str:
    # The kinds' own templates (their items, summaries, glance tables) are found after the report's.
    search = [TEMPLATES, *context.get("kind_templates", [])]
    env = Environment(
        loader=FileSystemLoader(search),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = lambda v: "—" if v is None else f"{v:.1%}"
    return env.get_template("report.html.j2").render(**context)


def dataset_items(path: Path | None) -> dict:
    if path is None:
        return {}
    from agent_eval.benchmarks import load_benchmark
    from agent_eval.datamodel.jsonl import DataError

    try:
        return {item.id: item for item in load_benchmark(path)[1].items}
    except DataError as error:
        raise RunError(str(error)) from None
