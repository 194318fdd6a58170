"""How `show` presents a judged item (the field's formats): what was read from the reply, by what, and each
judge call (the judge's reply, model, tokens, cost, and whether the run's cache answered it)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape

from agent_eval.analysis.item_images import ItemImages
from agent_eval.benchmarks.presentation import ReadingHooks, RunOnDisk
from agent_eval.datamodel.records import ItemRecord


class JudgedHooks(ReadingHooks):
    """A kind whose metrics hold what was read (`read_key`) and its judge calls; the group column is its own."""

    read_label = "answer read"
    read_key = "answer"

    def show_item(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None
    ) -> object | None:
        return record  # the outcome lines need only the record

    def show_outcome(self, console: Console, record: ItemRecord, state: object) -> None:
        metrics = record.metrics or {}
        decided = metrics.get("decided_by")
        how = f" (by the {decided})" if decided else ""
        console.print(f"  {self.read_label}: {escape(str(metrics.get(self.read_key)))}{how}")
        if record.status == "ungraded":
            console.print(f"  [yellow]ungraded[/]: {escape(record.error or '')}")
        for n, call in enumerate(metrics.get("judge_calls") or [], start=1):
            usage = call.get("usage") or {}
            cost = call.get("cost_usd")
            money = f", ${cost:.4f}" if isinstance(cost, (int, float)) else ""
            cached = ", from the run's cache" if call.get("cached") else ""
            reply = call.get("reply")
            said = escape(repr(reply)) if reply is not None else f"[red]failed[/]: {escape(call.get('error') or '')}"
            console.print(
                f"  judge call {n} ({escape(call.get('model') or '')}, {usage.get('input_tokens')} in / "
                f"{usage.get('output_tokens')} out tokens{money}{cached}): {said}"
            )
