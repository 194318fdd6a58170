"""A game kind's part of `compare` as two tables of ready cells, alike in every game kind: the runs side by side,
then each game (or task) by run; printed, in markdown under their headings, and the second as compare's CSV."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console

from agent_eval.analysis.comparison_result import Comparison, KindComparison, Markdown
from agent_eval.analysis.tables import cells_table


@dataclass(frozen=True)
class Cells:
    title: str  # the printed table's title
    heading: str  # what markdown says before it
    header: list[str]
    body: list[list[str]]


@dataclass
class GameTables(KindComparison):
    """A kind subclasses it with its figures' fields and gives `tables()`: the runs' table, then the per-game one."""

    def tables(self, data: Comparison) -> tuple[Cells, Cells]:
        raise NotImplementedError

    def print_table(self, data: Comparison, console: Console) -> bool:
        for cells in self.tables(data):
            console.print(cells_table(cells.title, cells.header, cells.body))
        return True

    def markdown_parts(self, data: Comparison, md: Markdown) -> list[str] | None:
        return [part for cells in self.tables(data) for part in (cells.heading, md(cells.header, cells.body))]

    def csv_rows(self, data: Comparison) -> list[list] | None:
        per = self.tables(data)[1]
        return [per.header, *per.body]
