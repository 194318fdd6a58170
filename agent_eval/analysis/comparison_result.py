"""What a comparison of runs is, typed: the paired statistics and sections that compare, report and sweep render,
and the typed part a benchmark kind adds (its own metrics and tests). `to_json()` is compare.json's layout
(docs/compare.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple


class Group(NamedTuple):
    """A set of items the comparison tests on its own: ("overall", "all", ids), ("category", name, ids), ..."""

    scope: str
    name: str
    ids: list[str]


@dataclass
class KindComparison:
    """A kind's own part of a comparison; the kind subclasses it with typed fields. `verdicts`, when given,
    replace the plain accuracy sentences (the kind's main measure says more)."""

    verdicts: list[str] | None = None

    def to_json(self) -> dict[str, Any]:
        """The keys this part adds to compare.json."""
        return {}


@dataclass
class Comparison:
    benchmark: str
    alpha: float
    n_resamples: int
    seed: int
    shared: int  # how many items every run has (the numbers are on those)
    runs: list[dict[str, Any]]  # per run: letter, name, label, config, accuracy, efficiency, repeats, tool use
    notes: list[str]
    rows: list[dict[str, Any]]  # per group: scope, group, n, accuracy per run, paired statistics against A
    verdicts: list[str]
    changed: list[dict[str, Any]]
    noise: list[dict[str, Any]]
    item_shares: dict[str, Any]
    kind: KindComparison | None = field(default=None)

    def to_json(self) -> dict[str, Any]:
        data = {
            "benchmark": self.benchmark,
            "alpha": self.alpha,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "shared": self.shared,
            "runs": self.runs,
            "notes": self.notes,
            "rows": self.rows,
            "verdicts": self.verdicts,
            "changed": self.changed,
            "noise": self.noise,
            "item_shares": self.item_shares,
        }
        return data | (self.kind.to_json() if self.kind else {})
