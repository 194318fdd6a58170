"""The item schema of active-observation datasets: one JSON object per line of `items.jsonl` (fields and rules in
docs/kinds/activeobs.md). The evidence boxes listed are the evidence window: evidence counts at those frames only
(no time tolerance around them), so an item lists every frame, and only those, where the answered fact holds."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from agent_eval.benchmarks.activeobs.geometry import PANO_HEIGHT, PANO_WIDTH

ANSWER_MODES = ("choice", "frame", "span", "frame_angle", "numeric")
TASK = "activeobs"


class SchemaError(ValueError):
    """One field of one item is wrong; the message names it and what is expected."""


@dataclass(frozen=True, eq=False)
class ActiveItem:
    id: str
    sequence: str
    family: str
    question: str
    answer_mode: str
    answer: object
    track: str
    boxes: dict[int, tuple[float, float, float, float]]
    fps: float
    n_frames: int
    choices: tuple[str, ...] | None = None
    width: int = PANO_WIDTH
    height: int = PANO_HEIGHT
    meta: dict = field(default_factory=dict)

    # Duck-typed like activevision.loader.ActiveVisionItem where the runner and `select` read items.
    @property
    def task(self) -> str:
        return TASK

    @property
    def category(self) -> str:
        return self.family

    def truth_text(self) -> str:
        """The answer as one line, for records and reports."""
        if self.answer_mode == "choice" and self.choices:
            return f"{self.answer} ({self.choices[int(str(self.answer)) - 1]})"
        return str(self.answer)

    def public(self) -> dict:
        """What may be shown to the agent: never the answer or the evidence track."""
        shown = {key: getattr(self, key) for key in ("id", "family", "question", "answer_mode", "fps", "n_frames")}
        return shown | ({"choices": list(self.choices)} if self.choices else {})


def _number(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SchemaError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def _integer(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SchemaError(f"{name} must be an integer, got {value!r}")
    return value


def _frame(value, name: str, n_frames: int) -> int:
    frame = _integer(value, name)
    if not 0 <= frame < n_frames:
        raise SchemaError(f"{name} {frame} is outside 0..{n_frames - 1}")
    return frame


def _check_answer(mode: str, answer, n_frames: int, choices) -> object:
    if mode == "choice":
        index = _integer(answer, "answer")
        if not 1 <= index <= len(choices):
            raise SchemaError(f"answer {index} is not a 1-based index into the {len(choices)} choices")
        return index
    if mode == "frame":
        return _frame(_integer(answer, "answer"), "answer frame", n_frames)
    if mode in ("span", "frame_angle") and (not isinstance(answer, list) or len(answer) != 2):
        form = "[first_frame, last_frame]" if mode == "span" else "[frame_index, angle_deg]"
        raise SchemaError(f"answer must be {form}, got {answer!r}")
    if mode == "span":
        start, end = (_integer(v, "answer frame") for v in answer)
        if not 0 <= start <= end < n_frames:
            raise SchemaError(f"answer span {answer} must satisfy 0 <= first <= last <= {n_frames - 1}")
        return [start, end]
    if mode == "frame_angle":
        frame, angle = _integer(answer[0], "answer frame"), _number(answer[1], "answer angle")
        return [_frame(frame, "answer frame", n_frames), angle]
    value = _number(answer, "answer")
    if value <= 0:
        raise SchemaError(f"a numeric answer must be positive (graded by ratio), got {value}")
    return value


def item_from_row(row: dict) -> ActiveItem:
    """Check one decoded row and build the item; SchemaError says what is wrong."""
    if not isinstance(row, dict):
        raise SchemaError(f"expected a JSON object, got {type(row).__name__}")
    required = ("id", "sequence", "family", "question", "answer_mode", "answer", "evidence", "fps", "n_frames")
    missing = [name for name in required if name not in row]
    if missing:
        raise SchemaError(f"missing field(s) {', '.join(missing)}")
    for name in ("id", "sequence", "family", "question"):
        if not isinstance(row[name], str) or not row[name].strip():
            raise SchemaError(f"{name} must be a non-empty string")
    mode = row["answer_mode"]
    if mode not in ANSWER_MODES:
        raise SchemaError(f"answer_mode {mode!r} is not one of {', '.join(ANSWER_MODES)}")
    fps = _number(row["fps"], "fps")
    n_frames = _integer(row["n_frames"], "n_frames")
    if fps <= 0 or n_frames < 1:
        raise SchemaError("fps must be positive and n_frames at least 1")
    choices = row.get("choices")
    if mode == "choice":
        if not isinstance(choices, list) or len(choices) < 2 or not all(isinstance(c, str) for c in choices):
            raise SchemaError('answer_mode choice needs "choices": a list of at least two strings')
    elif choices is not None:
        raise SchemaError(f'"choices" is only for answer_mode choice (this item is {mode})')
    answer = _check_answer(mode, row["answer"], n_frames, choices)
    panorama = row.get("panorama") or {}
    width = _integer(panorama.get("width", PANO_WIDTH), "panorama.width")
    height = _integer(panorama.get("height", PANO_HEIGHT), "panorama.height")
    evidence = row["evidence"]
    if (
        not isinstance(evidence, dict)
        or not isinstance(evidence.get("track"), str)
        or not isinstance(evidence.get("boxes"), list)
        or not evidence["boxes"]
    ):
        raise SchemaError(
            'evidence must be {"track": "<person id>", "boxes": [[frame, x1, y1, x2, y2], ...]} with at least one box'
        )
    boxes: dict[int, tuple[float, float, float, float]] = {}
    for entry in evidence["boxes"]:
        if not isinstance(entry, list) or len(entry) != 5:
            raise SchemaError(f"evidence box {entry!r} must be [frame, x1, y1, x2, y2]")
        frame = _integer(entry[0], "evidence frame")
        x1, y1, x2, y2 = (_number(v, "evidence box coordinate") for v in entry[1:])
        _frame(frame, "evidence frame", n_frames)
        if not (0 <= x1 < width and x1 < x2 <= x1 + width / 2 and 0 <= y1 < y2 <= height):
            raise SchemaError(
                f"evidence box {entry[1:]} at frame {frame} is not a canonical panorama box "
                f"(0 <= x1 < {width}, x1 < x2 <= x1 + {width // 2}, 0 <= y1 < y2 <= {height})"
            )
        boxes[frame] = (x1, y1, x2, y2)
    meta = row.get("meta") or {}
    return ActiveItem(
        **{name: row[name] for name in ("id", "sequence", "family", "question")},
        answer_mode=mode,
        answer=answer,
        track=evidence["track"],
        boxes=boxes,
        fps=fps,
        n_frames=n_frames,
        choices=tuple(choices) if choices else None,
        width=width,
        height=height,
        meta=meta if isinstance(meta, dict) else {"note": meta},
    )


def item_to_row(item: ActiveItem) -> dict:
    row: dict[str, Any] = {"id": item.id, "sequence": item.sequence, "family": item.family, "question": item.question}
    if item.choices:
        row["choices"] = list(item.choices)
    row |= {
        "answer_mode": item.answer_mode,
        "answer": item.answer,
        "evidence": {
            "track": item.track,
            "boxes": [[f, *_rounded(box, item.width)] for f, box in sorted(item.boxes.items())],
        },
        "fps": item.fps,
        "n_frames": item.n_frames,
        "panorama": {"width": item.width, "height": item.height},
    }
    if item.meta:
        row["meta"] = item.meta
    return row


def _rounded(box: tuple[float, float, float, float], width: int) -> list[float]:
    x1, y1, x2, y2 = (round(v, 1) for v in box)
    if x1 >= width:  # rounding may push a box at the seam's edge past it
        x1, x2 = x1 - width, x2 - width
    return [x1, y1, x2, y2]
