"""VLMEvalKit's rule-based option extraction (vlmeval/utils/matching_util.py: can_infer), rule for rule.

`choices` maps option letters to option texts in column order (A, B, ...). A result is an option
letter, "Z" (the reply refuses, or names Z), or None when the rules cannot decide, where the
reference then asks a judge model. Rules, in order:

can_infer_option:
1. a reply holding "Failed to obtain answer via API" decides nothing by letter;
2. a reply holding one of the refusal strings is "Z";
3. each of `.()[],:;!*#{}` becomes a space, the result is split on whitespace; when exactly one of
   the option letters is among the tokens, it is the answer if its first occurrence is within the
   last four tokens (index > len - 5); when none is and a token is "Z", "Z";
4. else the first case-insensitive `(correct )?answer is **X**` with X in A-D (any case), upper-cased,
   when it is one of the options (the letter need not end a word: "answer is apple" reads A).
can_infer_text (only when can_infer_option gave nothing): the reply lower-cased, when it is not
longer than twice the options' total length, names exactly one option whose lower-cased text it
contains.

VLMEvalKit's VERBOSE switch (a quantifier "A" blocks the match) is off by default and not followed.
"""

from __future__ import annotations

import re

API_FAILURE = "Failed to obtain answer via API"
REFUSALS = (
    "Sorry, I can't help with images of people yet.",
    "I can't process this file.",
    "I'm sorry, but without the image provided",
    "Cannot determine the answer",
)
_PUNCTUATION = ".()[],:;!*#{}"
_SPACES = str.maketrans({c: " " for c in _PUNCTUATION})
VERBOSE_ANSWER = re.compile(r"(?:correct\s+)?answer\s+is\s+\**([ABCD])\**", re.IGNORECASE)


def infer_option(reply: str, choices: dict[str, str]) -> str | None:
    if API_FAILURE in reply:
        return None
    if any(refusal in reply for refusal in REFUSALS):
        return "Z"
    tokens = reply.translate(_SPACES).split()
    named = [letter for letter in choices if letter in tokens]
    if len(named) == 1:
        if tokens.index(named[0]) > len(tokens) - 5:
            return named[0]
    elif not named and "Z" in tokens:
        return "Z"
    verbose = VERBOSE_ANSWER.search(reply)
    if verbose and verbose.group(1).upper() in choices:
        return verbose.group(1).upper()
    return None


def infer_text(reply: str, choices: dict[str, str]) -> str | None:
    lowered = reply.lower()
    if len(lowered) > 2 * sum(len(str(text)) for text in choices.values()):
        return None
    named = [letter for letter, text in choices.items() if str(text).lower() in lowered]
    return named[0] if len(named) == 1 else None


def infer(reply: str, choices: dict[str, str]) -> str | None:
    """can_infer: by letter, else by option text; None when neither decides."""
    reply = str(reply)
    return infer_option(reply, choices) or infer_text(reply, choices)
