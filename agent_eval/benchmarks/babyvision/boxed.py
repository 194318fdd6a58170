"""BabyVision's answer extraction and judge verdict (VLMEvalKit vlmeval/dataset/babyvision.py), rule for rule.

- The answer is the last `\\boxed{...}` found scanning left to right without overlap. Braces nest two
  levels as balanced pairs; a third level is `{` up to a later `}` on the same line (the reference
  pattern's greedy `{.*}`), so deeper nesting still reads, and stray braces can stretch a match.
- Without one, the last `<|begin_of_box|>...<|end_of_box|>` on one line, stripped; else None (which
  the judge prompt then shows as "None").
- The judge's reply is a verdict: "true" anywhere in it (lower-cased) is True, else False.
"""

from __future__ import annotations

import re

# The reference pattern, spelled out: body = (plain | {level2})*, level2 = (plain | {.*})*.
_PLAIN = r"[^{}]"
_LEVEL3 = r"\{.*\}"
_LEVEL2 = rf"\{{(?:{_PLAIN}|{_LEVEL3})*\}}"
BOXED = re.compile(rf"\\boxed\{{((?:{_PLAIN}|{_LEVEL2})*)\}}")
BOX_TOKENS = re.compile(r"<\|begin_of_box\|>(.*?)<\|end_of_box\|>")


def extract_boxed(text: str | None) -> str | None:
    if text is None:
        return None
    found = BOXED.findall(text)
    if found:
        return found[-1]
    boxes = BOX_TOKENS.findall(text)
    return boxes[-1].strip() if boxes else None


def judge_verdict(reply: str) -> bool:
    """parse_judge_response: "true" wins over "false"; neither is False."""
    return "true" in str(reply).strip().lower()
