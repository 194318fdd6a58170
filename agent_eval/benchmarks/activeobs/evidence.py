"""Reading active-observation runs, for `show` and `report`: an item's observe log, the dataset behind a run (for
true boxes), the agent's evidence against the truth, boxes drawn on views, the rollup per family."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw

from agent_eval.benchmarks.activeobs.geometry import pano_box_to_view, view_px_to_norm, view_span, x_to_angle
from agent_eval.benchmarks.activeobs.grading import rollup_active
from agent_eval.benchmarks.activeobs.loader import load_active_dataset
from agent_eval.benchmarks.activeobs.metrics import ActiveObsMetrics
from agent_eval.benchmarks.activeobs.render import person_box, render_view
from agent_eval.datamodel.jsonl import DataError

AGENT_COLOUR = (255, 120, 0)  # the agent's box: orange
TRUTH_COLOUR = (0, 200, 70)  # the target's true box: green


@dataclass
class Observation:
    """One observe call as the server logged it, in call order."""

    n: int
    ok: bool
    request: dict
    frame: int | None = None
    angle: float | None = None
    time_s: float | None = None
    image: str | None = None  # relative to the item dir: observations/NNN-fFFFF-aAAA.A.png
    error: str | None = None
    wraps: bool = False

    def describe(self) -> str:
        if not self.ok:
            r = self.request
            return f"frame {r.get('frame_index', '?')} · angle {r.get('angle_deg', '?')} · error: {self.error}"
        seam = " · across the 0°/360° seam" if self.wraps else ""
        return f"frame {self.frame} (t = {self.time_s:.2f} s) · {self.angle:.1f}°{seam}"


def load_observations(base: Path) -> tuple[list[Observation] | None, str | None]:
    """The item's observe log (None when the item has none) and a note on unreadable lines."""
    path = base / "observations" / "observations.jsonl"
    if not path.is_file():
        return None, None
    out: list[Observation] = []
    bad = 0
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            e = json.loads(line)
            out.append(
                Observation(
                    n=int(e.get("n", len(out) + 1)),
                    ok=bool(e.get("ok")),
                    request=e.get("request") or {},
                    frame=e.get("frame_index"),
                    angle=e.get("angle_deg"),
                    time_s=e.get("time_s"),
                    error=e.get("error"),
                    wraps=bool(e.get("wraps_seam")),
                    image=f"observations/{e['image']}" if e.get("image") else None,
                )
            )
        except (json.JSONDecodeError, TypeError, ValueError, AttributeError):
            bad += line.strip() != ""
    out.sort(key=lambda o: o.n)
    return out, (f"{path}: {bad} unreadable line(s) skipped" if bad else None)


class RunTruth:
    """The active dataset behind a run (`--data` or run.json's path) when readable and unchanged."""

    def __init__(self, run, data: Path | None = None, cache: dict | None = None):
        self.dataset, self.note, self.items = None, None, {}
        self._cache = {} if cache is None else cache  # one load per dataset dir per command
        recorded = run.manifest and run.manifest.dataset.path
        path = Path(data) if data else Path(recorded) if recorded else None
        if path is None:
            self.note = "dataset unknown (no run.json): true boxes not drawn (pass --data DIR)"
            return
        key = str(path.resolve())
        if key not in self._cache:
            try:
                dataset = load_active_dataset(path)
                self._cache[key] = (dataset, dataset.content_hash())
            except (DataError, OSError) as error:
                self._cache[key] = str(error)
        loaded = self._cache[key]
        if isinstance(loaded, str):
            self.note = f"dataset not readable ({loaded}): true boxes not drawn"
            return
        dataset, digest = loaded
        expected = run.config.dataset_hash
        if expected and digest != expected:
            self.note = (
                f"the dataset at {path} changed since the run (hash {digest}, run used {expected}): "
                "true boxes not drawn"
            )
            return
        self.dataset = dataset
        self.items = {item.id: item for item in dataset.items}

    def item_and_scene(self, item_id: str):
        """(dataset item, scene) for an item id, or (None, None) without a usable dataset."""
        item = self.items.get(item_id)
        return (item, self.dataset.scene(item.sequence)) if item and self.dataset else (None, None)


@dataclass
class Evidence:
    """The agent's evidence against the truth, for one record."""

    given: bool
    frame: int | None = None
    angle: float | None = None
    bbox: tuple | None = None  # 0-1000 in the named view, clamped as the grader does
    correct: bool = False
    iou: float | None = None
    matched_frame: int | None = None
    error: str | None = None
    observed: int | None = None  # the observation whose view it names, if any
    target: str | None = None  # from the dataset:
    truth_bbox: tuple | None = None  #   the target's box in the named view at that frame (0-1000)
    target_angle: float | None = None  #   where the target is at that frame
    frames: tuple[int, int] | None = None  #   the first and last frame listed for the target
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        if not self.given:
            return [f"no evidence: {self.error or 'none given'}"]
        box = ", ".join(f"{v:g}" for v in self.bbox) if self.bbox else "?"
        seen = f" (the view of observation #{self.observed})" if self.observed else " (a view the agent never observed)"
        out = [f"evidence: frame {self.frame}, angle {self.angle:g}°, bbox [{box}]{seen}"]
        matched = f" with the target at frame {self.matched_frame}" if self.matched_frame is not None else ""
        error = f"; {self.error}" if self.error else ""
        out.append(f"evidence {'correct' if self.correct else 'wrong'}: IoU {self.iou:.2f}{matched}{error}")
        if self.target and self.frames:  # the dataset gives both
            where = "frame out of range" if self.target_angle is None else "it is not in that view"
            if self.truth_bbox:
                where = f"its box in that view is [{', '.join(f'{v:.0f}' for v in self.truth_bbox)}]"
            at = f" (at {self.target_angle:.1f}°)" if self.target_angle is not None else ""
            out.append(
                f"truth: target {self.target}{at} at frame {self.frame}: {where}; its evidence frames "
                f"are {self.frames[0]}..{self.frames[1]} (evidence counts at those frames only)"
            )
        return out + self.notes


def evidence_of(record, observations, item=None, scene=None) -> Evidence:
    metrics = ActiveObsMetrics.of(record)
    detail, ev = metrics.grade_detail, metrics.evidence
    try:
        numbers = [float(ev["frame"]), float(ev["angle"]), *(float(v) for v in ev["bbox"])]
        if len(numbers) != 6 or not all(map(math.isfinite, numbers)):
            raise ValueError
        frame, angle = int(round(numbers[0])), numbers[1]
        bbox = tuple(min(1000.0, max(0.0, v)) for v in numbers[2:])
    except (TypeError, KeyError, ValueError):
        why = detail.get("evidence_error") or detail.get("parse_error")
        return Evidence(False, error=why or ("not graded: " + record.status if not record.metrics else None))
    iou, matched, error = (detail.get(f"evidence_{key}") for key in ("iou", "matched_frame", "error"))
    out = Evidence(True, frame, angle, bbox, metrics.evidence_correct, iou, matched, error)
    width = item.width if item else 3760
    x0 = view_span(angle, width).x0
    out.observed = next(
        (o.n for o in observations or [] if o.ok and o.frame == frame and view_span(o.angle, width).x0 == x0), None
    )
    if item is not None and scene is not None:
        out.target = item.track
        out.frames = (min(item.boxes), max(item.boxes))
        if 0 <= frame < scene.n_frames:
            person = scene.person(item.track)
            out.target_angle = person.angle_at(frame)
            view = pano_box_to_view(person_box(scene, person, frame), angle, scene.width, scene.height)
            out.truth_bbox = tuple(view_px_to_norm(view, scene.height, scene.height)) if view else None
    return out


def draw_box(image: Image.Image, norm, colour, label: str, text_colour=(0, 0, 0)) -> None:
    """A 0-1000 box drawn on the image, labelled in a tag of its colour."""
    x1, y1, x2, y2 = (v * size / 1000 for v, size in zip(norm, (image.width, image.height) * 2))
    x1, x2, y1, y2 = min(x1, x2), max(x1, x2), min(y1, y2), max(y1, y2)
    draw = ImageDraw.Draw(image)
    draw.rectangle((x1, y1, x2, y2), outline=colour, width=3)
    below = label == "truth"  # the truth's label under its box, the agent's above: both readable when they coincide
    ty = (y2 + 2 if y2 + 14 <= image.height else y1 - 14) if below else (y1 - 14 if y1 >= 14 else y2 + 2)
    draw.rectangle((x1, ty, x1 + 6 * len(label) + 4, ty + 12), fill=colour)
    draw.text((x1 + 2, ty), label, fill=text_colour)


def open_rgb(path: Path | None) -> Image.Image | None:
    """An image kept in the item's folder, or None when there is none or it is unreadable."""
    if path is None:
        return None
    try:
        with Image.open(path) as opened:
            return opened.convert("RGB")
    except (AttributeError, TypeError, OSError):
        return None


def evidence_view(
    evidence: Evidence, scene=None, base: Path | None = None, observations=None
) -> tuple[Image.Image | None, str]:
    """The view the evidence names, with the agent's box (orange) and the target's true box (green):
    rendered from the scene, or else the logged observation of that view (agent's box only)."""
    frame, angle, bbox = evidence.frame, evidence.angle, evidence.bbox
    if not evidence.given or frame is None or angle is None or bbox is None:
        return None, ""
    image: Image.Image | None = None
    if scene is not None and 0 <= frame < scene.n_frames:
        image, source = render_view(scene, frame, angle), "rendered from the scene"
    else:
        logged = next((o for o in observations or [] if o.n == evidence.observed and o.image), None)
        if logged is not None and base is not None:
            image, source = open_rgb(base / str(logged.image)), f"observation #{logged.n} as logged"
        if image is None:
            why = "its logged image is unreadable"
            if logged is None:
                why = "never observed and the dataset is not available"
            if scene is not None:
                why = "frame out of range"
            return None, f"the view at frame {evidence.frame}, {evidence.angle:g}° is not drawn: {why}"
    if evidence.truth_bbox:
        draw_box(image, evidence.truth_bbox, TRUTH_COLOUR, "truth")
    draw_box(image, bbox, AGENT_COLOUR, "agent")
    truth = "; green: the target's true box" if evidence.truth_bbox else ""
    if evidence.target and not evidence.truth_bbox:
        truth = f"; the target ({evidence.target}) is not in this view"
    return image, (
        f"the evidence view: frame {evidence.frame}, {evidence.angle:g}° ({source}); orange: the agent's box{truth}"
    )


def truth_view(item, scene, near: int | None) -> tuple[Image.Image, str]:
    """Where the evidence is: the listed target frame nearest `near`, view centred on the target."""
    frames = sorted(item.boxes)
    frame = min(frames, key=lambda f: abs(f - near)) if near is not None else frames[len(frames) // 2]
    box = item.boxes[frame]
    angle = round(x_to_angle((box[0] + box[2]) / 2, scene.width), 1)
    image = render_view(scene, frame, angle)
    view = pano_box_to_view(box, angle, scene.width, scene.height)
    if view:
        draw_box(image, view_px_to_norm(view, scene.height, scene.height), TRUTH_COLOUR, "truth")
    return (
        image,
        f"where the evidence is: target {item.track} at frame {frame}, "
        f"view centred on {angle:g}° (green: its true box)",
    )


def active_rollup(records) -> dict:
    """Answer, evidence, combined and hallucination per family and overall (harness errors count as wrong)."""
    rows = []
    for r in records:
        metrics = ActiveObsMetrics.of(r)
        rows.append(
            {**metrics.to_json(), "family": r.category, "status": r.status, "answer_correct": metrics.answer_right(r)}
        )
    return rollup_active(rows)
