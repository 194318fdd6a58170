"""The sentences and cells of a paired comparison, character for character, from hand-made stats."""

import pytest

from agent_eval.analysis.verdicts import pct, pholm, pts, pval, verdict, verdicts

# Seven discordant items, all B's: exact p = 2 * 0.5^7 = 0.015625 ("0.0156" at 3 significant digits).
B_WINS = {
    "diff": 0.125,
    "ci_low": -0.05,
    "ci_high": 0.3,
    "p_value": 0.015625,
    "discordant": 7,
    "a_only": 0,
    "b_only": 7,
    "significant": True,
}
# The runs agree on every item: p = 1, no discordant items.
SAME = {
    "diff": 0.0,
    "ci_low": 0.0,
    "ci_high": 0.0,
    "p_value": 1.0,
    "discordant": 0,
    "a_only": 0,
    "b_only": 0,
    "significant": False,
}


def test_verdict_of_a_significant_difference():
    assert verdict("B", B_WINS) == (
        "B vs A: +12.5 pts [95% CI -5.0 pts, +30.0 pts], exact McNemar p = 0.0156 on 7 discordant items "
        "(B alone right on 7, A alone on 0): significant at α=0.05"
    )


def test_verdict_names_what_and_says_when_the_runs_agree():
    assert verdict("C", SAME, "task t1") == (
        "C vs A, task t1: +0.0 pts [95% CI +0.0 pts, +0.0 pts], exact McNemar p = 1 on 0 discordant items "
        "(C alone right on 0, A alone on 0): not significant at α=0.05; the two runs agree on every shared item"
    )


def test_verdict_of_one_discordant_item():
    # ten items, A alone right on one: diff -1/10; one discordant pair: p = 2 * 0.5 capped at 1
    one = {**SAME, "diff": -0.1, "ci_low": -0.3, "discordant": 1, "a_only": 1}
    assert verdict("B", one) == (
        "B vs A: -10.0 pts [95% CI -30.0 pts, +0.0 pts], exact McNemar p = 1 on 1 discordant items "
        "(B alone right on 0, A alone on 1): not significant at α=0.05"
    )


def test_verdict_with_unknown_difference():
    unknown = {**SAME, "diff": None, "ci_low": None, "ci_high": None}
    assert verdict("B", unknown).startswith("B vs A: ? [95% CI ?, ?], exact McNemar p = 1 on 0")


def test_verdict_adds_the_permutation_test():
    exact = {**B_WINS, "permutation": {"p_value": 0.25, "exact": True, "nonzero": 4}}
    assert verdict("B", exact).endswith(
        "significant at α=0.05; on per-item shares of right repeats the paired permutation test gives "
        "p = 0.25 (exact, 4 items differ): not significant"
    )
    sampled = {**B_WINS, "permutation": {"p_value": 0.00123456, "exact": False, "nonzero": 40}}
    assert verdict("B", sampled).endswith("p = 0.00123 (Monte Carlo, 40 items differ): significant")


def test_cells():
    assert pts(0.125) == "+12.5 pts"
    assert pts(-0.0333) == "-3.3 pts"
    assert pts(0.0) == "+0.0 pts"
    assert pts(0.5, unit="") == "+50.0"
    assert pts(None) == "?"
    assert pct(0.125) == "12.5%"
    assert pct(2 / 3) == "66.7%"
    assert pct(None) == "?"
    assert pval(B_WINS) == "0.0156 (7)"
    assert pval(SAME) == "1 n.s. (0)"
    assert pholm(None) == "—"
    assert pholm(0.0123456) == "0.0123"
    assert pholm(0.05) == "0.05 n.s."  # significant means strictly below alpha
    assert pholm(0.0499) == "0.0499"


def _group_row(scope, group, p_holm):
    return {"scope": scope, "group": group, "vs_first": [None, {"p_value": p_holm, "p_holm": p_holm}]}


def test_verdicts_warn_about_groups_too_small_to_be_significant():
    ids = [f"i{n}" for n in range(16)]
    groups = [
        ("overall", "all", ids),
        ("category", "x", ids[:3]),  # min p 2 * 0.5^3 = 0.25: too small
        ("category", "y", ids[3:16]),  # 13 items: could reach 0.000244
        ("task", "t1", ids[:5]),  # 2 * 0.5^5 = 0.0625: still too small
        ("task", "t2", ids[5:11]),  # 6 items: 2 * 0.5^6 = 0.03125 < 0.05, can be significant
        ("task", "t3", ids[11:16]),  # 5 items again
    ]
    rows = [
        {"scope": "overall", "group": "all", "vs_first": [None, B_WINS, SAME]},
        _group_row("category", "x", 1.0),
        _group_row("category", "y", 0.03),
        _group_row("task", "t1", 1.0),
        _group_row("task", "t2", 0.2),
        _group_row("task", "t3", 1.0),
    ]
    for row in rows[1:]:  # verdicts only reads run B's group stats here: C gets the same
        row["vs_first"].append(row["vs_first"][1])
    out = verdicts(["A", "B", "C"], rows, groups)
    assert out == [
        "B vs A: +12.5 pts [95% CI -5.0 pts, +30.0 pts], exact McNemar p = 0.0156 on 7 discordant items "
        "(B alone right on 7, A alone on 0): significant at α=0.05",
        "C vs A: +0.0 pts [95% CI +0.0 pts, +0.0 pts], exact McNemar p = 1 on 0 discordant items "
        "(C alone right on 0, A alone on 0): not significant at α=0.05; the two runs agree on every shared item",
        # three groups (x: 3, t1: 5, t3: 5) at most 5 items: 2 * 0.5^5 = 0.0625
        "3 per-category/per-task groups have at most 5 items: even if every item differed one way the exact p "
        "could not go below 0.0625, so no difference there can be significant at α=0.05",
        "per-category and per-task p-values are also Holm-adjusted for the number of groups (p Holm): still "
        "significant at α=0.05: y (B:A, p Holm = 0.03); y (C:A, p Holm = 0.03)",
    ]


def test_verdicts_of_an_overall_row_only():
    rows = [{"scope": "overall", "group": "all", "vs_first": [None, SAME]}]
    assert verdicts(["A", "B"], rows, [("overall", "all", ["i1"])]) == [
        "B vs A: +0.0 pts [95% CI +0.0 pts, +0.0 pts], exact McNemar p = 1 on 0 discordant items "
        "(B alone right on 0, A alone on 0): not significant at α=0.05; the two runs agree on every shared item"
    ]
    # a one-item overall group is not a "per-category/per-task group": no small-group sentence
    assert verdicts(["A"], [{"scope": "overall", "group": "all", "vs_first": [None]}], []) == []


@pytest.mark.parametrize("size, small", [(1, True), (4, True), (5, True), (6, False), (20, False)])
def test_the_small_group_boundary_is_six_items(size, small):
    groups = [("overall", "all", ["i"] * size), ("task", "t", ["i"] * size)]
    rows = [{"scope": "overall", "group": "all", "vs_first": [None, SAME]}, _group_row("task", "t", 1.0)]
    out = verdicts(["A", "B"], rows, groups)
    assert any("per-category/per-task groups have at most" in s for s in out) is small
