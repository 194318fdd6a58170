"""How BabyVision runs read: items grouped by subtype (their task; the type is their category), each item's
\\boxed{} answer with both grades (VISTA's exact match, the judge's verdict and calls); compare pairs runs that
differ in one of VISTA's settings at a time, and lays both grades side by side."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from agent_eval.analysis.comparison_result import Group, KindComparison
from agent_eval.benchmarks.babyvision.grading import GRADE_LABELS
from agent_eval.benchmarks.presentation import ItemView, JudgedHooks, ReportedItem, RunOnDisk, TemplateView
from agent_eval.datamodel.records import ItemRecord

TEMPLATES = Path(__file__).resolve().parent / "templates"
VERDICT_WORDS = {True: "right", False: "wrong", None: "not made (no --judge-model)"}  # a grade in words
VERDICT_CLASS: dict[bool | None, str] = {True: "right", False: "wrong", None: ""}  # its style in the report


def _graded_by(metrics: dict) -> str:
    return "judge" if metrics.get("graded_by", "judge") == "judge" else "vista"


def _graded_by_word(metrics: dict) -> str:
    """Whose grade the record's `correct` is, in words (show and the report say it alike)."""
    return "the judge" if _graded_by(metrics) == "judge" else "VISTA"


class BabyVisionHooks(JudgedHooks):
    group_column = "subtype"
    read_label = "\\boxed{} answer"
    read_key = "extracted"
    marks = (("exact", "exact_match"), ("judge", "judge_verdict"))
    templates_dir = TEMPLATES

    def show_outcome(self, console: Console, record: ItemRecord, state: object) -> None:
        super().show_outcome(console, record, state)
        metrics = record.metrics or {}
        if "exact_match" in metrics:  # a record graded both ways (before: the judge's grade only)
            exact, judge = VERDICT_WORDS[metrics["exact_match"]], VERDICT_WORDS[metrics["judge_verdict"]]
            console.print(
                f"  grades: VISTA exact match {exact}, judge {judge}; `correct` is {_graded_by_word(metrics)}'s grade"
                " (--grade)"
            )

    def rungs(self, tools: str | None, kind_options: dict | None) -> dict[str, object] | None:
        """VISTA's settings beside ours, one entry each (the system prompt is compared apart, as for every kind)."""
        options = kind_options or {}
        mode = tools or "none"
        return {
            "tool mode": mode,
            "image tools": options.get("image_tools") or "ours" if mode != "none" else None,
            "first message": options.get("task_prompt") or "ours",
            "grade": options.get("grade") or "judge",
        }

    def compare(
        self, runs: Sequence[RunOnDisk], letters: list[str], groups: list[Group], n_resamples: int, seed: int
    ) -> KindComparison:
        from agent_eval.benchmarks.babyvision.compare import GradesComparison, build_grades

        return GradesComparison(grades=build_grades(runs, list(groups[0].ids), n_resamples, seed))

    # -- report: both grades on every item and in the run's summary (the original image stays: no figures of its own)
    def report_truth(self, run: RunOnDisk, data: Path | None, loaded: dict) -> object | None:
        return {}  # the record holds both grades; nothing of the dataset is needed

    def report_item(self, item: ReportedItem) -> ItemView | None:
        metrics = item.record.metrics or {}
        if "exact_match" not in metrics:
            return None  # graded before both grades were kept: the plain view
        exact, judge = metrics.get("exact_match"), metrics.get("judge_verdict")
        return ItemView(
            template="bv_grades.html.j2",
            values={
                "exact_word": VERDICT_WORDS[exact],
                "exact_class": VERDICT_CLASS[exact],
                "judge_word": VERDICT_WORDS[judge],
                "judge_class": VERDICT_CLASS[judge],
                "graded_by": _graded_by(metrics),
                "graded_by_word": _graded_by_word(metrics),
            },
            answer_label="\\boxed{} ",
        )

    def report_summary(self, records: list[ItemRecord], per_category: dict) -> TemplateView | None:
        graded = [r.metrics or {} for r in records if "exact_match" in (r.metrics or {})]
        if not graded:
            return None
        by = _graded_by(graded[0])
        grades = []
        for key, label in GRADE_LABELS:
            made = [m[key] for m in graded if m.get(key) is not None]
            grades.append(
                {
                    "label": label,
                    "accuracy": f"{100 * sum(made) / len(made):.1f}%" if made else "—",
                    "made": f"{sum(made)}/{len(made)} right" if made else "not made (no --judge-model)",
                    "is_correct": (key == "judge_verdict") == (by == "judge"),
                }
            )
        return TemplateView("bv_summary.html.j2", {"grades": grades})
