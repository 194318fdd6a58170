"""The decision's inputs: VISTA's play (exactly five non-empty segments of its inputs, normalised as it does) and
the official harness's reply (<keys> and <scratchpad>, read by its parsing rules), and the page steps a segment
becomes (a tap held one frame, a hold the whole 0.2 s, the canvas captured at the segment's end)."""

import pytest

from agent_eval.benchmarks.aigamestore.protocol import (
    BadSegments,
    checked_segments,
    normalised,
    reply_scratchpad,
    reply_segments,
    segment_steps,
)
from agent_eval.browser.steps import FRAME_MS

NOOP5 = (("NOOP",),) * 5


@pytest.mark.parametrize(
    "segment, expected",
    [
        (["NOOP", "UP"], ("UP",)),  # NOOP beside others is dropped
        (["LEFT", "HOLD_LEFT"], ("HOLD_LEFT",)),  # tapped and held: held
        (["SPACE", "SPACE", "Z"], ("SPACE", "Z")),  # repeats once
        (["NOOP", "NOOP"], ("NOOP",)),
    ],
)
def test_a_segment_is_normalised_as_vista_does(segment, expected):
    assert normalised(segment) == expected


@pytest.mark.parametrize(
    "segments, says",
    [
        ([["UP"]] * 4, "exactly 5 segments"),
        ("UP", "exactly 5 segments"),
        ([["UP"], [], ["UP"], ["UP"], ["UP"]], "segment 2 must be a non-empty list"),
        ([["UP"], ["UP"], ["ENTER"], ["UP"], ["UP"]], "segment 3: unknown input 'ENTER'"),
        ([["UP"], ["UP"], ["UP"], ["R"], ["UP"]], "unknown input 'R'"),  # the host's key, not the model's
    ],
)
def test_bad_segments_are_refused_saying_why(segments, says):
    with pytest.raises(BadSegments, match=says):
        checked_segments(segments)


def test_the_official_reply_is_read_by_the_harness_rules():
    text = '<rationale>r</rationale><keys>[["UP"], ["HOLD_LEFT", "SPACE"], ["NOOP"], ["hold_right"], ["DOWN"]]</keys>'
    segments, problem = reply_segments(text)
    assert segments == (("UP",), ("HOLD_LEFT", "SPACE"), ("NOOP",), ("HOLD_RIGHT",), ("DOWN",)) and problem is None


@pytest.mark.parametrize(
    "text, expected, problem",
    [
        ("no tags at all", NOOP5, "no <keys>"),
        ("<keys>not json</keys>", NOOP5, "not a JSON list"),
        ("<keys>[['UP'], ['DOWN']]</keys>", (("UP",), ("DOWN",)) + (("NOOP",),) * 3, "2 segments given"),  # quotes
        ('<keys>[["UP"],["UP"],["UP"],["UP"],["UP"],["DOWN"]]</keys>', (("UP",),) * 5, "6 segments given"),
        (
            '<keys>[["UP", "ENTER"], [null], "LEFT", ["R"], ["A"]]</keys>',
            (("UP",), ("NOOP",), ("LEFT",), ("NOOP",), ("A",)),
            "unknown input",
        ),
    ],
)
def test_an_imperfect_reply_is_read_as_the_harness_reads_it(text, expected, problem):
    segments, said = reply_segments(text)
    assert segments == expected and problem in said


def test_the_scratchpad_carried_forward():
    assert reply_scratchpad("<scratchpad> plan B </scratchpad>", "plan A") == "plan B"
    assert reply_scratchpad("no pad", "plan A") == "plan A"  # kept
    assert reply_scratchpad("no pad", None) == "no pad"  # the whole reply, the first time


def test_a_segment_on_the_page():
    steps = segment_steps(("UP", "HOLD_LEFT"), "canvas")
    assert steps == [
        {"op": "key_down", "key": "ArrowLeft"},
        {"op": "key_down", "key": "ArrowUp"},
        {"op": "advance", "ms": FRAME_MS},  # the tap is held one frame
        {"op": "key_up", "key": "ArrowUp"},
        {"op": "advance", "ms": 200 - FRAME_MS, "canvas": "canvas"},  # the segment's frame, at its end
        {"op": "key_up", "key": "ArrowLeft"},
    ]
    assert sum(s["ms"] for s in steps if s["op"] == "advance") == pytest.approx(200)
    assert segment_steps(("NOOP",), "c") == [{"op": "advance", "ms": 200, "canvas": "c"}]
