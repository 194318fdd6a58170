"""The accuracy table printed at the end of a run (and by `agent-eval summary`)."""
from __future__ import annotations

from rich.table import Table


def _money(value: float | None, unknown: int) -> str:
    if value is None:
        return "unknown" if unknown else "-"
    text = f"${value:.2f}"
    return f"{text} (+{unknown} unknown)" if unknown else text


def _row(table: Table, name: str, summary: dict, style: str | None = None) -> None:
    accuracy = summary["accuracy"]
    table.add_row(
        name, str(summary["n"]), str(summary["correct"]),
        f"{accuracy:.1%}" if accuracy is not None else "-",
        str(summary["errors"]) if summary["errors"] else "0",
        str(summary["no_answer"]),
        _money(summary["cost_usd"], summary["cost_unknown"]),
        f"{summary['elapsed_s']:.0f}s",
        style=style,
    )


def accuracy_table(rollup: dict, title: str) -> Table:
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
    return table
