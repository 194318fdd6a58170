"""The BabyVision part of `agent-eval compare` and `agent-eval table`: on the items every run answered, both grades
of each run side by side, each labelled, whichever one is its `correct`: VISTA's (normalized exact match) and the
judge's (VLMEvalKit's), each paired against the first run by the exact McNemar test. A run whose shared items are
not all judged has no judge figure (it was run without --judge-model: `agent-eval regrade --judge-model` adds it).
With repeats, an item's grade is its mean over repeats."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from rich.console import Console
from rich.table import Table

from agent_eval.analysis.comparison_result import Comparison, KindComparison, Measure
from agent_eval.analysis.stats import paired
from agent_eval.benchmarks.babyvision.grading import GRADE_LABELS


def per_item(records, key: str) -> dict[str, float | None]:
    """Each item's grade under `key`, the mean over its repeats; None when a repeat lacks it (not judged)."""
    by: dict[str, list] = defaultdict(list)
    for r in records:
        by[r.id].append((r.metrics or {}).get(key))
    return {i: None if any(v is None for v in vs) else statistics.fmean(float(v) for v in vs) for i, vs in by.items()}


def build_grades(runs, shared: list[str], n_resamples: int, seed: int) -> dict:
    out: dict = {}
    for key, _ in GRADE_LABELS:
        tables = [per_item(run.records, key) for run in runs]
        ids = [i for i in shared if all(i in t for t in tables)]
        # a run's scores on the shared items; None when one of them lacks this grade
        scores: list[list[float] | None] = []
        for table in tables:
            values = [table[i] for i in ids]
            scores.append([v for v in values if v is not None] if ids and None not in values else None)
        first = scores[0]
        tests: list[dict | None] = [None]
        tests += [paired(first, s, n_resamples, seed).to_json() if first and s else None for s in scores[1:]]
        out[key] = {"n": len(ids), "accuracy": [statistics.fmean(s) if s else None for s in scores], "vs_first": tests}
    return out


@dataclass
class GradesComparison(KindComparison):
    """Both grades per run (build_grades: per grade key, its n, accuracies and paired tests against the first)."""

    grades: dict = field(default_factory=dict)

    def table_measures(self) -> list[Measure]:
        return [
            Measure(
                name,
                self.grades[key]["accuracy"],
                percent=True,
                vs_first=self.grades[key]["vs_first"],
                test="exact McNemar",
            )
            for key, name in GRADE_LABELS
        ]

    def to_json(self) -> dict:
        return {"grades": self.grades}  # compare.json's "grades": exact_match and judge_verdict

    def print_table(self, data: Comparison, console: Console) -> bool:
        table = Table("run", *(name for _, name in GRADE_LABELS), title="BabyVision, both grades", title_style="bold")
        for k, run in enumerate(data.runs):
            cells = []
            for key, _ in GRADE_LABELS:
                value, test = self.grades[key]["accuracy"][k], self.grades[key]["vs_first"][k]
                shown = "not judged" if value is None else f"{value:.1%}"
                cells.append(shown + (f" (p = {test['p_value']:.3g})" if test else ""))
            table.add_row(run["letter"], *cells)
        console.print(table)
        return False  # the plain accuracy table (of `correct`) follows
