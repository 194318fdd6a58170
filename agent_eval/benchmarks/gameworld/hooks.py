"""How GameWorld runs read: show, report and compare reach this kind only through these hooks (GameWorld's suite
measures, success rate and mean progress; each task's timeline and filmstrip)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from agent_eval.analysis.comparison_result import Group
from agent_eval.analysis.item_images import ItemImages
from agent_eval.benchmarks.presentation import Embed, ItemView, ReadingHooks, RunOnDisk, TemplateView
from agent_eval.datamodel.records import ItemRecord
from agent_eval.datamodel.transcript import Transcript

if TYPE_CHECKING:  # built (and imported) only when runs are compared
    from agent_eval.benchmarks.gameworld.compare import TasksComparison

TEMPLATES = Path(__file__).resolve().parent / "templates"


class GameWorldReading(ReadingHooks):
    group_column = "game"
    accuracy_name = "success rate"
    templates_dir = TEMPLATES
    report_css = "gw.css.j2"

    def group_of(self, record: ItemRecord) -> str:
        return record.task

    def rungs(self, tools: str | None, kind_options: dict | None) -> dict[str, object] | None:
        from agent_eval.benchmarks.gameworld.rung import Rung

        try:
            return Rung.from_options(kind_options or {}).rungs(tools or "none", kind_options or {})
        except ValueError:
            return None

    # -- show
    def show_totals(self, console: Console, run: RunOnDisk) -> str:
        from agent_eval.benchmarks.gameworld.show import totals_phrase

        return totals_phrase(run.records)

    def show_item(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None
    ) -> object | None:
        from agent_eval.benchmarks.gameworld.show import print_timeline

        return print_timeline(console, record, images.base, None, run.root)

    def show_item_page(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None, page: int
    ) -> object | None:
        from agent_eval.benchmarks.gameworld.show import print_timeline

        return print_timeline(console, record, images.base, page, run.root)

    def show_outcome(self, console: Console, record: ItemRecord, state: object) -> None:
        from agent_eval.benchmarks.gameworld.grading import TaskMetrics
        from agent_eval.benchmarks.gameworld.show import print_outcome

        assert isinstance(state, TaskMetrics), state  # what show_item returned
        print_outcome(console, record, state)

    # -- compare
    def compare(
        self, runs: Sequence[RunOnDisk], letters: list[str], groups: list[Group], n_resamples: int, seed: int
    ) -> TasksComparison:
        from agent_eval.benchmarks.gameworld.compare import TasksComparison, build_tasks, task_verdicts

        tasks = build_tasks(runs, list(groups[0].ids), n_resamples, seed)
        return TasksComparison(verdicts=task_verdicts(letters, tasks), tasks=tasks)

    # -- report
    def report_truth(self, run: RunOnDisk, data: Path | None, loaded: dict) -> object | None:
        """Nothing of the dataset is needed (the item's folder holds the task as played)."""
        return {}

    def report_item(
        self,
        run: RunOnDisk,
        record: ItemRecord,
        images: ItemImages,
        embed: Embed,
        transcript: Transcript | None,
        truth: object,
    ) -> ItemView:
        from agent_eval.benchmarks.gameworld.report import task_item

        return ItemView(
            template="gw_item.html.j2",
            values=task_item(record, images, embed),
            chips_template="gw_chips.html.j2",
            figures_template="gw_figures.html.j2",
            group=record.task,
            answer_label="task: ",
        )

    def report_summary(self, records: list[ItemRecord], per_category: dict) -> TemplateView:
        from agent_eval.benchmarks.gameworld.report import task_summary

        return TemplateView("gw_summary.html.j2", task_summary(records))
