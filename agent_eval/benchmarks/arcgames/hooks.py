"""How ARC-AGI-3 runs read: show, report and compare reach this kind only through these hooks (game
score, wins and levels; each game's timeline and filmstrip)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from agent_eval.analysis.comparison_result import Comparison, Group, KindComparison, Markdown
from agent_eval.analysis.item_images import ItemImages
from agent_eval.benchmarks.presentation import Embed, ItemView, ReadingHooks, RunOnDisk, TemplateView
from agent_eval.datamodel.records import ItemRecord
from agent_eval.datamodel.transcript import Transcript

TEMPLATES = Path(__file__).resolve().parent / "templates"


@dataclass
class GamesComparison(KindComparison):
    """Wins, mean game score, levels and actions per completed level per run, with their paired tests
    (compare.py's build_games: "overall" and "games")."""

    games: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"games": self.games}

    def print_table(self, data: Comparison, console: Console) -> bool:
        from agent_eval.benchmarks.arcgames.compare import render_games

        render_games(data, console)
        return True

    def markdown_parts(self, data: Comparison, md: Markdown) -> list[str] | None:
        from agent_eval.benchmarks.arcgames.compare import markdown_parts

        return markdown_parts(data, md)

    def csv_rows(self, data: Comparison) -> list[list] | None:
        from agent_eval.benchmarks.arcgames.compare import csv_rows

        return list(csv_rows(data))


class GameReading(ReadingHooks):
    def rungs(self, tools: str | None, kind_options: dict | None) -> dict[str, object] | None:
        from agent_eval.benchmarks.arcgames.ladder import Ladder

        try:
            return Ladder.from_options(kind_options or {}).rungs(tools or "none", kind_options or {})
        except ValueError:
            return None

    group_column = "game"
    accuracy_name = "games won"
    templates_dir = TEMPLATES
    report_css = "arc.css.j2"
    side_by_side = False  # one game per task: the per-game table says it

    def group_of(self, record: ItemRecord) -> str:
        return record.id

    # -- show
    def show_totals(self, console: Console, run: RunOnDisk) -> str:
        from agent_eval.benchmarks.arcgames.show import totals_phrase

        return totals_phrase(run.records)

    def show_item(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None
    ) -> object | None:
        from agent_eval.benchmarks.arcgames.show import print_timeline

        return print_timeline(console, record, images.base, None, run.root)

    def show_item_page(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None, page: int
    ) -> object | None:
        from agent_eval.benchmarks.arcgames.show import print_timeline

        return print_timeline(console, record, images.base, page, run.root)

    def show_outcome(self, console: Console, record: ItemRecord, state: object) -> None:
        from agent_eval.benchmarks.arcgames.show import print_scorecard

        print_scorecard(console, record, state)

    # -- compare
    def compare(
        self, runs: list[RunOnDisk], letters: list[str], groups: list[Group], n_resamples: int, seed: int
    ) -> GamesComparison:
        from agent_eval.benchmarks.arcgames.compare import build_games, game_verdicts

        games = build_games(runs, list(groups[0].ids), n_resamples, seed)
        return GamesComparison(verdicts=game_verdicts(letters, games), games=games)

    # -- report
    def report_truth(self, run: RunOnDisk, data: Path | None, loaded: dict) -> object | None:
        """Nothing of the dataset is needed (the item's folder holds the game as played), but the report asks
        the kind for its item view only when this is not None."""
        return {}

    def report_item(
        self,
        run: RunOnDisk,
        record: ItemRecord,
        images: ItemImages,
        embed: Embed,
        transcript: Transcript | None,
        truth: object,
    ) -> ItemView:
        from agent_eval.benchmarks.arcgames.report import game_item

        return ItemView(
            template="arc_item.html.j2",
            values=game_item(run, record, images, embed),
            chips_template="arc_chips.html.j2",
            figures_template="arc_figures.html.j2",  # a game has no original image
            group=record.id,
            answer_label="game: ",
        )

    def report_summary(self, records: list[ItemRecord], per_category: dict) -> TemplateView:
        from agent_eval.benchmarks.arcgames.report import game_summary

        return TemplateView("arc_summary.html.j2", game_summary(records))
