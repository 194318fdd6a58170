"""`agent-eval report RUN [RUN...] -o report.html`: one self-contained HTML file per set of runs.

Everything is inline (images as data: URIs, CSS and a few lines of JS), so the file opens
offline and can be mailed. The template (templates/report.html.j2) only lays out what
`build_context` prepares here; jinja2 autoescapes and StrictUndefined catches typos.
"""
from __future__ import annotations

import base64
import io
import time
from dataclasses import dataclass, field
from pathlib import Path

import click
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from agent_eval.agents.received import describe as describe_received
from agent_eval.core.records import FAILURE_STATUSES, ItemRecord
from agent_eval.core.results import rollup_of
from agent_eval.commands.show import (ItemImages, LoadedRun, RunError, fmt_cost, fmt_time, item_dir, load_run, load_transcript,
                   resolve_image, run_warnings, tool_input_text, total_time)

TEMPLATES = Path(__file__).resolve().parents[1] / "reading" / "templates"
MAX_TEXT_LINES = 400       # a tool output longer than this is cut in the report (show --full has it all)
MAX_UNSEEN = 12            # scratch images per item shown from the workdir
MIME = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


@dataclass
class Img:
    path: str
    src: str = ""             # data: URI; empty when missing or shown earlier in the item
    width: int = 0
    height: int = 0
    note: str = ""
    alias: str = ""           # the workdir file with the same pixels (seen/001.png = work/views/001-inspect.png)
    received: str = ""        # "model received 2000×1467 of 3000×2200 (reduced by the CLI)"


class ImageEmbedder:
    """One item's images as data URIs: bytes as they are unless larger than `max_px` (then a PNG
    thumbnail, noted), and each distinct picture embedded once (a repeat points back to it)."""

    def __init__(self, images: ItemImages, max_px: int):
        self.images, self.max_px = images, max_px
        self.done: dict[str, str] = {}  # pixel key -> where it was first shown

    def __call__(self, rel: str, label: str) -> Img:
        from PIL import Image
        key, alias = self.images.key(rel), self.images.alias(rel) or ""
        if key is None:
            return Img(rel, note="missing or unreadable")
        if key in self.done:
            return Img(rel, note=f"same image as {self.done[key]} above", alias=alias)
        path = resolve_image(self.images.base, rel)
        with Image.open(path) as img:
            size, fmt = img.size, img.format
            if max(size) <= self.max_px and fmt in MIME:
                data, mime, shown = path.read_bytes(), MIME[fmt], size
            else:
                img.thumbnail((self.max_px, self.max_px), Image.LANCZOS)
                buffer = io.BytesIO()
                img.convert("RGBA" if img.mode in ("RGBA", "LA", "P") else "RGB").save(buffer, "PNG")
                data, mime, shown = buffer.getvalue(), "image/png", img.size
        self.done[key] = label
        note = f"shown at {shown[0]}×{shown[1]}, downscaled from {size[0]}×{size[1]}" if shown != size else ""
        return Img(rel, f"data:{mime};base64,{base64.b64encode(data).decode()}", size[0], size[1], note, alias)


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
    return "\n".join(lines[:MAX_TEXT_LINES]) + f"\n... {len(lines) - MAX_TEXT_LINES} more lines (agent-eval show --full)"


def _step_views(transcript, embed: ImageEmbedder) -> list[StepView]:
    received = {image.path: describe_received(image) for image in transcript.images if image.path}
    views = []
    for n, step in enumerate(transcript.steps, start=1):
        when = f" · {step.t:.1f}s" if step.t is not None else ""
        if step.kind == "tool_call":
            view = StepView("tool_call", f"{n} · tool call · {step.tool}{when}", _cut(tool_input_text(step.input)))
        elif step.kind == "tool_result":
            view = StepView("tool_result", f"{n} · tool result{' · error' if step.is_error else ''}{when}",
                            _cut(step.text), step.is_error)
        else:
            view = StepView(step.kind, f"{n} · {'reasoning' if step.kind == 'reasoning' else 'assistant'}{when}", _cut(step.text))
        view.images = [embed(p, f"step {n}") for p in step.images]
        for img in view.images:
            img.received = received.get(img.path, "")
        views.append(view)
    return views


def _item(run: LoadedRun, record: ItemRecord, max_px: int, dataset: dict, truth=None) -> dict:
    images = ItemImages(item_dir(run, record))
    embed = ImageEmbedder(images, max_px)
    transcript, why = load_transcript(run, record)
    data_item = dataset.get(record.id)
    active, original_path = None, None
    if truth is not None:  # active observation: the chosen views and the evidence instead of one original
        from agent_eval.benchmarks.activeobs.report import active_item
        active = active_item(run, record, images, embed, transcript, truth)
    else:
        original_path = images.original(transcript.prompt_images if transcript else [])
        if original_path is None and getattr(data_item, "image", None) is not None:
            original_path = str(data_item.image.resolve())  # no-tool results keep no image: the dataset's
    original = embed(original_path, "the original") if original_path else None
    if original is not None and transcript is not None and transcript.prompt_images:
        inline = [image for image in transcript.images if image.via == "inline"]
        original.received = (describe_received(inline[0]) if inline else
                             "the model received no image" if transcript.images or record.status == "image_dropped"
                             else "")
    steps = _step_views(transcript, embed) if transcript else []
    shown = [*(transcript.prompt_images if transcript else []), *(p for step in (transcript.steps if transcript else []) for p in step.images)]
    unseen = images.not_shown(shown, original_path)
    final = (record.answer_text or (transcript.final_text if transcript else None) or "").strip() or None
    last_text = next((s.text.strip() for s in reversed(steps) if s.kind == "text"), None)
    u = record.usage
    tokens = ", ".join(f"{k} {v:,}" for k, v in (("in", u.input_tokens), ("cached", u.cached_input_tokens),
                                                    ("out", u.output_tokens), ("reasoning", u.reasoning_tokens)) if v is not None)
    return {
        "id": record.id, "task": record.task, "category": record.category,
        "repeat": record.repeat, "status": record.status, "is_error": record.status in FAILURE_STATUSES,
        "correct": record.correct, "prediction": record.prediction, "truth": record.ground_truth,
        "question": data_item.question if data_item else (active or {}).get("question"),
        "prompt": transcript.prompt if transcript else None,
        "original": original, "active": active,
        "steps": steps, "transcript_note": why,
        "agent_error": transcript.error if transcript else None,
        "final_text": None if final == last_text else final,  # no need to repeat the last message
        "error": record.error, "tokens": tokens or "?", "cost": fmt_cost(record.cost_usd), "time": fmt_time(record.elapsed_s),
        "turns": "?" if record.num_turns is None else record.num_turns, "tool_calls": record.tool_calls,
        "attempts": record.attempts,
        "unseen": [embed(p, p) for p in unseen[:MAX_UNSEEN]], "unseen_more": max(0, len(unseen) - MAX_UNSEEN),
    }


def _summary(run: LoadedRun) -> dict:
    rollup = rollup_of(run.records)
    o = rollup["overall"]
    active = None
    if run.active:
        from agent_eval.benchmarks.activeobs.report import active_summary
        active = active_summary(run.records, rollup["per_category"])
    return {"overall": o, "per_category": rollup["per_category"], "per_task": rollup["per_task"], "active": active,
            "cost": "unknown" if o["cost_usd"] is None else fmt_cost(o["cost_usd"]) + (f" ({o['cost_unknown']} unknown)" if o["cost_unknown"] else ""),
            "time": "unknown" if total_time(run.records) is None else fmt_time(total_time(run.records)),
            "failures": {k: v for k, v in o["statuses"].items() if k != "ok"}}


def build_context(runs: list[LoadedRun], dataset: dict, max_px: int, title: str, data: Path | None = None) -> dict:
    """`data`: the --data dir; for active-observation runs it supplies the scenes (else run.json's dataset path)."""
    from agent_eval.reading.report_findings import run_findings
    run_views, loaded = [], {}
    for letter, run in zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", runs):
        truth = None
        if run.active:
            from agent_eval.benchmarks.activeobs.reading import RunTruth
            from agent_eval.benchmarks.activeobs import is_active_dataset
            truth = RunTruth(run, data if data and is_active_dataset(data) else None, loaded)
        run_views.append({
            "letter": letter, "name": run.name, "dir": run.root.name, "path": str(run.root), "label": run.label,
            "config": sorted((k, "?" if v is None else str(v)) for k, v in run.config.items()),
            "manifest": {k: str(v) for k, v in (run.manifest or {}).items() if k in ("started_at", "finished_at", "project_version")},
            "warnings": run_warnings(run), "summary": _summary(run),
            "entries": [_item(run, r, max_px, dataset, truth) for r in run.records], "active": run.active,
            "findings": run_findings(run),
        })
    tasks = sorted({r.task for run in runs for r in run.records})
    side = [{"task": t, "acc": [rv["summary"]["per_task"].get(t) for rv in run_views]} for t in tasks]
    if all(run.active for run in runs):
        side = []  # one task, and the active table below says more
    glance = None
    if any(run.active for run in runs):
        from agent_eval.benchmarks.activeobs.report import active_glance
        glance = active_glance(run_views)
    from agent_eval.reading.report_changes import changed_sections
    from agent_eval.reading.report_findings import comparison
    paired = comparison(runs)  # runs compare refuses to pair (other scorer, other benchmark) get no changed items either
    return {"title": title, "generated_at": time.strftime("%Y-%m-%d %H:%M"), "runs": run_views, "tasks": tasks,
            "comparison": paired, "changed": [] if paired["why_not"] else changed_sections(runs, run_views),
            "side_by_side": side, "active_glance": glance, "n_items": sum(len(rv["entries"]) for rv in run_views)}


def render(context: dict) -> str:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = lambda v: "—" if v is None else f"{v:.1%}"
    return env.get_template("report.html.j2").render(**context)


def _dataset_items(path: Path | None) -> dict:
    if path is None:
        return {}
    from agent_eval.benchmarks import load_benchmark
    from agent_eval.core.data import DataError
    try:
        return {item.id: item for item in load_benchmark(path)[1].items}
    except DataError as error:
        raise RunError(str(error)) from None


@click.command("report")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=Path("report.html"), show_default=True)
@click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Dataset directory: supplies questions, original images where a run kept none (e.g. no-tool "
                   "results), and for active observation the scenes behind the true boxes (default: run.json's).")
@click.option("--max-image-px", default=1600, show_default=True, help="Downscale larger images for display (noted under them).")
@click.option("--title", default="agent-eval report", show_default=True)
def command(runs, output, data, max_image_px, title):
    """Write one self-contained HTML report of RUN(s): summaries, then every item's transcript with its images."""
    loaded = [load_run(path) for path in runs]
    html = render(build_context(loaded, _dataset_items(data), max_image_px, title, data))
    output.write_text(html, encoding="utf-8")
    click.echo(f"report written to {output} ({len(html) / 1e6:.1f} MB, {sum(len(r.records) for r in loaded)} items)")
