"""The comparison of a sweep's cells: compare's tables and the accuracy-vs-cost plot, written beside the grid."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console


def write_grid_comparison(roots: list[Path], out: Path, console: Console) -> None:
    """One compare table (markdown + json) and the accuracy-vs-cost plot for the whole grid."""
    import json

    from agent_eval.reading.compare_render import render_markdown, render_table
    from agent_eval.reading.comparison import build
    from agent_eval.reading.plots import accuracy_cost_plot
    from agent_eval.reading.runs import load_run

    # A grid varies several things at once by design (a game's rungs and the agent, say): compared anyway, and its
    # notes say which pairs differ in more than one thing, instead of the whole sweep ending in an error.
    data = build([load_run(root) for root in roots], force=True)
    render_table(data, console)
    (out / "compare.md").write_text(render_markdown(data))
    (out / "compare.json").write_text(json.dumps(data.to_json(), indent=1, ensure_ascii=False))
    accuracy_cost_plot(data, out / "accuracy-vs-cost.png")
    console.print(f"wrote {out / 'compare.md'}, {out / 'compare.json'} and {out / 'accuracy-vs-cost.png'}")
