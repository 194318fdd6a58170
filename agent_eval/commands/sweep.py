"""`agent-eval sweep FILE.yaml`: a grid of agents x models x efforts x tool modes (x repeats) over one
dataset selection, any `run` option given to every cell. Every cell is an ordinary resumable run (one results dir
each); cells run in parallel within one global --jobs limit; at the end one compare table and one accuracy-vs-cost
plot. Before anything runs it prints the plan and its projected cost, and refuses a cell projected past its cap."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console

from agent_eval.commands.options import sweep_options
from agent_eval.datamodel.config import ConfigError
from agent_eval.datamodel.jsonl import DataError
from agent_eval.datamodel.pricing import PricingError
from agent_eval.datamodel.results import ResultsError
from agent_eval.engine.sweep_plan import plan_notes, plan_sweep, plan_table
from agent_eval.engine.sweeps import SweepError, load_sweep, run_sweep
from agent_eval.reading.grid import write_grid_comparison


@click.command("sweep")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--plan",
    is_flag=True,
    help="Print the cells, their item runs, what is done, and the projected tokens, dollars and hours; run nothing "
    "(with --pilot: run the pilot only).",
)
@click.option("--jobs", type=int, default=None, help="Global limit on agents running at once (overrides the file).")
@click.option(
    "--pilot",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="First run N items of each cell (spread over the selection, once each) and project the rest from them; "
    "their results are kept, so the sweep resumes them.",
)
@click.option(
    "--max-cost-usd",
    type=float,
    default=None,
    help="Spend cap per cell (overrides the file's max_cost_usd); a sweep whose projection passes it does not start.",
)
@click.option("--over-budget-ok", is_flag=True, help="Start even if a cell's projected cost passes its cap.")
def command(file, plan, jobs, pilot, max_cost_usd, over_budget_ok):
    """Run a YAML grid of agents, models, efforts, tool modes and repeats (resumable), then compare them."""
    console = Console()
    try:
        sweep = load_sweep(file, sweep_options())
        if jobs is not None:
            sweep.jobs = jobs
        if max_cost_usd is not None:
            sweep.run["max_cost_usd"] = max_cost_usd
        if pilot:
            run_sweep(sweep, console, pilot=pilot)
        projection = plan_sweep(sweep, console)
        console.print(plan_table(projection))
        for line in plan_notes(projection):
            console.print(line, highlight=False)
        if plan:
            return
        refusal = projection.refusal()
        if refusal and not over_budget_ok:
            raise ConfigError(refusal)
        roots = run_sweep(sweep, console)
        write_grid_comparison(roots, sweep.root, console)
    except (SweepError, DataError, ConfigError, ResultsError, PricingError) as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
