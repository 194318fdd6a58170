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

from .records import FAILURE_STATUSES, ItemRecord
from .results import rollup_of
from .show import (LoadedRun, RunError, fmt_cost, fmt_time, item_dir, load_run, load_transcript,
                   resolve_image, run_warnings, tool_input_text, total_time, unseen_images)

TEMPLATES = Path(__file__).resolve().parent / "templates"
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


class ImageEmbedder:
    """Data URIs, PNG/JPEG bytes as they are unless larger than `max_px`; one embedding per file per item."""

    def __init__(self, max_px: int):
        self.max_px = max_px
        self.seen: dict[Path, str] = {}

    def start_item(self) -> None:
        self.seen = {}

    def __call__(self, path: Path, shown_as: str, label: str) -> Img:
        from PIL import Image, UnidentifiedImageError
        key = path.resolve()
        if key in self.seen:
            return Img(shown_as, note=f"same image as {self.seen[key]} above")
        try:
            with Image.open(path) as img:
                size, fmt = img.size, img.format
                if max(size) > self.max_px or fmt not in MIME:
                    img.thumbnail((self.max_px, self.max_px), Image.LANCZOS)
                    buffer = io.BytesIO()
                    img.convert("RGBA" if img.mode in ("RGBA", "LA", "P") else "RGB").save(buffer, "PNG")
                    data, mime, shown = buffer.getvalue(), "image/png", img.size
                else:
                    data, mime, shown = path.read_bytes(), MIME[fmt], size
        except (OSError, UnidentifiedImageError):
            return Img(shown_as, note="missing or unreadable")
        self.seen[key] = label
        note = f"shown at {shown[0]}×{shown[1]}, downscaled from {size[0]}×{size[1]}" if shown != size else ""
        return Img(shown_as, f"data:{mime};base64,{base64.b64encode(data).decode()}", size[0], size[1], note)


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


def _step_views(transcript, base: Path, embed: ImageEmbedder) -> list[StepView]:
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
        view.images = [embed(resolve_image(base, p), p, f"step {n}") for p in step.images]
        views.append(view)
    return views


def _item(run: LoadedRun, record: ItemRecord, embed: ImageEmbedder, dataset: dict) -> dict:
    embed.start_item()
    base = item_dir(run, record)
    transcript, why = load_transcript(run, record)
    data_item = dataset.get(record.id)
    candidates = [*(transcript.prompt_images if transcript else []), "work/image.png"]
    found = next((resolve_image(base, p) for p in candidates if resolve_image(base, p).is_file()), None)
    if found is None and data_item is not None:
        found = data_item.image
    original = embed(found, "original", "the original") if found else None
    seen = set(transcript.prompt_images) if transcript else set()
    steps = _step_views(transcript, base, embed) if transcript else []
    for step in transcript.steps if transcript else []:
        seen.update(step.images)
    unseen = unseen_images(base, seen)
    final = (record.answer_text or (transcript.final_text if transcript else None) or "").strip() or None
    last_text = next((s.text.strip() for s in reversed(steps) if s.kind == "text"), None)
    u = record.usage
    tokens = ", ".join(f"{k} {v:,}" for k, v in (("in", u.input_tokens), ("cached", u.cached_input_tokens),
                                                    ("out", u.output_tokens), ("reasoning", u.reasoning_tokens)) if v is not None)
    return {
        "run": run.root.name, "id": record.id, "task": record.task, "category": record.category,
        "repeat": record.repeat, "status": record.status, "is_error": record.status in FAILURE_STATUSES,
        "correct": record.correct, "prediction": record.prediction, "truth": record.ground_truth,
        "question": data_item.question if data_item else None,
        "prompt": transcript.prompt if transcript else None,
        "original": original, "original_path": str(found) if found else None,
        "steps": steps, "transcript_note": why,
        "agent_error": transcript.error if transcript else None,
        "final_text": None if final == last_text else final,  # no need to repeat the last message
        "error": record.error, "tokens": tokens or "?", "cost": fmt_cost(record.cost_usd), "time": fmt_time(record.elapsed_s),
        "turns": "?" if record.num_turns is None else record.num_turns, "tool_calls": record.tool_calls,
        "attempts": record.attempts,
        "unseen": [embed(base / p, p, p) for p in unseen[:MAX_UNSEEN]], "unseen_more": max(0, len(unseen) - MAX_UNSEEN),
    }


def _summary(run: LoadedRun) -> dict:
    rollup = rollup_of(run.records)
    o = rollup["overall"]
    return {"overall": o, "per_category": rollup["per_category"], "per_task": rollup["per_task"],
            "cost": "unknown" if o["cost_usd"] is None else fmt_cost(o["cost_usd"]) + (f" ({o['cost_unknown']} unknown)" if o["cost_unknown"] else ""),
            "time": "unknown" if total_time(run.records) is None else fmt_time(total_time(run.records)),
            "failures": {k: v for k, v in o["statuses"].items() if k != "ok"}}


def build_context(runs: list[LoadedRun], dataset: dict, max_px: int, title: str) -> dict:
    embed = ImageEmbedder(max_px)
    run_views = []
    for letter, run in zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", runs):
        run_views.append({
            "letter": letter, "name": run.name, "dir": run.root.name, "path": str(run.root), "label": run.label,
            "config": sorted((k, "?" if v is None else str(v)) for k, v in run.config.items()),
            "manifest": {k: str(v) for k, v in (run.manifest or {}).items() if k in ("started_at", "finished_at", "project_version")},
            "warnings": run_warnings(run), "summary": _summary(run),
            "entries": [_item(run, r, embed, dataset) for r in run.records],
        })
    tasks = sorted({r.task for run in runs for r in run.records})
    side = [{"task": t, "acc": [rv["summary"]["per_task"].get(t) for rv in run_views]} for t in tasks]
    return {"title": title, "generated_at": time.strftime("%Y-%m-%d %H:%M"), "runs": run_views, "tasks": tasks,
            "side_by_side": side, "n_items": sum(len(rv["entries"]) for rv in run_views)}


def render(context: dict) -> str:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = lambda v: "—" if v is None else f"{v:.1%}"
    return env.get_template("report.html.j2").render(**context)


def _dataset_items(path: Path | None) -> dict:
    if path is None:
        return {}
    from .data import DataError, load_dataset
    try:
        return {item.id: item for item in load_dataset(path).items}
    except DataError as error:
        raise RunError(str(error)) from None


@click.command("report")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=Path("report.html"), show_default=True)
@click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Dataset directory: supplies questions, and original images where a run kept none (e.g. no-tool results).")
@click.option("--max-image-px", default=1600, show_default=True, help="Downscale larger images for display (noted under them).")
@click.option("--title", default="agent-eval report", show_default=True)
def command(runs, output, data, max_image_px, title):
    """Write one self-contained HTML report of RUN(s): summaries, then every item's transcript with its images."""
    loaded = [load_run(path) for path in runs]
    html = render(build_context(loaded, _dataset_items(data), max_image_px, title))
    output.write_text(html, encoding="utf-8")
    click.echo(f"report written to {output} ({len(html) / 1e6:.1f} MB, {sum(len(r.records) for r in loaded)} items)")
