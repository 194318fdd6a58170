"""A long game's timeline as `show` pages it, alike in every game kind: PAGE entries a page; page N when asked,
else the first and the last page when there are more than two, else all of it, under a rule saying which; as a
table, the entries left out between two parts counted, and how to see the others."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

PAGE = 50  # timeline entries (moves, play calls, steps) per page


def page_count(entries: int) -> int:
    return max(1, -(-entries // PAGE))


def paged(console: Console, timeline: list, page: int | None, title: str) -> tuple[list[list], int]:
    """The parts of `timeline` to show and the last page's number, after a rule headed `title` (the kind's words
    with the entries' count) that says which pages these are."""
    last = page_count(len(timeline))
    if page is not None:
        page = min(max(1, page), last)
        console.print(Rule(f"{title}, page {page} of {last}"))
        return [timeline[(page - 1) * PAGE : page * PAGE]], last
    if last > 2:
        console.print(Rule(f"{title}: the first and the last page of {last}"))
        return [timeline[:PAGE], timeline[(last - 1) * PAGE :]], last
    console.print(Rule(title))
    return [timeline], last


def print_paged(
    console: Console,
    timeline: list[dict],
    page: int | None,
    title: str,
    columns: Sequence[tuple[str, str, bool]],
    row: Callable[[dict], tuple[list[str], str | None]],
    number: str,
    hint: tuple[str, str],
    gap_at: int = 1,
) -> int:
    """The timeline's pages as one table: `columns` (name, justify, no_wrap), `row(entry)` an entry's cells and
    style; between two parts, how many entries (numbered by the key `number`) are not shown, in column `gap_at`.
    `hint`: (the entries' noun, the show command of the item), said when there are more pages. The last page's
    number."""
    parts, last = paged(console, timeline, page, title)
    table = Table(header_style="bold")
    for name, justify, no_wrap in columns:
        table.add_column(name, justify=justify, no_wrap=no_wrap)  # type: ignore[arg-type]
    for index, part in enumerate(parts):
        if index:
            gap = ["…"] + [""] * (len(columns) - 1)
            gap[gap_at] = f"({part[0][number] - parts[index - 1][-1][number] - 1} not shown)"
            table.add_row(*gap, style="dim")
        for entry in part:
            cells, style = row(entry)
            table.add_row(*cells, style=style)
    console.print(table)
    if last > 1 or page is not None:
        noun, command = hint
        console.print(Text(f"pages 1-{last} of {PAGE} {noun}: {command} --page N", style="dim"))
    return last


def show_command(record, run_dir) -> str:
    """How to show an item again: `agent-eval show RUN ID`, with its repeat."""
    return f"agent-eval show {run_dir or 'RUN'} {record.id}" + (f" --repeat {record.repeat}" if record.repeat else "")
