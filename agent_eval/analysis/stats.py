"""Paired statistics for two runs over the same items: exact McNemar test, bootstrap CI.

Inputs are per-item scores in [0, 1], aligned by item: 0/1 correctness, or the mean over
repeats. On 0/1 data the test below is exactly McNemar's; on means it is the sign test on the
items whose scores differ, which is what McNemar's exact test is on binary data.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np
from scipy.stats import binomtest

ALPHA = 0.05
N_RESAMPLES = 10_000
SEED = 20260


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact p for the discordant pairs: under H0 each falls either way with p=1/2."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    return float(binomtest(b_only, n, 0.5, alternative="two-sided").pvalue)


def min_possible_p(n_items: int) -> float:
    """The smallest two-sided exact p that n items can give (all discordant, all one way)."""
    return min(1.0, 2 * 0.5**n_items) if n_items else 1.0


def bootstrap_ci(
    a: Sequence[float], b: Sequence[float], n_resamples: int = N_RESAMPLES, seed: int = SEED, level: float = 0.95
) -> tuple[float, float] | None:
    """Percentile CI of mean(b - a), resampling items (pairs stay together); fixed seed = same CI every time."""
    diffs = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    if diffs.size == 0:
        return None
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    chunk = max(1, 2_000_000 // diffs.size)  # bound memory for big item sets
    for start in range(0, n_resamples, chunk):
        stop = min(n_resamples, start + chunk)
        idx = rng.integers(0, diffs.size, size=(stop - start, diffs.size))
        means[start:stop] = diffs[idx].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


@dataclass
class Paired:
    n: int
    acc_a: float | None
    acc_b: float | None
    diff: float | None  # acc_b - acc_a
    a_only: int  # items where A scored higher (A right, B wrong)
    b_only: int
    p_value: float
    ci_low: float | None
    ci_high: float | None

    @property
    def discordant(self) -> int:
        return self.a_only + self.b_only

    @property
    def significant(self) -> bool:
        return self.p_value < ALPHA

    def to_json(self) -> dict:
        return {**asdict(self), "discordant": self.discordant, "significant": self.significant}


def paired(a: Sequence[float], b: Sequence[float], n_resamples: int = N_RESAMPLES, seed: int = SEED) -> Paired:
    if len(a) != len(b):
        raise ValueError("paired scores must be aligned item by item")
    a_only = sum(x > y for x, y in zip(a, b))
    b_only = sum(y > x for x, y in zip(a, b))
    n = len(a)
    acc_a, acc_b = (float(np.mean(a)), float(np.mean(b))) if n else (None, None)
    ci = bootstrap_ci(a, b, n_resamples, seed)
    return Paired(
        n,
        acc_a,
        acc_b,
        None if n == 0 else acc_b - acc_a,
        a_only,
        b_only,
        mcnemar_exact(a_only, b_only),
        *(ci or (None, None)),
    )


def wilson_interval(share: float | None, n: int, level: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval of a share over n items. With repeats each item's score is its mean over them, a
    value in [0, 1] whose variance is at most share x (1 - share): the interval stays valid (conservative)."""
    if share is None or n == 0:
        return None
    from scipy.stats import norm

    z = float(norm.ppf(1 - (1 - level) / 2))
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (share * (1 - share) / n + z * z / (4 * n * n)) ** 0.5
    return max(0.0, centre - half), min(1.0, centre + half)


def median_total(values: Sequence[float | None]) -> dict:
    """Median, mean and total of the known values, and how many were unknown (never counted as 0)."""
    known = [v for v in values if v is not None]
    return {
        "median": statistics.median(known) if known else None,
        "mean": statistics.fmean(known) if known else None,
        "total": sum(known) if known else None,
        "unknown": len(values) - len(known),
    }


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm-Bonferroni adjusted p-values for one family of tests (None stays None, not counted).
    Sorted ascending, the k-th smallest is multiplied by (m - k) and kept monotone; capped at 1."""
    known = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(known):
        running = max(running, min(1.0, (len(known) - rank) * p))
        adjusted[index] = running
    return adjusted


def sign_flip_test(a: Sequence[float], b: Sequence[float], n_resamples: int = N_RESAMPLES, seed: int = SEED) -> dict:
    """Paired permutation test on per-item scores (e.g. mean correctness over repeats): under H0 the
    two runs are exchangeable on each item, so each item's difference b - a is as likely flipped.
    Exact over all 2^m sign patterns of the m non-zero differences when that fits in n_resamples,
    else Monte Carlo with a fixed seed. Unlike the sign test it weighs 1/3 of a flip less than a full one."""
    from scipy.stats import permutation_test

    diffs = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    diffs = diffs[diffs != 0]  # zero differences are the same under every flip
    if diffs.size < 2:  # both sign patterns of one difference are as extreme as the one seen
        return {"p_value": 1.0, "nonzero": int(diffs.size), "exact": True}
    exact = 2**diffs.size <= n_resamples
    result = permutation_test(
        (diffs,),
        lambda x, axis: np.sum(x, axis=axis),
        permutation_type="samples",
        n_resamples=n_resamples,
        alternative="two-sided",
        vectorized=True,
        rng=np.random.default_rng(seed),
    )
    return {"p_value": float(min(1.0, result.pvalue)), "nonzero": int(diffs.size), "exact": exact}
