"""`agent-eval slurm`: submit a run or a sweep to Slurm as one array of shards plus a merge job,
follow it with `status`; `merge` is what the dependent job runs. The work is in engine/slurm/;
see docs/scale-out.md.

__init__.py     the command group and its three commands: submit, status, merge
run_options.py  the `run` options submit takes: the task's command line and the RunConfig from them
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from click.core import ParameterSource
from rich.console import Console

from agent_eval.agents.base import AuthMissing
from agent_eval.commands.options import sweep_options
from agent_eval.commands.slurm.run_options import SELECTION, given, run_args, run_config, run_params
from agent_eval.datamodel.config import ConfigError
from agent_eval.datamodel.jsonl import DataError
from agent_eval.datamodel.results import ResultsError
from agent_eval.engine.slurm.merge import merge_shards
from agent_eval.engine.slurm.plan import load_plan
from agent_eval.engine.slurm.status import show_status
from agent_eval.engine.slurm.submission import Queueing, submit_run, submit_sweep
from agent_eval.engine.sweep_plan import plan_sweep
from agent_eval.engine.sweeps import SweepError, load_sweep


@click.group("slurm")
def command():
    """Run on a Slurm cluster: submit (array of shards + merge job), status, merge."""


@command.command("submit")
@click.option("--shards", type=click.IntRange(min=1), required=True, help="Split each run into N array tasks.")
@click.option(
    "--sweep",
    "sweep_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="Submit a sweep file instead: its cells x shards become one array.",
)
@click.option(
    "--sbatch",
    "sbatch_text",
    default="",
    metavar='"ARGS"',
    help='Passed to sbatch for every job, e.g. "--partition=gpu --time=12:00:00 --cpus-per-task=4 '
    '--mem=16G --account=lab".',
)
@click.option(
    "--no-submit", is_flag=True, help="Write the scripts and job.json, print the sbatch command, queue nothing."
)
@click.option(
    "--over-budget-ok", is_flag=True, help="With --sweep: submit even if a cell's projected cost passes its cap."
)
@click.pass_context
def submit(ctx, shards, sweep_file, sbatch_text, no_submit, over_budget_ok, **values):
    """Run on Slurm: an array of N shard tasks per run (each `agent-eval run --shard K/N`, resumable
    under requeue) and a job that merges them, after all tasks end, into one run laid out as a
    single-machine run. Takes the `run` options (--jobs is per task) or --sweep FILE. The scripts,
    job.json, logs and shard folders go to OUT_DIR/NAME.slurm/; the merged run to OUT_DIR/NAME."""
    console = Console()
    queueing = Queueing(shards, sbatch_text, no_submit)
    try:
        if sweep_file:
            typed = [p.opts[0] for p in given(ctx, values) if p.name != "jobs"]
            if typed:
                raise ConfigError(
                    f"with --sweep the sweep file says what to run; drop {', '.join(typed)} "
                    f"(only --jobs, per task, may be given)"
                )
            jobs = values["jobs"] if ctx.get_parameter_source("jobs") == ParameterSource.COMMANDLINE else None
            try:
                sweep = load_sweep(sweep_file, sweep_options())
            except SweepError as error:
                raise ConfigError(str(error)) from None
            refusal = plan_sweep(sweep, console).refusal()  # the cells' projected cost against their cap
            if refusal and not over_budget_ok:
                raise ConfigError(refusal)
            submit_sweep(sweep, jobs, queueing, console)
        else:
            config = run_config(values)
            target = Path(values["out_dir"]) / (values["run_name"] or config.run_name)
            selection = {key: values[key] for key in SELECTION}
            submit_run(config, values["data"], selection, run_args(ctx, values), target, queueing, console)
    except (ConfigError, DataError, ResultsError, AuthMissing) as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)


submit.params.extend(run_params())


@command.command("status")
@click.argument("results", type=click.Path(path_type=Path))
def status(results):
    """Per-shard progress, failures and missing items of a Slurm submission (its .slurm folder or the
    merged run / sweep folder), the tasks' Slurm states where squeue or sacct answers, and the merge."""
    try:
        show_status(load_plan(results), Console())
    except ResultsError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)


@command.command("merge")
@click.argument("folder", type=click.Path(path_type=Path, exists=True, file_okay=False))
def merge(folder):
    """Merge a submission's shards once its tasks have ended (the dependent job runs this); names the
    missing items and the resubmit command instead of merging a partial run (exit 1)."""
    from agent_eval.reading.grid import write_grid_comparison

    console = Console()
    try:
        plan = load_plan(folder)
        roots = merge_shards(plan, console)
        if roots is not None and plan.kind == "sweep":
            write_grid_comparison(roots, Path(plan.target), console)
    except ResultsError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    sys.exit(0 if roots is not None else 1)
