"""The benchmark's shared scorer: a pure function from (response text, truth) to a grade.

It reproduces ActiveVision's official rules, in order:
1. keep the content of the last <answer>...</answer> block (tags case-insensitive, content may
   span lines), stripped; with no block, keep the whole text;
2. integer truth: the prediction is the last integer in what was kept; otherwise an
   `answer: X` / `final answer = X` line gives X, else the last non-empty line;
3. normalise both sides to upper-case A-Z0-9 and compare; "07" matches 7.
"""
from __future__ import annotations

import hashlib
import inspect
import re
from dataclasses import dataclass

_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
_INTEGER_TRUTH = re.compile(r"-?\d+")
_INTEGER_IN_TEXT = re.compile(r"-?\d+")
_ANSWER_LINE = re.compile(r"^\s*(?:final\s+)?answer\s*[:=]\s*(.*?)\s*$", re.IGNORECASE)
_NOT_ALNUM = re.compile(r"[^A-Z0-9]")


@dataclass(frozen=True)
class Grade:
    prediction: str
    correct: bool
    has_answer_tag: bool


def extract_answer(text: str) -> tuple[str, bool]:
    """The last answer block's content (stripped), or the whole text; and whether a tag was found."""
    blocks = _ANSWER_TAG.findall(text or "")
    if blocks:
        return blocks[-1].strip(), True
    return (text or ""), False


def _prediction(kept: str, truth: str) -> str:
    if _INTEGER_TRUTH.fullmatch(truth.strip()):
        integers = _INTEGER_IN_TEXT.findall(kept)
        return integers[-1] if integers else ""
    lines = kept.splitlines()
    for line in reversed(lines):
        match = _ANSWER_LINE.match(line)
        if match:
            return match.group(1)
    non_empty = [line.strip() for line in lines if line.strip()]
    return non_empty[-1] if non_empty else ""


def normalise(value: str) -> str:
    return _NOT_ALNUM.sub("", str(value).upper())


def _same_integer(a: str, b: str) -> bool:
    return a.isdigit() and b.isdigit() and int(a) == int(b)


def grade(response_text: str | None, truth: str) -> Grade:
    kept, has_tag = extract_answer(response_text or "")
    prediction = _prediction(kept, str(truth))
    pred_n, truth_n = normalise(prediction), normalise(str(truth))
    correct = bool(pred_n) and (pred_n == truth_n or _same_integer(pred_n, truth_n))
    return Grade(prediction=prediction.strip(), correct=correct, has_answer_tag=has_tag)


def scorer_hash() -> str:
    """Identifies the scoring rules, so runs graded differently are never compared silently."""
    parts = [inspect.getsource(f) for f in (extract_answer, _prediction, normalise, _same_integer, grade)]
    parts += [p.pattern for p in (_ANSWER_TAG, _INTEGER_TRUTH, _INTEGER_IN_TEXT, _ANSWER_LINE, _NOT_ALNUM)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
