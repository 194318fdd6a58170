"""How a browser kind's runs read (its hooks.py subclasses BrowserReading): each hook one call into the kind's
module of that name, imported when first used: measures.MEASURES; show.totals_phrase, show.print_timeline (its
return value is what show.print_outcome is handed) and show.print_outcome; compare.compared; report.game_item and
report.game_summary in the kind's templates (games/reading.py)."""

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
from agent_eval.benchmarks.presentation import RunOnDisk
from agent_eval.datamodel.records import ItemRecord


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
