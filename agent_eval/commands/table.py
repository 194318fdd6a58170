"""`agent-eval table RUN...`: the runs as a paper prints them (rows agent × model × effort, columns tool modes),
in Markdown, LaTeX or CSV, with the notes a reader needs; `--plot PATH` writes the accuracy-versus-cost figure
(PNG and SVG). The numbers are compare's (reading/paper_table.py); docs/studies.md says how to read them."""

from __future__ import annotations

from pathlib import Path

import click

from agent_eval.analysis.stats import N_RESAMPLES, SEED
from agent_eval.reading.paper_figure import write_figure
from agent_eval.reading.paper_render import render_csv, render_latex, render_markdown
from agent_eval.reading.paper_table import build_table
from agent_eval.reading.runs import load_run


@click.command("table")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["markdown", "latex", "csv"]), default="markdown", show_default=True)
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the accuracy-versus-cost figure: PATH as PNG and beside it the same name as SVG.",
)
@click.option("--force", is_flag=True, help="Lay out runs whose scorer or dataset hashes (or game rungs) differ.")
@click.option("--resamples", default=N_RESAMPLES, show_default=True, help="Resamples for the bootstrap CIs.")
@click.option("--seed", default=SEED, show_default=True, help="Resampling seed (fixed: same CI and p every time).")
def command(runs, fmt, plot, force, resamples, seed):
    """Lay RUN... out as the seeds' tables do: accuracy [95% CI], the change against tools=none with its paired
    test (Holm-adjusted over the table), cost and tokens per item, the kind's own measures, and notes on versions,
    prices, dates, repeats and items left out."""
    table = build_table([load_run(path) for path in runs], force=force, n_resamples=resamples, seed=seed)
    click.echo({"markdown": render_markdown, "latex": render_latex, "csv": render_csv}[fmt](table), nl=False)
    if plot:
        for written in write_figure(table, plot):
            click.echo(f"figure written to {written}", err=True)
