"""Grading one MCQ reply as VLMEvalKit's mcq_vanilla_eval does (multiple_choice.extract_answer_from_item).

The whole reply is read by the rules (matching.infer). Only when they decide nothing is the judge
asked, with the reference's prompt, up to three times until the rules read an option in its reply.
Where the reference then draws a random option, and where no judge was named, the item is ungraded:
never counted wrong. "Z" (a refusal, or the judge finding no option) is a decided, wrong answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_eval.benchmarks.vlmeval.matching import infer
from agent_eval.benchmarks.vlmeval.prompting import judge_prompt
from agent_eval.datamodel.judge_contract import Judge

JUDGE_TRIES = 3  # the reference's `retry = 3`
JUDGE_MAX_TOKENS = 2048  # the reference's OpenAIWrapper default


@dataclass
class McqGrade:
    option: str | None  # the option read (a letter, or "Z"); None: undecided
    decided_by: str | None  # "rules" | "judge" | None
    correct: bool
    judge_calls: list = field(default_factory=list)
    ungraded: str | None = None  # why the item has no verdict


def grade_reply(reply: str | None, question: str, options: dict, answer: str, judge: Judge | None) -> McqGrade:
    reply = "" if reply is None else str(reply)
    option = infer(reply, dict(options))
    if option is not None:
        return McqGrade(option, "rules", option == answer)
    if judge is None:
        return McqGrade(None, None, False, ungraded="the rules read no option and no --judge-model was given")
    prompt = judge_prompt(question, options, reply)
    calls = []
    for attempt in range(JUDGE_TRIES):
        call = judge.ask(prompt, JUDGE_MAX_TOKENS, attempt)
        calls.append(call)
        option = infer(call.reply, dict(options)) if call.reply is not None else None
        if option is not None:
            return McqGrade(option, "judge", option == answer, calls)
    failed = (
        "the judge failed" if all(c.reply is None for c in calls) else "the rules read no option in the judge's replies"
    )
    return McqGrade(None, None, False, calls, ungraded=f"{failed} ({JUDGE_TRIES} tries)")
