"""How a benchmark kind presents its runs: the ReadingHooks that show, report and compare call (they never
import a kind), and the typed views the hooks return. Every default presents plain accuracy per task; JudgedHooks
presents the field's judged formats.

The runs passed in are the reader's own objects; a kind knows them as RunOnDisk, the part it reads, and never
names the reader, not even in annotations. How a comparison renders is the
KindComparison's own (analysis/comparison_result.py), returned by compare()."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from rich.console import Console
from rich.markup import escape

from agent_eval.analysis.comparison_result import Group, KindComparison
from agent_eval.analysis.item_images import Img, ItemImages
from agent_eval.analysis.measures import KindMeasure
from agent_eval.datamodel.manifest import RunIdentity, RunManifest
from agent_eval.datamodel.records import ItemRecord
from agent_eval.datamodel.transcript import Transcript


class RunOnDisk(Protocol):
    """What a kind reads of a run (the reader's loaded run is one): its results folder, run.json and records."""

    @property
    def root(self) -> Path: ...
    @property
    def manifest(self) -> RunManifest | None: ...
    @property
    def config(self) -> RunIdentity: ...
    @property
    def records(self) -> list[ItemRecord]: ...


Embed = Callable[[str, str], Img]  # (path in the item dir, caption) -> an image the report embeds


@dataclass(frozen=True)
class ReportedItem:
    """One item as the report reads it for its kind view: the run, the record, the item folder's images, how to embed
    one, the transcript (None: not readable) and the run's report_truth."""

    run: RunOnDisk
    record: ItemRecord
    images: ItemImages
    embed: Embed
    transcript: Transcript | None
    truth: object


@dataclass
class ItemView:
    """One item's kind view in the report, read by its templates as `item.kind`."""

    template: str  # included below the question
    values: dict = field(default_factory=dict)  # what the kind's templates read (`item.kind.<key>`)
    chips_template: str | None = None  # the summary line
    figures_template: str | None = None  # in place of the original image
    outcome_template: str | None = None  # below the grade
    changed_template: str | None = None  # one side of a changed item
    group: str | None = None  # the label beside the id
    answer_label: str | None = None  # before the prediction
    partial: bool = False  # half credit: shown as ½
    question: str | None = None  # the question, when the dataset is not at hand

    def for_template(self) -> dict:
        named = {k: v for k, v in vars(self).items() if k != "values" and v is not None}  # absent: the default
        return {**self.values, **named}


@dataclass
class TemplateView:
    """A section of the report a kind draws: its template (in the kind's templates_dir) and what it reads."""

    template: str
    values: dict = field(default_factory=dict)

    def for_template(self) -> dict:
        return {**self.values, "template": self.template}


@dataclass
class PartialFilter:
    """A report filter for half-credit items (e.g. right answer, wrong evidence)."""

    label: str
    title: str


@dataclass
class GlanceView(TemplateView):
    partial_filter: PartialFilter | None = None

    def for_template(self) -> dict:
        shown = vars(self.partial_filter) if self.partial_filter else None
        return {**super().for_template(), "partial_filter": shown}


@dataclass
class GameProgress:
    """A game's progress so far, the host's view (never shown to the model), read from the item's folder while it
    plays (`watch`, the live report) and after."""

    moves: int  # actions, decisions or steps taken so far
    move_word: str  # what a move is called in this kind: "action", "decision", "step"
    last_move: str | None = None  # the last one, in words
    levels: str | None = None  # "1/2": levels completed of the game's
    episodes: int | None = None  # 1 + the restarts so far (None: the kind has none)
    score: str | None = None  # the score so far, in words
    state: str | None = None  # the game's state after the last move (e.g. NOT_FINISHED, GAME_OVER, playing)
    budget: int | None = None  # the moves allowed (None: unknown here)
    frames: int = 0  # frames archived so far
    last_frame: Path | None = None  # the newest frame's PNG
    game_s: float | None = None  # the game's clock: seconds played


@dataclass
class ReplayFrame:
    """One frame of a game's replay: the archived PNG, its caption (the move that led to it), how long it shows."""

    path: Path
    caption: str
    duration_ms: int


class ReadingHooks:
    """What a benchmark kind adds when its runs are read."""

    # -- a kind whose items have a score, not a right answer (a game)
    def measures(self) -> list[KindMeasure]:
        """The kind's own measures (analysis/measures.py), the first its headline: the end-of-run table, `show`'s
        items table, the report's items and findings and compare's headline show them in their own columns and
        words in place of accuracy and right or wrong. None: accuracy."""
        return []

    # -- show: the items table and the run's totals line
    group_column = "task"  # the items table's grouping column
    marks: tuple[tuple[str, str], ...] = ()  # extra ✓/✗ columns: (column name, metrics key)

    def group_of(self, record: ItemRecord) -> str:
        return record.task

    def show_totals(self, console: Console, run: RunOnDisk) -> str | None:
        """The totals phrase of `show` (may print its own table first); None: accuracy n/N."""
        return None

    def show_item(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None
    ) -> object | None:
        """Printed after one item's transcript; what it returns is handed to show_outcome (None: nothing)."""
        return None

    def show_item_page(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None, page: int
    ) -> object | None:
        """`show RUN ITEM --page N`: a kind whose item part is long pages it (a game's timeline); others
        print what show_item prints."""
        return self.show_item(console, run, record, images, data)

    def show_outcome(self, console: Console, record: ItemRecord, state: object) -> None:
        """Printed under the grade line of one item when show_item returned something."""

    # -- a game's progress and replay (watch, report --live, show --replay): from the item's folder alone, so they
    # read a game still being played as well as one that ended
    def game_progress(self, item_root: Path) -> GameProgress | None:
        """The game's progress so far (None: not a game, or it has not started)."""
        return None

    def replay_frames(self, item_root: Path) -> list[ReplayFrame]:
        """Every frame the game recorded, in order, each captioned with the move that produced it (empty: none)."""
        return []

    # -- compare: the kind's own part of a comparison, and how it renders
    accuracy_name = "accuracy"  # what the main accuracy measures, in compare's sentences
    right_words = "got right"  # what an item's `correct` means, after "only B" (a game: "won")

    def rungs(self, tools: str | None, kind_options: dict | None) -> dict[str, object] | None:
        """What a run offers the agent, rung by rung (a kind whose runs form an ablation ladder): compare pairs
        two runs of one model only when they differ in one rung. None: no such rule for this kind."""
        return None

    def compare(
        self, runs: Sequence[RunOnDisk], letters: list[str], groups: list[Group], n_resamples: int, seed: int
    ) -> KindComparison | None:
        """The kind's own metrics and tests on the same groups (the first is overall); the object returned also
        renders them (its table, Markdown, CSV and plot points)."""
        return None

    # -- report: views for the HTML report's templates (each kind may bring its own templates dir)
    templates_dir: Path | None = None
    report_css: str | None = None  # a stylesheet template (<style>...</style>) in templates_dir
    side_by_side = True  # the per-task side-by-side table means something

    def report_truth(self, run: RunOnDisk, data: Path | None, loaded: dict) -> object | None:
        """What the report needs to draw this run's items against the truth (None: nothing); `loaded` is
        shared across the report's runs, so a dataset is loaded once."""
        return None

    def report_item(self, item: ReportedItem) -> ItemView | None:
        """An item's kind view (needs report_truth's object)."""
        return None

    def report_summary(self, records: list[ItemRecord], per_category: dict) -> TemplateView | None:
        """A run summary's kind section."""
        return None

    def report_glance(self, run_views: list[dict]) -> GlanceView | None:
        """The at-a-glance section across runs."""
        return None


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
