"""How VLMEvalKit TSV runs read: items grouped by the TSV's `category` (their task; `l2-category` is
their category), and each item's option as read by the rules or the judge, with the judge's calls."""

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


class VlmEvalHooks(ReadingHooks):
    group_column = "category"

    def show_item(
        self, console: Console, run: LoadedRun, record: ItemRecord, images: ItemImages, data: Path | None
    ) -> object | None:
        return record  # the outcome lines need only the record

    def show_outcome(self, console: Console, record: ItemRecord, state: object) -> None:
        print_judged(console, record, "option read", (record.metrics or {}).get("option"))
