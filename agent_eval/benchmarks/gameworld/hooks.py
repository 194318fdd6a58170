"""How GameWorld runs read: show, report and compare reach this kind only through these hooks (GameWorld's suite
measures, success rate and mean progress; each task's timeline and filmstrip)."""

from __future__ import annotations

from pathlib import Path

from agent_eval.benchmarks.games.reading import BrowserReading
from agent_eval.datamodel.records import ItemRecord


class GameWorldReading(BrowserReading):
    """A task reads as GameWorld's suite reports it: success, and progress beside it; grouped by game."""

    package = "agent_eval.benchmarks.gameworld"
    report_module = "agent_eval.benchmarks.gameworld.report"
    item_template, figures_template = "gw_item.html.j2", "gw_figures.html.j2"
    summary_template = "gw_summary.html.j2"
    answer_label = "task: "
    accuracy_name = "success rate"
    right_words = "solved"
    live_module = "agent_eval.benchmarks.gameworld.live"
    report_css = "gw.css.j2"
    templates_dir = Path(__file__).resolve().parent / "templates"

    def group_of(self, record: ItemRecord) -> str:
        return record.task

    def rungs(self, tools: str | None, kind_options: dict | None) -> dict[str, object] | None:
        from agent_eval.benchmarks.gameworld.rung import Rung

        try:
            return Rung.from_options(kind_options or {}).rungs(tools or "none", kind_options or {})
        except ValueError:
            return None
