"""`agent-eval compare RUN_A RUN_B [RUN...]`: accuracy side by side with paired statistics.

Every run is compared with the first on the items all runs share: exact McNemar p and a
bootstrap 95% CI for the paired accuracy difference, per task, per category and overall;
then cost, time, turns and tool calls per item. Results of the benchmark's own no-tool
evaluation (no run.json) are accepted, with a note that their hashes are unknown.
A benchmark kind adds its own metrics through its ReadingHooks (active observation:
answer/evidence/combined/hallucination per family);
runs of different benchmarks are refused. Item by item (docs/compare.md names the JSON fields):
the items that changed (changes.py), tool use and broken ablations (tool_use.py), repeats and
noise (repeats.py), cost per right answer (efficiency.py); compare_sections.py lays them out.
Group p-values get a Holm-adjusted column; with repeats a permutation test joins the sign test.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console

from agent_eval.analysis.stats import N_RESAMPLES, SEED
from agent_eval.reading import compare_sections as sections
from agent_eval.reading.compare_render import render_csv, render_markdown, render_table
from agent_eval.reading.comparison import build
from agent_eval.reading.runs import RunError, load_run


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(["table", "markdown", "csv", "json"]), default="table", show_default=True
)
@click.option(
    "--table",
    "csv_table",
    type=click.Choice(sections.CSV_TABLES),
    default="accuracy",
    show_default=True,
    help="Which table --format csv writes: accuracy and paired tests per group; changed (the items only one "
    "run got right); tools (tool use per run); repeats (flip rate, majority and all-K accuracy); "
    "items (each item's share of right repeats per run).",
)
@click.option(
    "--plot", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write an accuracy-vs-cost PNG."
)
@click.option(
    "--plot-by",
    type=click.Choice(["run", "task"]),
    default="run",
    show_default=True,
    help="--plot: one point per run, or one per run per task (tasks joined across runs).",
)
@click.option("--force", is_flag=True, help="Compare even when scorer or dataset hashes differ.")
@click.option(
    "--resamples",
    default=N_RESAMPLES,
    show_default=True,
    help="Resamples for the bootstrap CI, and for the permutation test when its 2^m sign patterns do not fit.",
)
@click.option("--seed", default=SEED, show_default=True, help="Resampling seed (fixed: same CI and p every time).")
def command(runs, fmt, csv_table, plot, plot_by, force, resamples, seed):
    """Compare RUN_A with RUN_B [RUN...]: per-task/category/overall accuracy with paired tests (Holm-adjusted
    per group), cost and time per item and per right answer, repeats (flip rate, majority and all-K
    accuracy, a permutation test on per-item shares), tool use per run (answered blind, broken ablations),
    and the items only one run got right with the commands that open both transcripts."""
    if len(runs) < 2:
        raise RunError("compare needs at least two runs")
    if csv_table != "accuracy" and fmt != "csv":
        raise RunError(
            f"--table {csv_table} chooses the table of --format csv; add --format csv "
            "(the other formats show every table)"
        )
    data = build([load_run(path) for path in runs], force=force, n_resamples=resamples, seed=seed)
    if fmt == "table":
        render_table(data, Console(highlight=False))
    else:
        click.echo(
            {
                "markdown": render_markdown,
                "csv": lambda d: render_csv(d, csv_table),
                "json": lambda d: json.dumps(d.to_json(), indent=1, ensure_ascii=False) + "\n",
            }[fmt](data),
            nl=False,
        )
    if plot:
        from agent_eval.reading.plots import accuracy_cost_plot

        accuracy_cost_plot(data, plot, by=plot_by)
        click.echo(f"plot written to {plot}", err=True)
