"""The tally kind: integer answers; a wrong answer off by one counts as "close"."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from agent_eval.analysis.comparison_result import KindComparison
from agent_eval.benchmarks.base import Benchmark, BenchmarkGrade
from agent_eval.benchmarks.presentation import ReadingHooks, TemplateView

TEMPLATES = Path(__file__).resolve().parent / "templates"


def close(record) -> bool:
    try:
        return abs(int(record.prediction) - int(record.ground_truth)) <= 1
    except (TypeError, ValueError):
        return False


def close_rate(records) -> float:
    return sum(close(r) for r in records) / len(records) if records else 0.0


@dataclass
class TallyComparison(KindComparison):
    close_rate: list[float] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"tally": {"close_rate": self.close_rate}}

    def markdown_parts(self, data, md) -> list[str]:
        rows = [[run["letter"], f"{rate:.0%}"] for run, rate in zip(data.runs, self.close_rate)]
        return ["Tally close rates:", md(["run", "close"], rows)]


class TallyReading(ReadingHooks):
    group_column = "shape"
    marks = (("close", "close"),)
    accuracy_name = "exact accuracy"
    templates_dir = TEMPLATES
    report_css = "tally.css.j2"

    def group_of(self, record) -> str:
        return record.category

    def show_totals(self, console, run) -> str:
        console.print(f"tally: {sum(close(r) for r in run.records)} of {len(run.records)} close")
        exact = sum(r.correct for r in run.records)
        return f"exact {exact}/{len(run.records)}, close rate {close_rate(run.records):.0%}"

    def show_item(self, console, run, record, images, data):
        console.print(f"tally notes: off by {abs(int(record.prediction or 0) - int(record.ground_truth))}")
        return close(record)

    def show_outcome(self, console, record, state) -> None:
        console.print(f"tally close: {'yes' if state else 'no'}")

    def compare(self, runs, letters, groups, n_resamples, seed) -> TallyComparison:
        shared = set(groups[0].ids)
        rates = [close_rate([r for r in run.records if r.id in shared]) for run in runs]
        return TallyComparison(close_rate=rates)

    def report_summary(self, records, per_category) -> TemplateView:
        return TemplateView("tally_summary.html.j2", {"close_rate": close_rate(records)})


class Tally(Benchmark):
    name = "tally"
    tool_modes = ("none",)

    def load(self, root: Path):
        raise NotImplementedError("the tally kind only reads runs in the tests")

    def setup(self, item, tools, work, home, item_root, template_text):
        return contextlib.nullcontext()

    def grade(self, final_text, item, item_dir) -> BenchmarkGrade:
        prediction = (final_text or "").strip()
        return BenchmarkGrade(prediction, prediction == str(item.answer), has_answer_tag=False)

    def scorer_hash(self) -> str:
        return "tally-1"

    def reading(self) -> ReadingHooks:
        return TallyReading()
