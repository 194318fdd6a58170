"""The <answer> tag every benchmark kind asks for, and how a reply's answer is found.

Shared by the kinds' graders and by `agent-eval parse`. The function's source is part of the kinds'
scorer hashes: changing it changes them (on purpose)."""

from __future__ import annotations

import re

_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
ANSWER_TAG = _ANSWER_TAG  # public name for the scorer hash; the function keeps the name its hashed source uses


def extract_answer(text: str | None) -> tuple[str, bool]:
    """What the scorer reads: the last answer block's content (stripped), or the whole stripped
    text; and whether a tag was found."""
    text = (text or "").strip()
    blocks = _ANSWER_TAG.findall(text)
    if blocks:
        return blocks[-1].strip(), True
    return text, False
