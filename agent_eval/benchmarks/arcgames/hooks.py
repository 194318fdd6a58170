"""How ARC-AGI-3 runs read: show, report and compare reach this kind only through these hooks (game
score, wins and levels; each game's timeline and filmstrip)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from agent_eval.analysis.comparison_result import Group
from agent_eval.analysis.item_images import ItemImages
from agent_eval.analysis.measures import KindMeasure
from agent_eval.benchmarks.games import reading as game_reading
from agent_eval.benchmarks.presentation import RunOnDisk
from agent_eval.datamodel.records import ItemRecord

if TYPE_CHECKING:  # the kind's comparison is built (and imported) only when runs are compared
    from agent_eval.benchmarks.arcgames.compare import GamesComparison

TEMPLATES = Path(__file__).resolve().parent / "templates"


class GameReading(game_reading.GameReading):
    def rungs(self, tools: str | None, kind_options: dict | None) -> dict[str, object] | None:
        from agent_eval.benchmarks.arcgames.ladder import Ladder
        from agent_eval.benchmarks.games.protocol import Protocol

        options = kind_options or {}
        try:
            rungs = Ladder.from_options(options).rungs(tools or "none", options)
            protocol = Protocol.from_options(options)
        except ValueError:
            return None
        # beside the rungs, how the episode runs (protocol.py): a run differing in it differs in one thing too
        rungs["episode (first frame, actions per observation, early stops, task prompt)"] = (
            "first frame shown" if protocol.initial_frame else "first frame after a play",
            "batches" if protocol.action_batches else "one action per observation",
            f"continued, {protocol.recoveries} fresh sessions" if protocol.early_stop == "continue" else "graded",
            protocol.task_prompt,
        )
        return rungs

    package = "agent_eval.benchmarks.arcgames"
    live_module = "agent_eval.benchmarks.arcgames.live"
    report_module = "agent_eval.benchmarks.arcgames.report"
    item_template, figures_template, chips_template = "arc_item.html.j2", "arc_figures.html.j2", "arc_chips.html.j2"
    summary_template = "arc_summary.html.j2"
    accuracy_name = "games won"
    right_words = "won"
    templates_dir = TEMPLATES
    report_css = "arc.css.j2"
    side_by_side = False  # one game per task: the per-game table says it

    def group_of(self, record: ItemRecord) -> str:
        return record.id

    def measures(self) -> list[KindMeasure]:
        return self.part("metrics").MEASURES

    # -- show
    def show_totals(self, console: Console, run: RunOnDisk) -> str:
        from agent_eval.benchmarks.arcgames.show import print_scorecards, totals_phrase

        print_scorecards(console, run.manifest)
        return totals_phrase(run.records)

    def show_item_page(
        self, console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None, page: int
    ) -> object | None:
        from agent_eval.benchmarks.arcgames.show import with_closed_card

        return with_closed_card(super().show_item_page(console, run, record, images, data, page), run.manifest)

    # -- compare
    def compare(
        self, runs: Sequence[RunOnDisk], letters: list[str], groups: list[Group], n_resamples: int, seed: int
    ) -> GamesComparison:
        from agent_eval.benchmarks.arcgames.compare import GamesComparison, build_games, game_verdicts

        games = build_games(runs, list(groups[0].ids), n_resamples, seed)
        return GamesComparison(verdicts=game_verdicts(letters, games), games=games)
