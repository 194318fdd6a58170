"""Grading one BabyVision reply as VLMEvalKit's BabyVision._evaluate_single does: the last \\boxed{...} of the
reply is extracted and the judge, always asked, says whether it matches the truth. Without a judge
(or when its call fails) the item is ungraded, never wrong."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_eval.benchmarks.babyvision.boxed import extract_boxed, judge_verdict
from agent_eval.benchmarks.babyvision.prompting import JUDGE_MAX_TOKENS, judge_prompt
from agent_eval.datamodel.judge_contract import Judge


@dataclass
class BoxedGrade:
    extracted: str | None
    correct: bool
    judge_calls: list = field(default_factory=list)
    ungraded: str | None = None


def grade_reply(reply: str | None, question: str, truth: str, judge: Judge | None) -> BoxedGrade:
    extracted = extract_boxed("" if reply is None else str(reply))
    if judge is None:
        return BoxedGrade(
            extracted, False, ungraded="BabyVision is graded by a judge model; no --judge-model was given"
        )
    call = judge.ask(judge_prompt(question, truth, extracted), JUDGE_MAX_TOKENS)
    if call.reply is None:
        return BoxedGrade(extracted, False, [call], ungraded=f"the judge failed: {call.error}")
    return BoxedGrade(extracted, judge_verdict(call.reply), [call])
