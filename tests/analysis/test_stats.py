"""The paired statistics against known values and degenerate cases."""

import itertools
import math

import pytest
from scipy.stats import binomtest

from agent_eval.analysis.stats import (
    bootstrap_ci,
    holm,
    mcnemar_exact,
    median_total,
    min_possible_p,
    paired,
    sign_flip_test,
)


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


def test_paired_json_carries_every_field_and_the_derived_ones():
    # A right on items 0 and 1, B right on items 1, 2 and 3: a_only = 1 (item 0), b_only = 2 (items 2, 3).
    result = paired([1, 1, 0, 0], [0, 1, 1, 1], n_resamples=200)
    data = result.to_json()
    assert set(data) == {
        "n",
        "acc_a",
        "acc_b",
        "diff",
        "a_only",
        "b_only",
        "p_value",
        "ci_low",
        "ci_high",
        "discordant",
        "significant",
    }
    assert (data["n"], data["acc_a"], data["acc_b"], data["diff"]) == (4, 0.5, 0.75, 0.25)
    # 3 discordant, 2 one way: 2 * P(X >= 2), X ~ Bin(3, 1/2) = 2 * (3 + 1) / 8 = 1, capped at 1
    assert (data["a_only"], data["b_only"], data["discordant"], data["p_value"]) == (1, 2, 3, 1.0)
    assert data["significant"] is False


def test_significant_is_strictly_below_alpha():
    # six discordant items all one way: 2 * 0.5^6 = 0.03125 < 0.05; five: 0.0625, not
    assert paired([0] * 6, [1] * 6, n_resamples=100).significant
    assert not paired([0] * 5, [1] * 5, n_resamples=100).significant


def test_bootstrap_percentiles_on_a_distribution_known_exactly():
    # diffs [0, 0, 0, 1]: a resample's mean is X/4 with X ~ Bin(4, 1/4).
    # P(mean = 0) = (3/4)^4 = 81/256 = 31.6% > 2.5%, so the 2.5th percentile is 0.
    # P(mean >= 3/4) = (4 * 3 + 1) / 256 = 5.1% > 2.5% while P(mean = 1) = 1/256 = 0.4% < 2.5%,
    # so the 97.5th percentile is 3/4 (10,000 resamples: both margins are many standard errors wide).
    assert bootstrap_ci([0, 0, 0, 0], [0, 0, 0, 1]) == (0.0, 0.75)
    # diffs [-1, 1]: means -1, 0, 1 with 1/4, 1/2, 1/4. A 40% interval (30th..70th percentile)
    # lies inside the middle half: (0, 0); the 95% one spans both ends.
    assert bootstrap_ci([1, 0], [0, 1], level=0.40) == (0.0, 0.0)
    assert bootstrap_ci([1, 0], [0, 1]) == (-1.0, 1.0)


def test_median_total_of_an_even_count_and_of_nothing():
    # median of 1, 2, 4, 10 is (2 + 4) / 2 = 3; mean 17 / 4; total 17
    assert median_total([10, None, 1, 4, 2]) == {"median": 3, "mean": 4.25, "total": 17, "unknown": 1}
    assert median_total([]) == {"median": None, "mean": None, "total": None, "unknown": 0}
    assert median_total([0.0]) == {"median": 0.0, "mean": 0.0, "total": 0.0, "unknown": 0}  # a known 0 stays 0


def test_holm_step_by_step():
    # known p sorted ascending with m = 4 (the None is not a test):
    #   0.005 (index 4) * 4 = 0.02
    #   0.010 (index 0) * 3 = 0.03
    #   0.030 (index 2) * 2 = 0.06
    #   0.040 (index 1) * 1 = 0.04 -> kept monotone: max(0.06, 0.04) = 0.06
    assert holm([0.01, 0.04, 0.03, None, 0.005]) == [
        pytest.approx(0.03),
        pytest.approx(0.06),
        pytest.approx(0.06),
        None,
        pytest.approx(0.02),
    ]


def test_holm_edge_cases():
    assert holm([]) == []
    assert holm([None, None]) == [None, None]
    assert holm([0.04]) == [0.04]  # one test: nothing to adjust for
    # ties: 0.02 * 2 = 0.04, then 0.02 * 1 = 0.02 kept at 0.04
    assert holm([0.02, 0.02]) == [pytest.approx(0.04), pytest.approx(0.04)]
    # capped: 0.5 * 2 = 1.0 (not more), 0.6 * 1 = 0.6 kept at 1.0
    assert holm([0.6, 0.5]) == [1.0, 1.0]
    assert holm([0.9, 0.8, 0.7]) == [1.0, 1.0, 1.0]


def _enumerated_sign_flip_p(diffs):
    """All 2^m sign patterns: the share whose |sum| is at least the observed |sum|."""
    observed = abs(sum(diffs))
    sums = [abs(sum(s * d for s, d in zip(signs, diffs))) for signs in itertools.product((1, -1), repeat=len(diffs))]
    return sum(s >= observed - 1e-12 for s in sums) / len(sums)


def test_sign_flip_two_differences_one_way():
    # patterns ++ (2), +- (0), -+ (0), -- (-2): |sum| >= 2 on 2 of 4 -> 0.5
    assert sign_flip_test([0, 0], [1, 1]) == {"p_value": 0.5, "nonzero": 2, "exact": True}


def test_sign_flip_weighs_a_third_of_a_flip_less_than_a_full_one():
    # diffs 1, 1, 1, -1/3; observed sum 8/3. |sum| >= 8/3 needs the three 1s to share a sign
    # (either of the two signs of -1/3 then gives 8/3 or 10/3): 2 * 2 = 4 of 16 patterns -> 0.25.
    a, b = [0, 0, 0, 1], [1, 1, 1, 2 / 3]
    assert sign_flip_test(a, b) == {"p_value": pytest.approx(0.25), "nonzero": 4, "exact": True}
    # the sign test on the same items counts 3 vs 1: 2 * P(X >= 3), X ~ Bin(4, 1/2) = 2 * 5/16
    assert mcnemar_exact(1, 3) == pytest.approx(0.625)


def test_sign_flip_matches_full_enumeration():
    a = [0, 0.5, 1, 0, 0, 1 / 3, 1, 0.25, 0]
    b = [1, 1, 0, 1, 0, 1, 1, 0.75, 2 / 3]  # items 4 and 6 tie and drop out: m = 7, 128 patterns
    diffs = [1, 0.5, -1, 1, 2 / 3, 0.5, 2 / 3]
    result = sign_flip_test(a, b)
    assert (result["nonzero"], result["exact"]) == (7, True)
    assert result["p_value"] == pytest.approx(_enumerated_sign_flip_p(diffs))


def test_sign_flip_needs_two_differences():
    assert sign_flip_test([], []) == {"p_value": 1.0, "nonzero": 0, "exact": True}
    assert sign_flip_test([1, 0, 1], [1, 0, 1]) == {"p_value": 1.0, "nonzero": 0, "exact": True}
    assert sign_flip_test([1, 0, 1], [1, 1, 1]) == {"p_value": 1.0, "nonzero": 1, "exact": True}


def test_sign_flip_goes_monte_carlo_past_the_budget():
    # 12 differences: 4096 patterns > 1000 resamples. The estimate stays near the exact value.
    a = [0] * 12
    b = [1, 1, 1, 1, 1, 1, 1, 1, 1, 0.5, -0.5, -1]
    exact = _enumerated_sign_flip_p([1] * 9 + [0.5, -0.5, -1])
    result = sign_flip_test(a, b, n_resamples=1000, seed=3)
    assert (result["nonzero"], result["exact"]) == (12, False)
    assert result["p_value"] == pytest.approx(exact, abs=0.03)
    assert sign_flip_test(a, b, n_resamples=4096)["exact"]  # 2^12 fits exactly
