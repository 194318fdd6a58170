"""How ARC-AGI-3 runs read: show, report and compare reach this kind only through these hooks (game
score, wins and levels; each game's timeline and filmstrip)."""

from __future__ import annotations

from pathlib import Path

from agent_eval.benchmarks.base import ReadingHooks

TEMPLATES = Path(__file__).resolve().parent / "templates"


class GameReading(ReadingHooks):
    group_column = "game"
    accuracy_name = "games won"
    templates_dir = TEMPLATES
    report_css = "arc.css.j2"
    side_by_side = False  # one game per task: the per-game table says it

    def group_of(self, record) -> str:
        return record.id

    # -- show
    def show_totals(self, console, run) -> str:
        from agent_eval.benchmarks.arcgames.show import totals_phrase

        return totals_phrase(run.records)

    def show_item(self, console, run, record, images, data):
        from agent_eval.benchmarks.arcgames.show import print_timeline

        return print_timeline(console, record, images.base)

    def show_outcome(self, console, record, state) -> None:
        from agent_eval.benchmarks.arcgames.show import print_scorecard

        print_scorecard(console, record, state)

    # -- compare
    def compare(self, runs, letters, groups, n_resamples, seed) -> dict:
        from agent_eval.benchmarks.arcgames.compare import build_games, game_verdicts

        games = build_games(runs, list(groups[0][2]), n_resamples, seed)
        return {"games": games, "verdicts": game_verdicts(letters, games)}

    def compare_table(self, data, console) -> bool:
        from agent_eval.benchmarks.arcgames.compare import render_games

        render_games(data, console)
        return True

    def compare_markdown(self, data, md):
        from agent_eval.benchmarks.arcgames.compare import markdown_parts

        return markdown_parts(data, md)

    def compare_csv(self, data):
        from agent_eval.benchmarks.arcgames.compare import csv_rows

        return list(csv_rows(data))

    # -- report
    def report_truth(self, run, data, loaded):
        """Nothing of the dataset is needed (the item's folder holds the game as played), but the report asks
        the kind for its item view only when this is not None."""
        return {}

    def report_item(self, run, record, images, embed, transcript, truth):
        from agent_eval.benchmarks.arcgames.report import game_item

        return {
            **game_item(run, record, images, embed),
            "template": "arc_item.html.j2",
            "chips_template": "arc_chips.html.j2",
            "group": record.id,
            "answer_label": "game: ",
        }

    def report_summary(self, records, per_category):
        from agent_eval.benchmarks.arcgames.report import game_summary

        return {**game_summary(records), "template": "arc_summary.html.j2"}
