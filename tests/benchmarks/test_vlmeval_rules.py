"""VLMEvalKit's extraction rules (MCQ letters, BabyVision's \\boxed{}) against an independent reading of
them (tests/support/vlmeval_oracle.py, string scanning), on generated replies and on cases whose
verdicts were taken from the reference code itself."""

import sys

import pytest

from agent_eval.benchmarks.babyvision.boxed import extract_boxed, judge_verdict
from agent_eval.benchmarks.vlmeval.matching import infer
from support import vlmeval_oracle as oracle
from support.vlmeval_replies import boxed_texts, replies

FOUR = {"A": "cat", "B": "dog", "C": "red", "D": "left"}


def test_generated_replies_agree_with_the_independent_reading():
    cases = replies(12_000, seed=11)
    outcomes = {"letter": 0, "Z": 0, None: 0}
    for reply, choices in cases:
        ours, theirs = infer(reply, dict(choices)), oracle.infer(reply, dict(choices))
        assert ours == theirs, (reply, choices)
        outcomes["Z" if ours == "Z" else ("letter" if ours else None)] += 1
    # the set exercises every outcome, not just one
    assert min(outcomes.values()) > 1000, outcomes


def test_generated_boxed_texts_agree_with_the_independent_reading():
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    found = 0
    for text in boxed_texts(12_000, seed=12):
        ours = extract_boxed(text)
        assert ours == oracle.boxed(text), text
        found += ours is not None
    assert 3000 < found < 11_000


# Verdicts of VLMEvalKit's own can_infer (matching_util.py) on these replies, options A-D = cat, dog, red, left.
@pytest.mark.parametrize(
    "reply,expected",
    [
        ("B", "B"),
        ("(C)", "C"),
        ("**B**", "B"),
        ("{B}", "B"),
        ("#B!", "B"),
        ("Answer: C", "C"),
        ("B B B", "B"),
        ("The answer is B.", "B"),
        ("A cat sits there.", "A"),  # a quantifier "A" is read as option A (VERBOSE off)
        ("A dog", "A"),
        ("A cat is on the left of the picture, so the answer is D", "D"),  # two letters: the verbose pattern decides
        ("I think it is B but maybe C", None),
        ("The correct answer is **B**. Here's why: the dog is near.", "B"),
        ("The answer is apple", "A"),  # the pattern's letter need not end a word
        ("answer is Definitely", "D"),
        ("ANSWER IS c", "C"),
        ("answer  is\n**d**", "D"),
        ("the answer is: B", "B"),
        ("The answer is E", None),  # only A-D, and only the item's options
        ("Sorry, I can't help with images of people yet.", "Z"),
        ("I can't process this file. B", "Z"),
        ("Cannot determine the answer", "Z"),
        ("cannot determine the answer", None),  # the refusal strings are case-sensitive
        ("Z", "Z"),
        ("None of them: Z", "Z"),
        ("Failed to obtain answer via API", None),
        ("dog", "B"),
        ("It is a dog.", "B"),  # by option text
        ("a red dog", None),  # two options' texts
        (
            "Option B is correct because the dog is on the left side of the image clearly",
            None,
        ),  # B too early, text too long
        ("x x x x x B", "B"),
        ("B x x x", "B"),
        ("B x x x x", None),  # within the last four tokens
        ("B.C", None),
        ("b", None),
        ("E", None),
    ],
)
def test_reference_verdicts(reply, expected):
    assert infer(reply, dict(FOUR)) == expected
    assert oracle.infer(reply, dict(FOUR)) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        (r"so \boxed{\frac{1}{2}}", r"\frac{1}{2}"),
        (r"\boxed{A} then \boxed{B}", "B"),  # the last one
        (r"\boxed{x{y{z{w}}}}", "x{y{z{w}}}"),  # a third level reads as {.*}
        (r"\boxed{a{b}c", None),  # unclosed
        ("\\boxed{a{b\n}}", "a{b\n}"),  # two levels may span lines
        ("\\boxed{a{b{c\n}}}", None),  # the third level stays on one line
        (r"\boxed{a{b{c}d}e} and {x}}", "a{b{c}d}e} and {x}"),  # the third level's {.*} is greedy
        ("<|begin_of_box|> C <|end_of_box|>", "C"),  # the alternative form, stripped
        (r"\boxed{B} <|begin_of_box|>C<|end_of_box|>", "B"),  # \boxed first
        ("no box", None),
        ("", None),
    ],
)
def test_boxed_cases(text, expected):
    assert extract_boxed(text) == expected
    assert oracle.boxed(text) == expected


@pytest.mark.parametrize(
    "reply,verdict",
    [
        ("True", True),
        (" false ", False),
        ("TRUE.", True),
        ("untrue", True),
        ("True or False", True),
        ("yes", False),
        ("", False),
    ],
)
def test_judge_verdict(reply, verdict):
    assert judge_verdict(reply) is verdict
    assert oracle.verdict(reply) is verdict
