"""How ARC-AGI-3 runs read: show, report and compare reach this kind only through these hooks (game
score, wins and levels; each game's timeline and filmstrip)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from agent_eval.analysis.comparison_result import Comparison, Group, KindComparison, Measure
from agent_eval.analysis.item_images import ItemImages
from agent_eval.benchmarks.presentation import Embed, ItemView, Markdown, ReadingHooks, TemplateView
from agent_eval.datamodel.records import ItemRecord
from agent_eval.datamodel.transcript import Transcript

if TYPE_CHECKING:
    from agent_eval.reading.runs import LoadedRun

TEMPLATES = Path(__file__).resolve().parent / "templates"


@dataclass
class GamesComparison(KindComparison):
    """Wins, mean game score, levels and actions per completed level per run, with their paired tests
    (compare.py's build_games: "overall" and "games")."""

    games: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"games": self.games}

    def table_measures(self) -> list[Measure]:
        row = self.games["overall"]
        per_game = f"paired permutation test on the {row['scored']} scored games"
        return [
            Measure("mean game score (0-100)", row["score"], vs_first=row["score_vs_first"], test=per_game),
            Measure(
                "levels completed (total)",
                row["levels"],
                vs_first=row["levels_vs_first"],
                test="paired permutation test per game",
                change_name="levels completed per game",
            ),
            Measure("actions per completed level", row["actions_per_level"]),
        ]


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
    def show_totals(self, console: Console, run: LoadedRun) -> str:
        from agent_eval.benchmarks.arcgames.show import totals_phrase

        return totals_phrase(run.records)

    def show_item(
        self, console: Console, run: LoadedRun, record: ItemRecord, images: ItemImages, data: Path | None
    ) -> object | None:
        from agent_eval.benchmarks.arcgames.show import print_timeline

        return print_timeline(console, record, images.base, None, run.root)

    def show_item_page(
        self, console: Console, run: LoadedRun, record: ItemRecord, images: ItemImages, data: Path | None, page: int
    ) -> object | None:
        from agent_eval.benchmarks.arcgames.show import print_timeline

        return print_timeline(console, record, images.base, page, run.root)

    def show_outcome(self, console: Console, record: ItemRecord, state: object) -> None:
        from agent_eval.benchmarks.arcgames.show import print_scorecard

        print_scorecard(console, record, state)

    # -- compare
    def compare(
        self, runs: list[LoadedRun], letters: list[str], groups: list[Group], n_resamples: int, seed: int
    ) -> GamesComparison:
        from agent_eval.benchmarks.arcgames.compare import build_games, game_verdicts

        games = build_games(runs, list(groups[0].ids), n_resamples, seed)
        return GamesComparison(verdicts=game_verdicts(letters, games), games=games)

    def compare_table(self, data: Comparison, console: Console) -> bool:
        from agent_eval.benchmarks.arcgames.compare import render_games

        render_games(data, console)
        return True

    def compare_markdown(self, data: Comparison, md: Markdown) -> list[str] | None:
        from agent_eval.benchmarks.arcgames.compare import markdown_parts

        return markdown_parts(data, md)

    def compare_csv(self, data: Comparison) -> list[list] | None:
        from agent_eval.benchmarks.arcgames.compare import csv_rows

        return list(csv_rows(data))

    # -- report
    def report_truth(self, run: LoadedRun, data: Path | None, loaded: dict) -> object | None:
        """Nothing of the dataset is needed (the item's folder holds the game as played), but the report asks
        the kind for its item view only when this is not None."""
        return {}

    def report_item(
        self,
        run: LoadedRun,
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
