"""What the game kinds' readings share (their hooks.py subclass it): the game column, the item's folder that holds
the game as played (nothing of the dataset is needed to report it), and a game as it goes, read by the kind's
live.py (`progress` for `watch` and the live report, `replay` for `show --replay`). The browser kinds' readings
(BrowserReading) are each hook one call into the kind's module of that name, imported when first used:
measures.MEASURES; show.totals_phrase, print_timeline (what it returns is handed to print_outcome) and
print_outcome; compare.compared."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType

from rich.console import Console

from agent_eval.analysis.comparison_result import Group, KindComparison
from agent_eval.analysis.item_images import ItemImages
from agent_eval.analysis.measures import KindMeasure
from agent_eval.benchmarks.presentation import (
    GameProgress,
    ItemView,
    ReadingHooks,
    ReplayFrame,
    ReportedItem,
    RunOnDisk,
    TemplateView,
)
from agent_eval.datamodel.records import ItemRecord


def sampled(count: int, most: int, kept: Iterable[int] = ()) -> set[int]:
    """Which of a game's `count` timeline entries its report draws: all of them when few; else `most` evenly spaced,
    the `kept` ones (the kind's marks: a restart, a reset) and the last."""
    if count <= most:
        return set(range(count))
    return {round(k * (count - 1) / (most - 1)) for k in range(most)} | set(kept) | {count - 1}


class GameReading(ReadingHooks):
    group_column = "game"
    live_module: str  # "agent_eval.benchmarks.<kind>.live", imported when a game is first watched
    # the report: the kind's report module's game_item and game_summary in these templates (a kind whose report
    # reads otherwise, gameworld's, overrides report_item and report_summary)
    report_module: str  # "agent_eval.benchmarks.<kind>.report", imported when a report is made
    item_template: str  # the item view's (ItemView.template)
    figures_template: str  # in place of the original image: a game has none
    chips_template: str | None = None  # the item's summary line, if the kind has its own
    summary_template: str
    answer_label = "game: "  # before the item's answer

    def game_progress(self, item_root: Path) -> GameProgress | None:
        return importlib.import_module(self.live_module).progress(item_root)

    def replay_frames(self, item_root: Path) -> list[ReplayFrame]:
        return importlib.import_module(self.live_module).replay(item_root)

    def report_truth(self, run: RunOnDisk, data: Path | None, loaded: dict) -> object | None:
        return {}  # the item's folder holds the game as played: the report asks for the item view only when not None

    def report_item(self, item: ReportedItem) -> ItemView:
        record = item.record
        values = importlib.import_module(self.report_module).game_item(item.run, record, item.images, item.embed)
        return ItemView(
            template=self.item_template,
            values=values,
            chips_template=self.chips_template,
            figures_template=self.figures_template,
            group=self.group_of(record),
            answer_label=self.answer_label,
        )

    def report_summary(self, records: list[ItemRecord], per_category: dict) -> TemplateView:
        return TemplateView(self.summary_template, importlib.import_module(self.report_module).game_summary(records))


class BrowserReading(GameReading):
    package: str  # "agent_eval.benchmarks.<kind>"

    def part(self, name: str) -> ModuleType:
        return importlib.import_module(f"{self.package}.{name}")

    def measures(self) -> list[KindMeasure]:
        return self.part("measures").MEASURES

    def show_totals(self, console: Console, run: RunOnDisk) -> str:
        return self.part("show").totals_phrase(run.records)

    def show_item(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None
    ) -> object | None:
        return self.show_item_page(console, run, record, images, data, 0)  # 0: the first and last pages

    def show_item_page(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None, page: int
    ) -> object | None:
        return self.part("show").print_timeline(console, record, images.base, page or None, run.root)

    def show_outcome(self, console: Console, record: ItemRecord, state: object) -> None:
        self.part("show").print_outcome(console, record, state)  # state: what print_timeline returned

    def compare(
        self, runs: Sequence[RunOnDisk], letters: list[str], groups: list[Group], n_resamples: int, seed: int
    ) -> KindComparison:
        return self.part("compare").compared(runs, letters, list(groups[0].ids), n_resamples, seed)
