"""Generated replies for the extraction agreement tests: option letters in many positions and dresses,
a quantifier "A", refusals, API failures, "the answer is X", option texts, odd whitespace and case, and
BabyVision-style \\boxed{...} with nested and stray braces. Deterministic for a seed."""

from __future__ import annotations

import random

OPTION_POOL = [
    "cat",
    "dog",
    "a cat",
    "red",
    "dark red",
    "2",
    "12",
    "1.5",
    "left",
    "right",
    "top left",
    "none of them",
    "The man is sitting",
    "apple",
    "Apple pie",
    "yes",
    "no",
    "B",
    "answer",
    "is",
    "3 cm",
    "紅色",
    "Z",
]
LETTER_DRESS = [
    "{}",
    "({})",
    "{}.",
    "**{}**",
    "[{}]",
    "{}:",
    "{})",
    "#{}",
    "{{{}}}",
    "{},",
    "{};",
    "{}!",
    "'{}'",
    '"{}"',
    "{}-",
    "<{}>",
    "{}/",
    "`{}`",
]
FILLER = [
    "I think",
    "the image shows",
    "so",
    "therefore",
    "looking closely",
    "A",
    "a",
    "it is",
    "not",
    "option",
    "Option",
    "answer",
    "is",
    "The",
    "correct",
    "maybe",
    "either",
    "or",
    "and",
    "Z",
    "z",
    "b",
    "c",
    "AB",
    "B.C",
    "I",
    "cannot",
    "tell",
    "\n",
    "...",
    "**",
    "—",
    "×",
    "with",
    "答案",
    "选项",
]
SPACES = [" ", "  ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "\x1c", "\r\n"]
REFUSALS = [
    "Sorry, I can't help with images of people yet.",
    "I can't process this file.",
    "I'm sorry, but without the image provided",
    "Cannot determine the answer",
    "Failed to obtain answer via API",
    "cannot determine the answer",  # case matters: not a refusal
]
VERBOSE = [
    "The correct answer is **{}**",
    "The answer is {}.",
    "answer is {}",
    "ANSWER IS {}",
    "Answer  is\n**{}**",
    "correct answer is {}",
    "the answer is: {}",
    "answer ıs {}",
    "anſwer is {}",
    "the answer is{}",
    "The answer is {}pple",
    "answer is *{}*",
]


def _choices(rng: random.Random) -> dict[str, str]:
    n = rng.randint(2, 6)
    texts = rng.sample(OPTION_POOL, n)
    return {chr(65 + i): t for i, t in enumerate(texts)}


def _letter(rng, choices):
    pool = list(choices) + ["Z", "E", "F", "G", "a", "b", "z"]
    return rng.choice(pool)


def _sentence(rng, choices, words):
    parts = []
    for _ in range(words):
        r = rng.random()
        if r < 0.15:
            parts.append(rng.choice(LETTER_DRESS).format(_letter(rng, choices)))
        elif r < 0.25:
            parts.append(rng.choice(list(choices.values())))
        else:
            parts.append(rng.choice(FILLER))
    out = ""
    for p in parts:
        out += p + rng.choice(SPACES)
    return out.strip() if rng.random() < 0.7 else out


def reply(rng: random.Random, choices: dict[str, str]) -> str:
    kind = rng.randrange(12)
    letter = _letter(rng, choices)
    if kind == 0:
        return rng.choice(LETTER_DRESS).format(letter)
    if kind == 1:  # letter at some position in a sentence
        words = [rng.choice(FILLER) for _ in range(rng.randint(0, 9))]
        words.insert(rng.randint(0, len(words)), rng.choice(LETTER_DRESS).format(letter))
        return rng.choice(SPACES).join(words)
    if kind == 2:  # a quantifier "A" and a letter
        return f"A {rng.choice(['cat', 'dog', 'man'])} is {rng.choice(['left', 'here'])}, so {letter}"[
            : rng.randint(5, 40)
        ]
    if kind == 3:
        return (
            _sentence(rng, choices, rng.randint(1, 6)) + " " + rng.choice(REFUSALS) + " " + _sentence(rng, choices, 2)
        )
    if kind == 4:
        return (
            _sentence(rng, choices, rng.randint(0, 12))
            + " "
            + rng.choice(VERBOSE).format(letter)
            + rng.choice(
                ["", ". Here's why: the " + rng.choice(list(choices.values())), " " + _sentence(rng, choices, 8)]
            )
        )
    if kind == 5:  # option text, maybe dressed
        text = rng.choice(list(choices.values()))
        dress = rng.choice(["{}", "It is {}.", "{}!", "I see {} and {}", "{}" * 2, "THE {}", "Probably {} here"])
        return dress.format(text.upper() if rng.random() < 0.2 else text, rng.choice(list(choices.values())))
    if kind == 6:  # long reply: the length rule
        return _sentence(rng, choices, rng.randint(8, 40))
    if kind == 7:
        return "Z" if rng.random() < 0.5 else rng.choice(["z", "Z.", "(Z)", "Z Z", "Z and " + letter])
    if kind == 8:
        return "".join(rng.choice("AB CDZ.,()*#{}[]:;!\n\tabcxyz") for _ in range(rng.randint(0, 25)))
    if kind == 9:
        return ""
    if kind == 10:
        return boxed_text(rng)
    return _sentence(rng, choices, rng.randint(1, 8))


def replies(n: int, seed: int = 0) -> list[tuple[str, dict[str, str]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        choices = _choices(rng)
        out.append((reply(rng, choices), choices))
    return out


BOX_PARTS = [
    "\\boxed{",
    "{",
    "}",
    "}",
    "x",
    "1",
    " ",
    "\n",
    "\\frac{1}{2}",
    "\\boxed{A}",
    "(B)",
    "<|begin_of_box|>",
    "<|end_of_box|>",
    "\\boxed",
    "C",
    "{{",
    "}}",
    "\\text{cat}",
    "\\boxed{\\frac{a}{b}}",
]


def boxed_text(rng: random.Random) -> str:
    return "".join(rng.choice(BOX_PARTS) for _ in range(rng.randint(0, 18)))


def boxed_texts(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [boxed_text(rng) for _ in range(n)]
