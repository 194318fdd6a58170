"""The benchmark's shared scorer: a pure function from (response text, truth) to a grade.

It follows the reference scorer (ActiveVision's official `eval/lib/scoring.py`, as ported to
VLMEvalKit in PR #1646) rule for rule, so a verdict here is the verdict there:
1. strip the whole text; if it holds <answer>...</answer> blocks (tags case-insensitive,
   content may span lines), keep the last block's content, stripped; else keep the text;
2. the truth is an integer when `truth.strip().lstrip('-')` is all digits (str.isdigit); then
   the prediction is the last `-?\\d+` in what was kept (empty when there is none);
3. otherwise the FIRST match anywhere in the kept text of the case-insensitive, multi-line
   pattern `(?:final answer|answer)\\s*[:=]\\s*(.+?)\\s*$` gives the prediction, stripped. The
   marker need not start a line and the `\\s*` after the colon may cross a line break, so
   `Answer:\\nH` predicts `H` and `**Answer:** H` predicts `** H`;
4. otherwise the last non-empty line (str.splitlines), stripped; else empty;
5. both sides are normalised to upper-case A-Z0-9; correct when the normalised prediction is
   non-empty and equal to the truth's, or both read as the same integer ("07" matches 7).
"""

from __future__ import annotations

import hashlib
import inspect
import re
from dataclasses import dataclass

from agent_eval.benchmarks.answers import ANSWER_TAG, extract_answer

_INTEGER = re.compile(r"-?\d+")
_ANSWER_MARKER = re.compile(r"(?:final answer|answer)\s*[:=]\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_NOT_ALNUM = re.compile(r"[^A-Z0-9]")


@dataclass(frozen=True)
class Grade:
    prediction: str
    correct: bool
    has_answer_tag: bool


def is_integer_truth(truth: str) -> bool:
    return truth.strip().lstrip("-").isdigit()


def _prediction(kept: str, truth: str) -> str:
    if is_integer_truth(truth):
        integers = _INTEGER.findall(kept)
        return integers[-1] if integers else ""
    marker = _ANSWER_MARKER.search(kept)
    if marker:
        return marker.group(1).strip()
    for line in reversed(kept.splitlines()):
        if line.strip():
            return line.strip()
    return ""


def normalise(value: str) -> str:
    return _NOT_ALNUM.sub("", str(value).upper())


def _same_integer(a: str, b: str) -> bool:
    # Normalised values hold only A-Z0-9, so int() accepts exactly the all-digit ones.
    try:
        return int(a) == int(b)
    except ValueError:
        return False


def grade(response_text: str | None, truth: str) -> Grade:
    kept, has_tag = extract_answer(response_text)
    prediction = _prediction(kept, str(truth))
    pred_n, truth_n = normalise(prediction), normalise(str(truth))
    correct = bool(pred_n) and (pred_n == truth_n or _same_integer(pred_n, truth_n))
    return Grade(prediction=prediction, correct=correct, has_answer_tag=has_tag)


def scorer_hash() -> str:
    """Identifies the scoring rules, so runs graded differently are never compared silently."""
    functions = (extract_answer, is_integer_truth, _prediction, normalise, _same_integer, grade)
    parts = [inspect.getsource(f) for f in functions]
    parts += [p.pattern for p in (ANSWER_TAG, _INTEGER, _ANSWER_MARKER, _NOT_ALNUM)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
