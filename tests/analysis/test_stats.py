"""The paired statistics against known values and degenerate cases."""

import math

import pytest
from scipy.stats import binomtest

from agent_eval.analysis.stats import bootstrap_ci, mcnemar_exact, median_total, min_possible_p, paired


@pytest.mark.parametrize(
    "a_only, b_only, expected",
    [
        (0, 0, 1.0),  # no discordant pairs: no evidence either way
        (1, 0, 1.0),
        (3, 3, 1.0),
        (0, 5, 2 / 32),  # all five one way: 2 * 0.5^5
        (2, 8, 2 * (45 + 10 + 1) / 1024),  # hand: 2 * P(X >= 8), X ~ Bin(10, 1/2)
        (10, 1, 2 * (1 + 11) / 2048),  # 2 * P(X <= 1), X ~ Bin(11, 1/2)
    ],
)
def test_mcnemar_exact_known_values(a_only, b_only, expected):
    assert mcnemar_exact(a_only, b_only) == pytest.approx(expected)
    assert mcnemar_exact(b_only, a_only) == pytest.approx(expected)  # two-sided: symmetric


def test_mcnemar_matches_scipy_binomtest():
    for a_only, b_only in [(4, 13), (20, 8), (7, 9)]:
        assert mcnemar_exact(a_only, b_only) == pytest.approx(binomtest(b_only, a_only + b_only, 0.5).pvalue)


def test_min_possible_p_says_five_items_cannot_be_significant():
    assert min_possible_p(5) == pytest.approx(0.0625)
    assert min_possible_p(6) == pytest.approx(0.03125)
    assert min_possible_p(0) == 1.0


def test_bootstrap_is_deterministic_and_contains_the_point_estimate():
    a = [1, 0, 1, 1, 0, 0, 1, 0, 1, 0] * 8
    b = [1, 1, 1, 0, 1, 0, 1, 1, 1, 0] * 8
    first, again = bootstrap_ci(a, b, seed=7), bootstrap_ci(a, b, seed=7)
    assert first == again
    point = (sum(b) - sum(a)) / len(a)
    assert first[0] <= point <= first[1]


def test_bootstrap_width_matches_the_normal_approximation():
    # 85 items: B alone right on 20, A alone on 8, the rest agree.
    a = [0] * 20 + [1] * 8 + [1] * 30 + [0] * 27
    b = [1] * 20 + [0] * 8 + [1] * 30 + [0] * 27
    n, diff = 85, 12 / 85
    se = math.sqrt((28 / n - diff**2) / n)
    low, high = bootstrap_ci(a, b)
    assert high - low == pytest.approx(2 * 1.96 * se, abs=0.03)
    assert low > 0  # this difference is real


def test_degenerate_cases():
    same = [1, 0, 1, 1, 0]
    result = paired(same, same)
    assert (result.p_value, result.diff, result.discordant, result.ci_low, result.ci_high) == (1.0, 0.0, 0, 0.0, 0.0)
    assert not result.significant
    assert bootstrap_ci([], []) is None
    assert bootstrap_ci([0, 0], [1, 1]) == (1.0, 1.0)
    empty = paired([], [])
    assert empty.n == 0 and empty.diff is None and empty.p_value == 1.0
    with pytest.raises(ValueError):
        paired([1, 0], [1])


def test_paired_counts_discordant_pairs_and_fractional_scores():
    result = paired([1, 1, 0, 0, 1], [0, 1, 1, 1, 1])
    assert (result.a_only, result.b_only, result.n) == (1, 2, 5)
    assert result.diff == pytest.approx(0.2)
    assert result.p_value == pytest.approx(mcnemar_exact(1, 2))
    # means over repeats: the sign test on items whose scores differ
    means = paired([1.0, 2 / 3, 0.0], [1.0, 1 / 3, 1 / 3])
    assert (means.a_only, means.b_only) == (1, 1)
    assert means.to_json()["discordant"] == 2


def test_median_total_never_counts_unknown_as_zero():
    assert median_total([0.1, None, 0.3]) == {
        "median": pytest.approx(0.2),
        "mean": pytest.approx(0.2),
        "total": pytest.approx(0.4),
        "unknown": 1,
    }
    assert median_total([None, None]) == {"median": None, "mean": None, "total": None, "unknown": 2}
