"""Grading active-observation answers: the answer by its mode, the evidence by where it points (the answer
format and every rule in docs/kinds/activeobs.md, "Answers and grading"; defaults in `Rules`).

Every threshold is inclusive, compared with geometry.at_most / at_least: 258.6° - 238.6° computes as
20.00000000000003 and counts as 20. No parsable answer: status `no_answer`, both wrong, the raw text kept; a wrong
or missing evidence object leaves the answer graded and the evidence wrong.
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import json
import math
import re
from dataclasses import asdict, dataclass, field

from agent_eval.benchmarks.activeobs.geometry import (
    EPS,
    angle_error,
    at_least,
    at_most,
    circular_iou,
    interval_iou,
    view_box_to_pano,
)
from agent_eval.benchmarks.activeobs.schema import ActiveItem
from agent_eval.benchmarks.answers import extract_answer

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class Rules:
    evidence_iou: float = 0.5
    time_tolerance_s: float = 1.0
    angle_tolerance_deg: float = 20.0
    span_iou: float = 0.5
    numeric_ratio: tuple[float, float] = (0.5, 2.0)

    def tolerance_frames(self, fps: float) -> int:
        return int(round(self.time_tolerance_s * fps))


DEFAULT_RULES = Rules()


@dataclass(frozen=True)
class ActiveGrade:
    prediction: object  # the parsed "answer" value (None when there is none)
    answer_correct: bool = False
    evidence_correct: bool = False
    combined: bool = False  # both
    status: str = "no_answer"  # or ok
    has_answer_tag: bool = False
    raw: str = ""  # the answer tag's content (or the whole text without a tag)
    evidence: dict | None = None  # the evidence object as given
    detail: dict = field(default_factory=dict)  # why: parse error, best IoU, matched frame, ...


# This function's source is part of rules_hash(): reformatting it would change the hash.
# fmt: off
def parse_answer(text: str | None) -> tuple[dict | None, str, bool, str | None]:
    """(object or None, raw content, has_tag, error) from the response text."""
    raw, has_tag = extract_answer(text or "")
    if not has_tag:
        return None, raw, False, "no <answer> tag"
    content = raw.strip()
    fenced = _FENCE.match(content)
    if fenced:  # a JSON code fence inside the tag is tolerated
        content = fenced.group(1)
    try:
        value = json.loads(content)
    except json.JSONDecodeError as error:
        return None, raw, True, f"malformed JSON: {error.msg} at column {error.colno}"
    if not isinstance(value, dict) or "answer" not in value:
        return None, raw, True, "the JSON is not an object with an \"answer\" key"
    return value, raw, True, None
# fmt: on


def _number(value) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


as_number = _number  # the grader's reading of a number, public (the source, under its name, is in rules_hash)


def _pair(value) -> tuple[float, float] | None:
    if isinstance(value, dict):  # {"frame": F, "angle": A} or {"start": S, "end": E}
        keys = [("frame", "angle"), ("frame_index", "angle_deg"), ("start", "end")]
        value = next(([value[a], value[b]] for a, b in keys if a in value and b in value), None)
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    a, b = _number(value[0]), _number(value[1])
    return None if a is None or b is None else (a, b)


# This function's source is part of rules_hash(): reformatting it would change the hash.
# fmt: off
def answer_correct(mode: str, prediction, truth, fps: float, rules: Rules = DEFAULT_RULES) -> bool:
    tolerance = rules.tolerance_frames(fps)
    if mode == "choice":
        value = _number(prediction)
        return value is not None and value == int(truth)
    if mode == "frame":
        value = _number(prediction)
        return value is not None and at_most(abs(value - truth), tolerance)
    if mode == "span":
        pair = _pair(prediction)
        return pair is not None and at_least(interval_iou(pair, tuple(truth)), rules.span_iou)
    if mode == "frame_angle":
        pair = _pair(prediction)
        return (pair is not None and at_most(abs(pair[0] - truth[0]), tolerance)
                and at_most(angle_error(pair[1], truth[1]), rules.angle_tolerance_deg))
    if mode == "numeric":
        value = _number(prediction)
        low, high = rules.numeric_ratio
        return value is not None and at_least(value / float(truth), low) and at_most(value / float(truth), high)
    raise ValueError(f"unknown answer mode {mode!r}")
# fmt: on


# This function's source is part of rules_hash(): reformatting it would change the hash.
# fmt: off
def evidence_check(evidence, item: ActiveItem, rules: Rules = DEFAULT_RULES) -> tuple[bool, dict]:
    """Whether the evidence points at the target, and the details (best IoU, frame, why not)."""
    if not isinstance(evidence, dict):
        return False, {"evidence_error": "no evidence object"}
    frame, angle = _number(evidence.get("frame")), _number(evidence.get("angle"))
    bbox = evidence.get("bbox")
    if frame is None or angle is None:
        return False, {"evidence_error": "evidence needs numeric \"frame\" and \"angle\""}
    coords = [_number(v) for v in bbox] if isinstance(bbox, (list, tuple)) and len(bbox) == 4 else None
    if coords is None or None in coords:
        return False, {"evidence_error": "evidence \"bbox\" must be [x1, y1, x2, y2] numbers (0-1000)"}
    coords = [min(1000.0, max(0.0, v)) for v in coords]
    pano = view_box_to_pano(tuple(coords), angle, item.width, item.height, item.height)
    # The listed frames are the evidence window (where the answered fact holds): no tolerance
    # around them, or a frame where the target already does something else would count.
    target_frame = round(frame) if at_most(abs(frame - round(frame)), 0) else None
    detail = {"evidence_pano_box": [round(v, 1) for v in pano], "evidence_iou": 0.0,
              "evidence_matched_frame": None}
    if target_frame not in item.boxes:
        detail["evidence_error"] = (f"frame {frame:g} is outside the evidence window "
                                    f"(frames {frame_ranges(item.boxes)})")
        return False, detail
    iou = circular_iou(pano, item.boxes[target_frame], item.width)
    detail |= {"evidence_iou": round(iou, 3), "evidence_matched_frame": target_frame}
    if iou == 0:
        detail["evidence_error"] = f"the box misses the target at frame {target_frame}"
    return at_least(iou, rules.evidence_iou), detail
# fmt: on


def frame_ranges(frames) -> str:
    """Sorted frames as compact ranges: "10-24, 30"."""
    runs = [
        [f for _, f in run] for _, run in itertools.groupby(enumerate(sorted(frames)), lambda pair: pair[1] - pair[0])
    ]
    return ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 1 else f"{run[0]}" for run in runs)


def grade_active(response_text: str | None, item: ActiveItem, rules: Rules = DEFAULT_RULES) -> ActiveGrade:
    value, raw, has_tag, error = parse_answer(response_text)
    if value is None:
        return ActiveGrade(None, has_answer_tag=has_tag, raw=raw, detail={"parse_error": error})
    prediction = value["answer"]
    answer_ok = answer_correct(item.answer_mode, prediction, item.answer, item.fps, rules)
    evidence = value.get("evidence")
    evidence_ok, detail = evidence_check(evidence, item, rules)
    return ActiveGrade(
        prediction=prediction,
        answer_correct=answer_ok,
        evidence_correct=evidence_ok,
        combined=answer_ok and evidence_ok,
        status="ok",
        has_answer_tag=True,
        raw=raw,
        evidence=evidence if isinstance(evidence, dict) else None,
        detail=detail,
    )


def _field(record, name: str, default=None):
    return record.get(name, default) if isinstance(record, dict) else getattr(record, name, default)


def _summary(rows: list) -> dict:
    n = len(rows)
    answer = sum(bool(_field(r, "answer_correct")) for r in rows)
    evidence = sum(bool(_field(r, "evidence_correct")) for r in rows)
    combined = sum(bool(_field(r, "answer_correct")) and bool(_field(r, "evidence_correct")) for r in rows)
    counts = {"answer": answer, "evidence": evidence, "combined": combined}
    return {
        "n": n,
        **{f"{name}_correct": count for name, count in counts.items()},
        **{f"{name}_acc": count / n if n else None for name, count in counts.items()},
        # Right answers not backed by the evidence, as a share of right answers.
        "hallucination_rate": (answer - combined) / answer if answer else None,
        "no_answer": sum(_field(r, "status") == "no_answer" for r in rows),
        **seen_summary(rows),
    }


def _share(rows: list, name: str, wanted: bool) -> tuple[float | None, int]:
    known = [_field(r, name) for r in rows if _field(r, name) is not None]
    return (sum(v is wanted for v in known) / len(known) if known else None), len(known)


def seen_summary(rows: list) -> dict:
    """What the evidence rests on (seen.py): the share of evidence in a view never obtained (every run), the share
    written into the graph and the graph's mean size (world model on); None where no record says."""
    unseen, placed = _share(rows, "evidence_view_observed", False)
    in_graph, with_graph = _share(rows, "evidence_in_graph", True)
    sizes = [_field(r, "graph_size") for r in rows if _field(r, "graph_size") is not None]
    return {
        "unseen_evidence_rate": unseen,
        "evidence_placed": placed,
        "evidence_in_graph_rate": in_graph,
        "with_graph": with_graph,
        "graph_size_mean": sum(sizes) / len(sizes) if sizes else None,
    }


def rollup_active(records) -> dict:
    """Per family and overall. Records: dicts or objects with `family` (or `category`),
    `answer_correct`, `evidence_correct` and `status`."""
    records = list(records)
    families: dict[str, list] = {}
    for record in records:
        family = _field(record, "family") or _field(record, "category") or "unknown"
        families.setdefault(family, []).append(record)
    return {"families": {name: _summary(rows) for name, rows in sorted(families.items())}, "overall": _summary(records)}


def rules_hash(rules: Rules = DEFAULT_RULES) -> str:
    """Identifies the grading rules and options, so runs graded differently are never mixed."""
    parts = [
        inspect.getsource(f) for f in (parse_answer, _number, _pair, at_most, at_least, answer_correct, evidence_check)
    ]
    parts += [f"EPS={EPS!r}", json.dumps(asdict(rules), sort_keys=True), _FENCE.pattern]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
