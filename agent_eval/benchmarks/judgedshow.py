"""How `show` prints a judged item's grade: what was read from the reply, by what, and each judge call
(the judge's reply, model, tokens, cost, and whether the run's cache answered it)."""

from __future__ import annotations

from rich.markup import escape


def print_judged(console, record, read_label: str, read_value) -> None:
    metrics = record.metrics or {}
    decided = metrics.get("decided_by")
    how = f" (by the {decided})" if decided else ""
    console.print(f"  {read_label}: {escape(str(read_value))}{how}")
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
