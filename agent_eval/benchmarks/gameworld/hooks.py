"""How GameWorld runs read: show, report and compare reach this kind only through these hooks (GameWorld's suite
measures, success rate and mean progress; each task's timeline and filmstrip)."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from rich.console import Console

from agent_eval.analysis.comparison_result import Group, KindComparison
from agent_eval.analysis.item_images import ItemImages
from agent_eval.analysis.measures import KindMeasure
from agent_eval.benchmarks.games.reading import GameReading
from agent_eval.benchmarks.presentation import (
    ItemView,
    ReportedItem,
    RunOnDisk,
    TemplateView,
)
from agent_eval.datamodel.records import ItemRecord


class GameWorldReading(GameReading):
    """A task reads as GameWorld's suite reports it: success, and progress beside it; grouped by game."""

    accuracy_name = "success rate"
    right_words = "solved"
    live_module = "agent_eval.benchmarks.gameworld.live"
    report_css = "gw.css.j2"
    templates_dir = Path(__file__).resolve().parent / "templates"

    def group_of(self, record: ItemRecord) -> str:
        return record.task

    def rungs(self, tools: str | None, kind_options: dict | None) -> dict[str, object] | None:
        from agent_eval.benchmarks.gameworld.rung import Rung

        try:
            return Rung.from_options(kind_options or {}).rungs(tools or "none", kind_options or {})
        except ValueError:
            return None

    def measures(self) -> list[KindMeasure]:
        return _part("measures").MEASURES

    # -- show (each hook one call into its module, imported when first used)
    def show_totals(self, console: Console, run: RunOnDisk) -> str:
        return _part("show").totals_phrase(run.records)

    def show_item(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None
    ) -> object | None:
        return self.show_item_page(console, run, record, images, data, 0)  # 0: the first and last pages

    def show_item_page(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None, page: int
    ) -> object | None:
        return _part("show").print_timeline(console, record, images.base, page or None, run.root)

    def show_outcome(self, console: Console, record: ItemRecord, state: object) -> None:
        assert isinstance(state, _part("grading").TaskMetrics), state  # what show_item returned
        _part("show").print_outcome(console, record, state)

    # -- compare
    def compare(
        self, runs: Sequence[RunOnDisk], letters: list[str], groups: list[Group], n_resamples: int, seed: int
    ) -> KindComparison:  # compare.py's TasksComparison
        return _part("compare").compared(runs, letters, list(groups[0].ids), n_resamples, seed)

    # -- report
    def report_item(self, item: ReportedItem) -> ItemView:
        return _part("report").task_view(item.record, item.images, item.embed)

    def report_summary(self, records: list[ItemRecord], per_category: dict) -> TemplateView:
        return TemplateView("gw_summary.html.j2", _part("report").task_summary(records))


def _part(name: str) -> ModuleType:
    """One of this kind's reading modules (measures, show, report, compare, grading), imported when first needed."""
    return importlib.import_module(f"agent_eval.benchmarks.gameworld.{name}")
