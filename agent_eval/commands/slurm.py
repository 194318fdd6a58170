"""`agent-eval slurm`: submit a run or a sweep to Slurm as one array of shards plus a merge job,
follow it with `status`; `merge` is what the dependent job runs. The work is in engine/slurm/;
see docs/scale-out.md."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import click
from click.core import ParameterSource
from rich.console import Console

from agent_eval.agents.base import AuthMissing
from agent_eval.commands.options import run_options, sweep_options
from agent_eval.datamodel.config import ConfigError, RunConfig
from agent_eval.datamodel.jsonl import DataError
from agent_eval.datamodel.results import ResultsError
from agent_eval.engine.slurm.merge import merge_shards
from agent_eval.engine.slurm.plan import load_plan
from agent_eval.engine.slurm.status import show_status
from agent_eval.engine.slurm.submission import Queueing, submit_run, submit_sweep
from agent_eval.engine.sweep_plan import plan_sweep
from agent_eval.engine.sweeps import SweepError, load_sweep

# Run options a task does not take from the user: it gets its own shard, folder and name, and a
# requeued task must resume its shard, never start it over.
NOT_PASSED = ("shard", "redo", "out_dir", "run_name")
SELECTION = ("tasks", "ids", "categories", "limit")


@click.group("slurm")
def command():
    """Run on a Slurm cluster: submit (array of shards + merge job), status, merge."""


def _run_params() -> list[click.Parameter]:
    """The `run` command's own options, so submit takes and checks exactly what `run` takes."""
    params = []
    for param in click.command()(run_options(lambda **_: None)).params:
        if param.name in ("shard", "redo"):
            continue
        param = copy.copy(param)
        param.required = False  # --agent/--model are not needed with --sweep; checked below
        params.append(param)
    return params


def _given(ctx: click.Context, values: dict) -> list[click.Parameter]:
    """The run options the user typed or set (not left at their defaults)."""
    return [
        param
        for param in ctx.command.params
        if param.name in values
        and values[param.name] is not None
        and ctx.get_parameter_source(param.name) not in (ParameterSource.DEFAULT, None)
    ]


def _run_args(ctx: click.Context, values: dict) -> list[str]:
    """The run options the user gave, as the command line every task gets (the engine adds --data)."""
    args = []
    for param in _given(ctx, values):
        if param.name in NOT_PASSED or param.name == "data":
            continue
        if getattr(param, "is_flag", False):
            args += [param.opts[0]] if values[param.name] else []
        else:
            args += [param.opts[0], str(values[param.name])]
    return args


def _run_config(values: dict) -> RunConfig:
    if not values["agent"] or not values["model"]:
        raise ConfigError("--agent and --model are required (or --sweep FILE)")
    return RunConfig(
        agent=values["agent"],
        model=values["model"],
        effort=values["effort"],
        tools=values["tools"],
        sandbox=values["sandbox"],
        max_turns=values["max_turns"],
        max_item_cost_usd=values["max_item_cost_usd"],
        max_item_tokens=values["max_item_tokens"],
        timeout_s=values["timeout_s"],
        jobs=values["jobs"],
        repeats=values["repeats"],
        max_cost_usd=values["max_cost_usd"],
        unpriced=values["unpriced"],
        outage_hold_minutes=values["outage_hold_minutes"],
        system_prompt=values["system_prompt"],
        silent_minutes=values["silent_minutes"],
    )


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
            given = [p.opts[0] for p in _given(ctx, values) if p.name != "jobs"]
            if given:
                raise ConfigError(
                    f"with --sweep the sweep file says what to run; drop {', '.join(given)} "
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
            config = _run_config(values)
            target = Path(values["out_dir"]) / (values["run_name"] or config.run_name)
            selection = {key: values[key] for key in SELECTION}
            submit_run(config, values["data"], selection, _run_args(ctx, values), target, queueing, console)
    except (ConfigError, DataError, ResultsError, AuthMissing) as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)


submit.params.extend(_run_params())


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
