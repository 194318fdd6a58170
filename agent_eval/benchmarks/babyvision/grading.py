"""Grading one BabyVision reply both ways, each labelled: VLMEvalKit's (BabyVision._evaluate_single: the last
\\boxed{...} of the reply extracted, the judge always asked whether it matches the truth) and VISTA's (the same
extraction, a normalized exact match: vista_match.py). `--grade` says which is the item's `correct`. Without a
judge (or when its call fails) the judge's grade is missing, and an item graded by the judge is ungraded, never
wrong; VISTA's grade needs no judge."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_eval.benchmarks.babyvision.boxed import extract_boxed, judge_verdict
from agent_eval.benchmarks.babyvision.prompting import JUDGE_MAX_TOKENS, judge_prompt
from agent_eval.benchmarks.babyvision.vista_match import exact_match
from agent_eval.datamodel.judge_contract import Judge

GRADE_LABELS = (("exact_match", "VISTA exact match"), ("judge_verdict", "judge (VLMEvalKit)"))  # each as recorded


@dataclass
class BoxedGrade:
    extracted: str | None
    correct: bool
    exact_match: bool  # VISTA's grade
    judge_verdict: bool | None  # the judge's grade (None: not judged)
    judge_calls: list = field(default_factory=list)
    ungraded: str | None = None


def grade_reply(
    reply: str | None, question: str, truth: str, ans_type: str, judge: Judge | None, grade: str
) -> BoxedGrade:
    extracted = extract_boxed("" if reply is None else str(reply))
    exact = exact_match(extracted, truth, ans_type)
    calls, verdict, failed = [], None, None
    if judge is None:
        failed = "BabyVision is graded by a judge model; no --judge-model was given"
    else:
        call = judge.ask(judge_prompt(question, truth, extracted), JUDGE_MAX_TOKENS)
        calls = [call]
        if call.reply is None:
            failed = f"the judge failed: {call.error}"
        else:
            verdict = judge_verdict(call.reply)
    if grade == "vista":
        return BoxedGrade(extracted, exact, exact, verdict, calls)
    return BoxedGrade(extracted, bool(verdict), exact, verdict, calls, ungraded=failed)
