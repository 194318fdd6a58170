"""How BabyVision runs read: items grouped by subtype (their task; the type is their category), and each
item's \\boxed{} answer with the judge's verdict."""

from __future__ import annotations

from agent_eval.benchmarks.base import ReadingHooks


class BabyVisionHooks(ReadingHooks):
    group_column = "subtype"

    def show_item(self, console, run, record, images, data):
        return record

    def show_outcome(self, console, record, state) -> None:
        from agent_eval.benchmarks.judgedshow import print_judged

        print_judged(console, record, "\\boxed{} answer", (record.metrics or {}).get("extracted"))
