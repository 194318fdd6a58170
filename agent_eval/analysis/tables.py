"""The accuracy table printed at the end of a run (and by `agent-eval summary`)."""

from __future__ import annotations

from typing import Any

from rich.table import Table


def _money(value: float | None, unknown: int) -> str:
    if value is None:
        return "unknown" if unknown else "-"
    text = f"${value:.2f}"
    return f"{text} (+{unknown} unknown)" if unknown else text


def _row(table: Table, name: str, summary: dict[str, Any], style: str | None = None) -> None:
    accuracy = summary["accuracy"]
    shown = f"{accuracy:.1%}" if accuracy is not None else "-"
    if "accuracy_std" in summary:  # repeats: mean ± sample std across repeats
        shown = f"{summary['accuracy_mean']:.1%} ± {summary['accuracy_std']:.1%}"
    table.add_row(
        name,
        str(summary["n"]),
        str(summary["correct"]),
        shown,
        str(summary["errors"]) if summary["errors"] else "0",
        str(summary["no_answer"]),
        _money(summary["cost_usd"], summary["cost_unknown"]),
        f"{summary['elapsed_s']:.0f}s",
        style=style,
    )


def accuracy_table(rollup: dict[str, Any], title: str) -> Table:
    """Per task, per category and overall; harness errors count as wrong and have their own column."""
    table = Table(title=title, title_justify="left")
    for column in ("", "n", "correct", "accuracy", "errors", "no answer", "cost", "time"):
        table.add_column(column, justify="left" if not column else "right")
    for task, summary in rollup["per_task"].items():
        _row(table, task, summary)
    table.add_section()
    for category, summary in rollup["per_category"].items():
        _row(table, category, summary, style="cyan")
    table.add_section()
    _row(table, "overall", rollup["overall"], style="bold")
    not_run = rollup.get("not_run") or {}
    notes: list[str] = []
    if not_run.get("cost_cap"):
        notes.append(
            f"{not_run['cost_cap']} item(s) not run: recorded cost reached --max-cost-usd {not_run['max_cost_usd']:g}"
        )
    stopped = rollup["overall"].get("budget_exceeded")
    if stopped:
        notes.append(
            f"{stopped} item(s) stopped by a spend cap (budget_exceeded): not graded, left out of accuracy; "
            "run again with a higher cap to finish them"
        )
    failed_upstream = (rollup["overall"].get("statuses") or {}).get("upstream_error")
    if failed_upstream:
        notes.append(
            f"{failed_upstream} item(s) upstream_error: the provider failed them (counted wrong, not graded); "
            "run the same command again to run them once it recovers"
        )
    ungraded = rollup["overall"].get("ungraded")
    if ungraded:
        notes.append(f"{ungraded} item(s) ungraded (no judge model): left out of accuracy")
    unknown = rollup["overall"]["cost_unknown"]
    if unknown:
        notes.append(f"{unknown} item(s) with unknown cost")
    table.caption = "; ".join(notes) or None
    return table
