"""`agent-eval sweep FILE.yaml`: a grid of agents x models x efforts x tool modes (x repeats) over one
dataset selection. Every cell is an ordinary resumable run (one results dir each); cells run in
parallel within one global --jobs limit; at the end one compare table and one accuracy-vs-cost plot."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console

from agent_eval.benchmarks import load_benchmark
from agent_eval.datamodel.config import ConfigError
from agent_eval.datamodel.jsonl import DataError
from agent_eval.datamodel.results import ResultsError
from agent_eval.engine.selection import select
from agent_eval.engine.sweeps import SweepError, load_sweep, plan_table, run_sweep
from agent_eval.reading.grid import write_grid_comparison


@click.command("sweep")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--plan", is_flag=True, help="List the cells, the number of agent runs and what is already done; run nothing."
)
@click.option("--jobs", type=int, default=None, help="Global limit on agents running at once (overrides the file).")
def command(file, plan, jobs):
    """Run a YAML grid of agents, models, efforts, tool modes and repeats (resumable), then compare them."""
    console = Console()
    try:
        sweep = load_sweep(file)
        if jobs is not None:
            sweep.jobs = jobs
        if plan:
            from agent_eval.engine.selection import resolve_data_dir

            _, dataset = load_benchmark(resolve_data_dir(Path(sweep.data) if sweep.data else None, console))
            table, _, _ = plan_table(sweep, len(select(dataset, **sweep.selection)))
            console.print(table)
            return
        roots = run_sweep(sweep, console)
        write_grid_comparison(roots, sweep.root, console)
    except (SweepError, DataError, ConfigError, ResultsError) as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
