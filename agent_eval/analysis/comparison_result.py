"""What a comparison of runs is, typed: the paired statistics and sections that compare, report and sweep render,
and the typed part a benchmark kind adds (its own metrics and tests, and how they render). `to_json()` is
compare.json's layout (docs/compare.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from rich.console import Console

Markdown = Callable[[list[str], list[list[str]]], str]  # (header, rows) -> a Markdown table


class Group(NamedTuple):
    """A set of items the comparison tests on its own: ("overall", "all", ids), ("category", name, ids), ..."""

    scope: str
    name: str
    ids: list[str]


@dataclass
class PlotPoints:
    """A second (hollow) accuracy per run for the accuracy-vs-cost plot, and its legend line."""

    values: list[float | None]
    legend: str


@dataclass
class Measure:
    """One of a kind's own measures per run, for `agent-eval table`: its values in the comparison's run order,
    and when the kind tests it, the paired stats against the first run (diff, p_value) as its compare has them."""

    name: str
    values: list[float | None]
    percent: bool = False  # a share in [0, 1], shown in %
    digits: int = 1
    vs_first: list[dict | None] | None = None
    test: str = ""  # the paired test's name, for the table's notes
    change_name: str = ""  # what the change measures, when not the values' own unit (e.g. per game)


@dataclass
class KindComparison:
    """A kind's own part of a comparison; the kind subclasses it with typed fields and may render them in place of
    the plain accuracy table. `verdicts`, when given, replace the plain accuracy sentences (the kind's main measure
    says more). Each rendering gets the whole comparison (`data`, whose `kind` is this object)."""

    verdicts: list[str] | None = None

    def to_json(self) -> dict:
        """The keys this part adds to compare.json."""
        return {}

    def print_table(self, data: Comparison, console: Console) -> bool:
        """Print this kind's accuracy table instead of the plain one; False: use the plain one."""
        return False

    def markdown_parts(self, data: Comparison, md: Markdown) -> list[str] | None:
        """Markdown in place of the plain accuracy table (None: the plain one)."""
        return None

    def csv_rows(self, data: Comparison) -> list[list] | None:
        """compare's accuracy CSV in place of the plain one (None: the plain one)."""
        return None

    def plot_points(self, data: Comparison) -> PlotPoints | None:
        """A second marker per run on the accuracy-vs-cost plot (None: none)."""
        return None

    def table_measures(self) -> list[Measure]:
        """The kind's own measures `agent-eval table` lays out beside accuracy (none: accuracy only)."""
        return []


@dataclass
class Comparison:
    benchmark: str
    alpha: float
    n_resamples: int
    seed: int
    shared: int  # how many items every run has (the numbers are on those)
    runs: list[dict]  # per run: letter, name, label, config, accuracy, efficiency, repeats, tool use
    notes: list[str]
    rows: list[dict]  # per group: scope, group, n, accuracy per run, paired statistics against A
    verdicts: list[str]
    changed: list[dict]
    noise: list[dict]
    item_shares: dict
    kind: KindComparison | None = field(default=None)

    def to_json(self) -> dict:
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
