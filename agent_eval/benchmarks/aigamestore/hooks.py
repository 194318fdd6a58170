"""How AI GameStore runs read: show, report and compare reach this kind only through these hooks (normalised
scores and their geometric mean; each game's moves and filmstrips)."""

from __future__ import annotations

from pathlib import Path

from agent_eval.benchmarks.games.reading import BrowserReading
from agent_eval.datamodel.records import ItemRecord


class GameStoreReading(BrowserReading):
    package = "agent_eval.benchmarks.aigamestore"
    live_module = "agent_eval.benchmarks.aigamestore.show"
    report_module = "agent_eval.benchmarks.aigamestore.report"
    item_template, figures_template = "ags_item.html.j2", "ags_figures.html.j2"
    summary_template = "ags_summary.html.j2"
    accuracy_name = "games at or above the human median"
    right_words = "brought to the human median"
    templates_dir = Path(__file__).resolve().parent / "templates"
    report_css = "ags.css.j2"
    side_by_side = False  # one game per task: the per-game table says it

    def group_of(self, record: ItemRecord) -> str:
        return record.id

    def rungs(self, tools: str | None, kind_options: dict | None) -> dict[str, object] | None:
        """The protocol is a rung of its own (the official baseline or VISTA's), beside the tool mode; so is each of
        --profile vista's switches (VISTA's words, its redirect of a final reply, the steps never told)."""
        options = kind_options or {}
        return {
            "protocol": options.get("protocol", "vista"),
            "tools": tools,
            "notes": options.get("notes", "off"),
            "real time": options.get("realtime", "off"),
            "decisions": options.get("decisions"),
            "task prompt": options.get("task_prompt", "ours"),
            "final answer": options.get("final_answer", "ends"),
            "steps told": options.get("tell_steps", "on"),
            "game tools": options.get("game_tools", "ours"),
            "action batches": options.get("action_batches", "on"),
        }
