"""A second reading of VLMEvalKit's extraction rules, by plain string scanning (no regex), for the tests
to hold the kind's implementation against. Written from the reference's behaviour, not from the
kind's code."""

from __future__ import annotations

REFUSE = [
    "Sorry, I can't help with images of people yet.",
    "I can't process this file.",
    "I'm sorry, but without the image provided",
    "Cannot determine the answer",
]
BLANKED = set(".()[],:;!*#{}")


def _words(text: str) -> list[str]:
    words, current = [], []
    for ch in text:
        if ch in BLANKED or ch.isspace():
            if current:
                words.append("".join(current))
                current = []
        else:
            current.append(ch)
    if current:
        words.append("".join(current))
    return words


# Python's case-insensitive matching also takes the dotted/dotless i and the long s (measured).
SAME_LETTER = {"i": "iIİı", "s": "sSſ"}


def _lower_ascii_eq(text: str, at: int, word: str) -> bool:
    piece = text[at : at + len(word)]
    return len(piece) == len(word) and all(a in SAME_LETTER.get(b, b + b.upper()) for a, b in zip(piece, word))


def _answer_is_letter(text: str) -> str:
    """The letter of the first "answer<ws>is<ws>*..*X" with X in a-d/A-D, or ''."""
    n = len(text)
    for start in range(n):
        if not _lower_ascii_eq(text, start, "answer"):
            continue
        i = start + 6
        j = i
        while j < n and text[j].isspace():
            j += 1
        if j == i or not _lower_ascii_eq(text, j, "is"):
            continue
        i = j + 2
        j = i
        while j < n and text[j].isspace():
            j += 1
        if j == i:
            continue
        while j < n and text[j] == "*":
            j += 1
        if j < n and text[j] in "ABCDabcd":
            return text[j].upper()
    return ""


def by_letter(reply: str, letters: list[str]):
    if "Failed to obtain answer via API" in reply:
        return False
    for refusal in REFUSE:
        if refusal in reply:
            return "Z"
    words = _words(reply)
    present = [x for x in letters if x in words]
    if len(present) == 1:
        first = words.index(present[0])
        if len(words) - first <= 4:
            return present[0]
    elif len(present) == 0 and "Z" in words:
        return "Z"
    letter = _answer_is_letter(reply)
    if letter and letter in letters:
        return letter
    return False


def by_text(reply: str, options: dict) -> object:
    low = reply.lower()
    total = 0
    for value in options.values():
        total += len(str(value))
    if len(low) > total * 2:
        return False
    hits = [k for k, v in options.items() if str(v).lower() in low]
    return hits[0] if len(hits) == 1 else False


def infer(reply: str, options: dict):
    got = by_letter(reply, list(options))
    if got:
        return got
    got = by_text(reply, options)
    return got if got else None


# --- BabyVision's \boxed{...}: a hand-written backtracking reading of the reference's grammar ---


def _level3_ends(s, i):
    # "{" then any run of non-newline characters (longest first) then "}".
    if i < len(s) and s[i] == "{":
        stop = s.find("\n", i + 1)
        stop = len(s) if stop < 0 else stop
        for k in range(stop - 1, i, -1):
            if s[k] == "}":
                yield k + 1


def _level2_inner_ends(s, i):
    # (plain | level3)* with the longest tried first.
    if i < len(s) and s[i] not in "{}":
        yield from _level2_inner_ends(s, i + 1)
    elif i < len(s) and s[i] == "{":
        for j in _level3_ends(s, i):
            yield from _level2_inner_ends(s, j)
    yield i


def _body_ends(s, i):
    if i < len(s) and s[i] not in "{}":
        yield from _body_ends(s, i + 1)
    elif i < len(s) and s[i] == "{":
        for j in _level2_inner_ends(s, i + 1):
            if j < len(s) and s[j] == "}":
                yield from _body_ends(s, j + 1)
    yield i


def boxed_all(s: str) -> list[str]:
    found, pos = [], 0
    head = "\\boxed{"
    while True:
        at = s.find(head, pos)
        if at < 0:
            return found
        begin = at + len(head)
        end = next((j for j in _body_ends(s, begin) if j < len(s) and s[j] == "}"), None)
        if end is None:
            pos = at + 1
        else:
            found.append(s[begin:end])
            pos = end + 1


def box_tokens_last(s: str):
    open_, close = "<|begin_of_box|>", "<|end_of_box|>"
    last, pos = None, 0
    while True:
        at = s.find(open_, pos)
        if at < 0:
            return last
        start = at + len(open_)
        end = s.find(close, start)
        if end >= 0 and "\n" not in s[start:end]:
            last = s[start:end]
            pos = end + len(close)
        else:
            pos = at + 1


def boxed(s):
    if s is None:
        return None
    found = boxed_all(s)
    if found:
        return found[-1]
    last = box_tokens_last(s)
    return last.strip() if last is not None else None


def verdict(reply: str) -> bool:
    low = reply.strip().lower()
    return "true" in low
