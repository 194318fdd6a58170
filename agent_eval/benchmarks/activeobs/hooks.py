"""How active-observation runs read: show, report and compare reach this kind only through these hooks
(answer, evidence, combined and hallucination per family; the views and evidence of each item)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from agent_eval.analysis.comparison_result import Group
from agent_eval.analysis.item_images import ItemImages
from agent_eval.benchmarks.presentation import (
    GlanceView,
    ItemView,
    PartialFilter,
    ReadingHooks,
    ReportedItem,
    RunOnDisk,
    TemplateView,
)
from agent_eval.datamodel.records import ItemRecord

if TYPE_CHECKING:
    from agent_eval.benchmarks.activeobs.compare import ActiveComparison
    from agent_eval.benchmarks.activeobs.evidence import RunTruth

TEMPLATES = Path(__file__).resolve().parent / "templates"
PARTIAL = PartialFilter(  # the report's filter for half credit
    label="right answer, wrong evidence",
    title="active observation: the answer is right but the evidence does not support it",
)


class ActiveReading(ReadingHooks):
    group_column = "family"
    marks = (("evidence", "evidence_correct"), ("combined", "combined"))
    accuracy_name = "answer accuracy"
    templates_dir = TEMPLATES
    report_css = "active.css.j2"
    side_by_side = False  # one task, and the family table says more

    def group_of(self, record: ItemRecord) -> str:
        return record.category

    # -- show
    def show_totals(self, console: Console, run: RunOnDisk) -> str:
        from agent_eval.benchmarks.activeobs.show import print_active_totals

        return print_active_totals(console, run)

    def show_item(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None
    ) -> object | None:
        from agent_eval.benchmarks.activeobs.show import print_observations
        from agent_eval.benchmarks.notes import print_notes

        state = print_observations(console, run, record, images, data)
        print_notes(console, images.base)
        return state

    def show_outcome(self, console: Console, record: ItemRecord, state: object) -> None:
        from agent_eval.benchmarks.activeobs.evidence import Evidence
        from agent_eval.benchmarks.activeobs.show import print_evidence

        assert isinstance(state, Evidence), state  # what this kind's show_item returned
        print_evidence(console, record, state)

    # -- compare
    def compare(
        self, runs: Sequence[RunOnDisk], letters: list[str], groups: list[Group], n_resamples: int, seed: int
    ) -> ActiveComparison:
        from agent_eval.analysis.group_tests import add_holm
        from agent_eval.benchmarks.activeobs.compare import TESTED, ActiveComparison, active_verdicts, build_active

        families = [Group("family", g.name, g.ids) for g in groups if g.scope == "category"]
        active = build_active(runs, [groups[0], *families], n_resamples, seed)
        add_holm(active["rows"], ("family",), tuple(f"{m}_vs_first" for m, _ in TESTED))
        return ActiveComparison(verdicts=active_verdicts(letters, active), active=active)

    # -- report
    def report_truth(self, run: RunOnDisk, data: Path | None, loaded: dict) -> RunTruth:
        from agent_eval.benchmarks.activeobs.evidence import RunTruth
        from agent_eval.benchmarks.activeobs.loader import is_active_dataset

        return RunTruth(run, data if data and is_active_dataset(data) else None, loaded)

    def report_item(self, item: ReportedItem) -> ItemView:
        from agent_eval.benchmarks.activeobs.report import active_item
        from agent_eval.benchmarks.notes import versions, where_words

        view = active_item(item)
        view["agent_notes"] = [{**v, "where": where_words(v)} for v in versions(item.images.base)]
        return ItemView(
            template="active_item.html.j2",
            values=view,
            chips_template="active_chips.html.j2",
            figures_template="active_figures.html.j2",
            outcome_template="active_outcome.html.j2",
            changed_template="active_changed.html.j2",
            group=item.record.category,
            answer_label="answer: ",
            partial=item.record.correct and not view["combined"],  # right answer, wrong evidence: half credit
            question=view.get("question"),
        )

    def report_summary(self, records: list[ItemRecord], per_category: dict) -> TemplateView:
        from agent_eval.benchmarks.activeobs.report import active_summary

        return TemplateView("active_summary.html.j2", active_summary(records, per_category))

    def report_glance(self, run_views: list[dict]) -> GlanceView | None:
        from agent_eval.benchmarks.activeobs.report import active_glance

        glance = active_glance(run_views)
        return GlanceView("active_glance.html.j2", glance, partial_filter=PARTIAL) if glance else None
