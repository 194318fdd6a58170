"""How VLMEvalKit TSV runs read: items grouped by the TSV's `category` (their task; `l2-category` is
their category), and each item's option as read by the rules or the judge."""

from __future__ import annotations

from agent_eval.benchmarks.base import ReadingHooks


class VlmEvalHooks(ReadingHooks):
    group_column = "category"

    def show_item(self, console, run, record, images, data):
        return record

    def show_outcome(self, console, record, state) -> None:
        from agent_eval.benchmarks.judgedshow import print_judged

        print_judged(console, record, "option read", (record.metrics or {}).get("option"))
