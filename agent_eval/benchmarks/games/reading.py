"""What the game kinds' readings share (their hooks.py subclass it): the game column, the item's folder that holds
the game as played (nothing of the dataset is needed to report it), a game as it goes (the kind's live_module:
`progress` for `watch`, `replay` for `show --replay`), an item's show (the kind's show module), compare's two tables
(GameTables) and show's pages (print_paged). The browser kinds' other hooks (BrowserReading) call their own modules."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from agent_eval.analysis.comparison_result import Comparison, Group, KindComparison, Markdown
from agent_eval.analysis.item_images import ItemImages
from agent_eval.analysis.measures import KindMeasure
from agent_eval.analysis.tables import cells_table
from agent_eval.benchmarks.presentation import (
    GameProgress,
    ItemView,
    ReadingHooks,
    ReplayFrame,
    ReportedItem,
    RunOnDisk,
    TemplateView,
)
from agent_eval.datamodel.records import ItemRecord

PAGE = 50  # timeline entries (moves, play calls, steps) per page


def sampled(count: int, most: int, kept: Iterable[int] = ()) -> set[int]:
    """Which of a game's `count` timeline entries its report draws: all of them when few; else `most` evenly spaced,
    the `kept` ones (the kind's marks: a restart, a reset) and the last."""
    if count <= most:
        return set(range(count))
    return {round(k * (count - 1) / (most - 1)) for k in range(most)} | set(kept) | {count - 1}


class GameReading(ReadingHooks):
    group_column = "game"
    live_module: str  # "agent_eval.benchmarks.<kind>.live", imported when a game is first watched
    # the report: the kind's report module's game_item and game_summary in these templates (a kind whose report
    # reads otherwise, gameworld's, overrides report_item and report_summary)
    report_module: str  # "agent_eval.benchmarks.<kind>.report", imported when a report is made
    item_template: str  # the item view's (ItemView.template)
    figures_template: str  # in place of the original image: a game has none
    chips_template: str | None = None  # the item's summary line, if the kind has its own
    summary_template: str
    answer_label = "game: "  # before the item's answer
    package: str  # "agent_eval.benchmarks.<kind>": its show module's print_timeline and print_outcome

    def part(self, name: str) -> ModuleType:
        return importlib.import_module(f"{self.package}.{name}")

    def show_item(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None
    ) -> object | None:
        return self.show_item_page(console, run, record, images, data, 0)  # 0: the first and last pages

    def show_item_page(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None, page: int
    ) -> object | None:
        return self.part("show").print_timeline(console, record, images.base, page or None, run.root)

    def show_outcome(self, console: Console, record: ItemRecord, state: object) -> None:
        self.part("show").print_outcome(console, record, state)  # state: what print_timeline returned

    def game_progress(self, item_root: Path) -> GameProgress | None:
        return importlib.import_module(self.live_module).progress(item_root)

    def replay_frames(self, item_root: Path) -> list[ReplayFrame]:
        return importlib.import_module(self.live_module).replay(item_root)

    def report_truth(self, run: RunOnDisk, data: Path | None, loaded: dict) -> object | None:
        return {}  # the item's folder holds the game as played: the report asks for the item view only when not None

    def report_item(self, item: ReportedItem) -> ItemView:
        record = item.record
        values = importlib.import_module(self.report_module).game_item(item.run, record, item.images, item.embed)
        return ItemView(
            template=self.item_template,
            values=values,
            chips_template=self.chips_template,
            figures_template=self.figures_template,
            group=self.group_of(record),
            answer_label=self.answer_label,
        )

    def report_summary(self, records: list[ItemRecord], per_category: dict) -> TemplateView:
        return TemplateView(self.summary_template, importlib.import_module(self.report_module).game_summary(records))


class BrowserReading(GameReading):
    def measures(self) -> list[KindMeasure]:
        return self.part("measures").MEASURES

    def show_totals(self, console: Console, run: RunOnDisk) -> str:
        return self.part("show").totals_phrase(run.records)

    def compare(
        self, runs: Sequence[RunOnDisk], letters: list[str], groups: list[Group], n_resamples: int, seed: int
    ) -> KindComparison:
        return self.part("compare").compared(runs, letters, list(groups[0].ids), n_resamples, seed)


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
    last = max(1, -(-len(timeline) // PAGE))
    parts = [timeline]
    if page is not None:
        page = min(max(1, page), last)
        title, parts = f"{title}, page {page} of {last}", [timeline[(page - 1) * PAGE : page * PAGE]]
    elif last > 2:
        title = f"{title}: the first and the last page of {last}"
        parts = [timeline[:PAGE], timeline[(last - 1) * PAGE :]]
    console.print(Rule(title))
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
