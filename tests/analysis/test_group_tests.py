"""Holm adjustment across a comparison's group rows, and the sentence naming the groups that survive it:
expected values worked out by hand in the comments."""

import pytest

from agent_eval.analysis.group_tests import add_holm, holm_sentence


def _row(scope, group, *p_values, perms=None):
    """A comparison row: vs_first holds None for A, then one paired-stat dict per later run."""
    stats = [{"p_value": p} for p in p_values]
    for stat, perm in zip(stats, perms or []):
        stat["permutation"] = {"p_value": perm}
    return {"scope": scope, "group": group, "vs_first": [None, *stats]}


@pytest.fixture
def rows():
    return [
        _row("overall", "all", 0.001, 0.9),
        _row("category", "x1", 0.01, 0.2, perms=[0.02]),
        _row("category", "x2", 0.04, 0.001, perms=[0.2]),
        _row("category", "x3", 0.03, 0.5, perms=[0.03]),
        _row("task", "t1", 0.02, 0.5),
        _row("task", "t2", 0.02, 0.01),
    ]


def _adjusted(rows, scope, j, perm=False):
    stats = [row["vs_first"][j] for row in rows if row["scope"] == scope]
    return [(s["permutation"] if perm else s)["p_holm"] for s in stats]


def test_add_holm_adjusts_within_each_scope_and_each_run(rows):
    add_holm(rows, ("category", "task"), ("vs_first",))
    # category, B vs A: p 0.01, 0.04, 0.03 (m = 3) -> 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> 0.06
    assert _adjusted(rows, "category", 1) == pytest.approx([0.03, 0.06, 0.06])
    # category, C vs A: 0.001*3 = 0.003, 0.2*2 = 0.4, 0.5*1 = 0.5
    assert _adjusted(rows, "category", 2) == pytest.approx([0.4, 0.003, 0.5])
    # task, B vs A: a tie, 0.02*2 = 0.04 then 0.02*1 kept at 0.04; C vs A: 0.01*2 = 0.02, 0.5*1 = 0.5
    assert _adjusted(rows, "task", 1) == pytest.approx([0.04, 0.04])
    assert _adjusted(rows, "task", 2) == pytest.approx([0.5, 0.02])
    # the permutation p-values form their own family: 0.02*3 = 0.06, 0.03*2 = 0.06, 0.2*1 = 0.2
    assert _adjusted(rows, "category", 1, perm=True) == pytest.approx([0.06, 0.2, 0.06])
    # the overall row is one test, not a member of any family
    assert all("p_holm" not in s for s in rows[0]["vs_first"][1:])
    assert rows[0]["vs_first"][0] is None


def test_add_holm_with_an_absent_scope_or_a_single_run():
    rows = [_row("overall", "all", 0.01), _row("task", "t1", 0.01)]
    add_holm(rows, ("category",), ("vs_first",))  # no category rows: nothing to do
    assert "p_holm" not in rows[1]["vs_first"][1]
    alone = [{"scope": "task", "group": "t1", "vs_first": [None]}]
    add_holm(alone, ("task",), ("vs_first",))  # one run: nothing to compare
    assert alone[0]["vs_first"] == [None]


def test_holm_sentence_names_the_groups_that_stay_significant(rows):
    add_holm(rows, ("category", "task"), ("vs_first",))
    # below 0.05 after adjusting (from the test above): x1 B 0.03; x2 C 0.003; t1 B 0.04; t2 B 0.04, C 0.02
    assert holm_sentence(rows, ["A", "B", "C"], ("vs_first",), "per-category and per-task") == (
        "per-category and per-task p-values are also Holm-adjusted for the number of groups (p Holm): "
        "still significant at α=0.05: x1 (B:A, p Holm = 0.03); x2 (C:A, p Holm = 0.003); "
        "t1 (B:A, p Holm = 0.04); t2 (B:A, p Holm = 0.04); t2 (C:A, p Holm = 0.02)"
    )


def test_holm_sentence_when_none_survives_or_nothing_to_say():
    rows = [_row("overall", "all", 0.01), _row("task", "t1", 0.05), _row("task", "t2", 0.5)]
    add_holm(rows, ("task",), ("vs_first",))
    # 0.05*2 = 0.1, 0.5*1 = 0.5: nothing below 0.05 (and 0.05 itself would not count either)
    assert holm_sentence(rows, ["A", "B"], ("vs_first",), "per-task") == (
        "per-task p-values are also Holm-adjusted for the number of groups (p Holm): none stays significant at α=0.05"
    )
    assert holm_sentence(rows[:1], ["A", "B"], ("vs_first",), "per-task") is None  # no group rows
    assert holm_sentence(rows, ["A"], ("vs_first",), "per-task") is None  # one run


def test_holm_sentence_names_the_key_when_there_are_several():
    rows = [
        {
            "scope": "family",
            "group": "f1",
            "vs_first": [None, {"p_value": 0.001}],
            "evidence_first": [None, {"p_value": 0.2}],
        },
        {
            "scope": "family",
            "group": "f2",
            "vs_first": [None, {"p_value": 0.5}],
            "evidence_first": [None, {"p_value": 0.01}],
        },
    ]
    add_holm(rows, ("family",), ("vs_first", "evidence_first"))
    # vs_first: 0.001*2 = 0.002, 0.5; evidence_first: 0.01*2 = 0.02, 0.2*1 kept at 0.2
    assert holm_sentence(rows, ["A", "B"], ("vs_first", "evidence_first"), "per-family") == (
        "per-family p-values are also Holm-adjusted for the number of groups (p Holm): still significant at "
        "α=0.05: f1 (B:A, vs, p Holm = 0.002); f2 (B:A, evidence, p Holm = 0.02)"
    )
