"""Output that fits the terminal: of several layouts of the same content, widest first, the first that fits
the width it is drawn in. The narrower layouts leave out what matters least, so at 80 columns names and
numbers stay whole (names may wrap) while a bar, a column or the words beside the numbers go."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.progress import Progress, ProgressColumn
from rich.table import Table

UNBOUNDED = 100_000


class Whole:
    """A cell that must not wrap: measured at its full width (rich measures any text by its longest word)."""

    def __init__(self, renderable: RenderableType):
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.renderable

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = Measurement.get(console, options, self.renderable).maximum
        return Measurement(width, width)


class FirstThatFits:
    """Draws the first layout whose narrowest form (each cell at its longest word) fits; else the last."""

    def __init__(self, layouts: Sequence[RenderableType]):
        self.layouts = list(layouts)

    def chosen(self, console: Console, options: ConsoleOptions) -> RenderableType:
        unbounded = options.update_width(UNBOUNDED)  # a table measured within the width never says it is wider
        for layout in self.layouts[:-1]:
            if Measurement.get(console, unbounded, layout).minimum <= options.max_width:
                return layout
        return self.layouts[-1]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.chosen(console, options)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.chosen(console, options))


class FittingProgress(Progress):
    """A rich Progress drawn in the first of its layouts (lists of columns, widest first) that fits."""

    def __init__(self, *layouts: Sequence[ProgressColumn], **kwargs):
        self.layouts = [list(columns) for columns in layouts]  # before Progress's __init__, which draws
        super().__init__(*layouts[0], **kwargs)

    def get_renderables(self) -> Iterable[RenderableType]:
        yield _ProgressRows(self, [task for task in self.tasks if task.visible])


class _ProgressRows:
    """The progress rows of one redraw: each column drawn and measured once, whichever layouts hold it."""

    def __init__(self, progress: FittingProgress, tasks: list):
        self.progress = progress
        self.drawn: dict[int, list[RenderableType]] = {}
        for column in (column for columns in progress.layouts for column in columns):
            if id(column) not in self.drawn:
                whole = column.get_table_column().no_wrap
                self.drawn[id(column)] = [Whole(column(task)) if whole else column(task) for task in tasks]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        unbounded = options.update_width(UNBOUNDED)
        narrowest = {
            key: max((Measurement.get(console, unbounded, cell).minimum for cell in cells), default=0)
            for key, cells in self.drawn.items()
        }
        layouts = self.progress.layouts
        fits = (
            columns
            for columns in layouts[:-1]
            if sum(narrowest[id(c)] for c in columns) + len(columns) - 1 <= options.max_width  # 1 space between
        )
        yield self._table(next(fits, layouts[-1]))

    def _table(self, columns: list[ProgressColumn]) -> Table:
        table_columns = (column.get_table_column().copy() for column in columns)
        table = Table.grid(*table_columns, padding=(0, 1), expand=self.progress.expand)
        for row in zip(*(self.drawn[id(column)] for column in columns)):
            table.add_row(*row)
        return table
