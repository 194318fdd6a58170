"""How BabyVision runs read: items grouped by subtype (their task; the type is their category), and each
item's \\boxed{} answer with the judge's verdict and calls."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from agent_eval.analysis.item_images import ItemImages
from agent_eval.benchmarks.judgedshow import print_judged
from agent_eval.benchmarks.presentation import ReadingHooks
from agent_eval.datamodel.records import ItemRecord

if TYPE_CHECKING:
    from agent_eval.reading.runs import LoadedRun


class BabyVisionHooks(ReadingHooks):
    group_column = "subtype"

    def show_item(
        self, console: Console, run: LoadedRun, record: ItemRecord, images: ItemImages, data: Path | None
    ) -> object | None:
        return record  # the outcome lines need only the record

    def show_outcome(self, console: Console, record: ItemRecord, state: object) -> None:
        print_judged(console, record, "\\boxed{} answer", (record.metrics or {}).get("extracted"))
