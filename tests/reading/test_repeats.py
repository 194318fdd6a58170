"""What --repeats says: flip rates, majority/all-K/any-K accuracy, the cross-run disagreement and its
sentences, all counted by hand from a few items with differing numbers of repeats."""

import pytest

from agent_eval.datamodel.records import ItemRecord
from agent_eval.reading.repeats import (
    cross_disagreement,
    noise_check,
    noise_sentences,
    outcomes_by_item,
    pair_disagreement,
    repeat_cells,
    repeat_summary,
    share_rows,
)

# item -> outcome per repeat (repeat 0 first). Differing counts: 3, 3, 2, 1 and 4 repeats.
OUTCOMES = {
    "a": [True, False, False],
    "b": [True, True, True],
    "c": [False, True],
    "d": [False],
    "e": [True, False, True, False],
}
IDS = set(OUTCOMES)


def _records(outcomes):
    records = [
        ItemRecord(id=i, task="t", category="c", ground_truth="x", status="ok", correct=ok, repeat=r)
        for i, seq in outcomes.items()
        for r, ok in enumerate(seq)
    ]
    return records[::-1]  # stored out of order: the repeat number decides the order, not the file


@pytest.fixture
def records():
    return _records({**OUTCOMES, "x": [True, True]})  # x is outside the compared ids


def test_outcomes_by_item_orders_by_repeat_and_keeps_only_the_ids(records):
    assert outcomes_by_item(records, IDS) == OUTCOMES
    assert list(outcomes_by_item(records, IDS)) == ["a", "b", "c", "d", "e"]
    assert outcomes_by_item(records, set()) == {}


@pytest.mark.parametrize(
    "c, k, expected",
    [
        (0, 3, 0.0),  # all wrong: every pair agrees
        (3, 3, 0.0),
        (1, 3, 2 / 3),  # pairs of 3: {r0 r1, r0 r2, r1 r2}; the right one r0 disagrees with both others: 2 of 3
        (1, 2, 1.0),  # the only pair disagrees
        (2, 4, 4 / 6),  # 6 pairs, right x wrong = 2 * 2 = 4 disagree
        (1, 4, 3 / 6),  # 1 * 3 = 3 of 6
    ],
)
def test_pair_disagreement(c, k, expected):
    assert pair_disagreement(c, k) == pytest.approx(expected)


def test_repeat_summary_by_hand(records):
    summary = repeat_summary(records, IDS)
    # right/of: a 1/3, b 3/3, c 1/2, d 0/1, e 2/4; d ran once, so 4 items are repeated
    assert summary == {
        "repeats": 4,
        "items": 5,
        "items_repeated": 4,
        # flip rate over the repeated items: a 2/3, b 0, c 1, e 4/6 -> (2/3 + 0 + 1 + 2/3) / 4 = 7/12
        "flip_rate": pytest.approx(7 / 12),
        "items_that_flip": 3,  # a, c, e
        # mean share right over all five: (1/3 + 1 + 1/2 + 0 + 1/2) / 5 = 7/15
        "mean_accuracy": pytest.approx(7 / 15),
        # majority (more than half right): only b; c (1 of 2) and e (2 of 4) are ties, counted wrong
        "majority_accuracy": pytest.approx(1 / 5),
        "majority_ties": 2,
        "all_accuracy": pytest.approx(1 / 5),  # b
        "any_accuracy": pytest.approx(4 / 5),  # a, b, c, e
        "share_right": {"a": pytest.approx(1 / 3), "b": 1.0, "c": 0.5, "d": 0.0, "e": 0.5},
    }


def test_repeat_summary_is_none_without_repeats():
    assert repeat_summary(_records({"a": [True], "b": [False]}), {"a", "b"}) is None
    assert repeat_summary([], set()) is None
    # repeats exist but only on an item outside the ids
    assert repeat_summary(_records({"a": [True], "z": [True, False]}), {"a"}) is None


def test_repeat_summary_of_perfectly_stable_repeats():
    summary = repeat_summary(_records({"a": [True, True], "b": [False, False]}), {"a", "b"})
    assert (summary["flip_rate"], summary["items_that_flip"], summary["majority_ties"]) == (0.0, 0, 0)
    assert (summary["mean_accuracy"], summary["all_accuracy"], summary["any_accuracy"]) == (0.5, 0.5, 0.5)


def test_cross_disagreement():
    # i: A right 1/3, B right 1/2 -> 1/3 * 1/2 + 1/2 * 2/3 = 1/2; j: A always, B never -> 1
    assert cross_disagreement({"i": 1 / 3, "j": 1.0}, {"i": 0.5, "j": 0.0}) == pytest.approx(3 / 4)
    assert cross_disagreement({"i": 1.0, "j": 0.0}, {"i": 1.0, "j": 0.0}) == 0.0  # identical and stable
    assert cross_disagreement({"i": 0.5}, {"i": 0.5}) == 0.5  # two coin flips disagree half the time


SCORES = [
    {"a": 1 / 3, "b": 1.0, "only_in_a": 0.0},
    {"a": 1.0, "b": 0.0},
    {"a": 1 / 3, "b": 1.0},
    {"a": 1 / 3, "b": 1.0},
]
SHARED = ["a", "b"]


def test_noise_check_by_hand():
    summaries = [{"flip_rate": 7 / 12}, {"flip_rate": 0.25}, None, {"flip_rate": 0.9}]
    entries = noise_check(["A", "B", "C", "D"], summaries, SCORES, SHARED)
    # B: a 1/3 * 0 + 1 * 2/3 = 2/3; b 1 * 1 + 0 * 0 = 1 -> 5/6 > max(7/12, 1/4)
    # C, D: a 1/3 * 2/3 * 2 = 4/9; b 0 -> 2/9; C ran once (unknown); D: 2/9 < 0.9
    assert entries == [
        {"pair": ["A", "B"], "between": pytest.approx(5 / 6), "flip_rate": [7 / 12, 0.25], "exceeds": True},
        {"pair": ["A", "C"], "between": pytest.approx(2 / 9), "flip_rate": [7 / 12, None], "exceeds": None},
        {"pair": ["A", "D"], "between": pytest.approx(2 / 9), "flip_rate": [7 / 12, 0.9], "exceeds": False},
    ]


def test_noise_check_equal_rates_do_not_exceed():
    entries = noise_check(["A", "B"], [{"flip_rate": 0.5}, {"flip_rate": 0.5}], [{"i": 0.5}, {"i": 0.5}], ["i"])
    assert entries == [{"pair": ["A", "B"], "between": 0.5, "flip_rate": [0.5, 0.5], "exceeds": False}]
    assert noise_check(["A"], [None], [{"i": 1.0}], ["i"]) == []


def test_noise_sentences():
    entries = [
        {"pair": ["A", "B"], "between": 5 / 6, "flip_rate": [7 / 12, 0.25], "exceeds": True},
        {"pair": ["A", "C"], "between": 2 / 9, "flip_rate": [7 / 12, None], "exceeds": None},
        {"pair": ["A", "D"], "between": 2 / 9, "flip_rate": [7 / 12, 0.9], "exceeds": False},
        {"pair": ["A", "E"], "between": 0.0, "flip_rate": [None, None], "exceeds": None},  # no repeats: nothing
        {"pair": ["A", "F"], "between": 0.1, "flip_rate": [None, 0.05], "exceeds": None},
    ]
    assert noise_sentences(entries) == [
        "B vs A, noise: a repeat of B and one of A disagree on 83.3% of items; two repeats disagree (flip rate) "
        "within A 58.3%, within B 25.0%: the modes differ by more than re-running either one does (rates, not a "
        "test: the paired tests above say whether the difference is significant)",
        "C vs A, noise: a repeat of C and one of A disagree on 22.2% of items; two repeats disagree (flip rate) "
        "within A 58.3%; C ran each item once, so its own noise is unknown (run it with --repeats)",
        "D vs A, noise: a repeat of D and one of A disagree on 22.2% of items; two repeats disagree (flip rate) "
        "within A 58.3%, within D 90.0%: the modes differ by no more than re-running one of them does, so the "
        "difference may be noise",
        "F vs A, noise: a repeat of F and one of A disagree on 10.0% of items; two repeats disagree (flip rate) "
        "within F 5.0%; A ran each item once, so its own noise is unknown (run it with --repeats)",
    ]
    assert noise_sentences([]) == []


def test_repeat_cells():
    summary = {
        "repeats": 4,
        "flip_rate": 7 / 12,
        "items_that_flip": 3,
        "items_repeated": 4,
        "mean_accuracy": 7 / 15,
        "majority_accuracy": 0.2,
        "majority_ties": 2,
        "all_accuracy": 0.2,
        "any_accuracy": 0.8,
    }
    no_ties = {**summary, "majority_ties": 0, "repeats": 3}
    header, body = repeat_cells(
        [{"letter": "A", "repeats": summary}, {"letter": "B", "repeats": None}, {"letter": "C", "repeats": no_ties}]
    )
    assert header == [
        "run",
        "K",
        "flip rate",
        "items that flip",
        "mean acc.",
        "majority acc.",
        "all-K acc.",
        "any-K acc.",
    ]
    assert body == [
        ["A", "4", "58.3%", "3/4", "46.7%", "20.0% (2 ties)", "20.0%", "80.0%"],
        ["B", "1", "—", "—", "—", "—", "—", "—"],
        ["C", "3", "58.3%", "3/4", "46.7%", "20.0%", "20.0%", "80.0%"],
    ]
    assert repeat_cells([{"letter": "A", "repeats": None}, {"letter": "B"}]) is None
    assert repeat_cells([]) is None


def test_share_rows_round_to_four_places():
    header, rows = share_rows(["A", "B"], SCORES[:2], SHARED)
    assert header == ["id", "A_share_right", "B_share_right"]
    assert rows == [["a", 0.3333, 1.0], ["b", 1.0, 0.0]]
    assert share_rows(["A"], [{}], []) == (["id", "A_share_right"], [])
