"""`agent-eval slurm submit`: a run (the `run` options) or a sweep as one Slurm array of cells x
shards, plus a merge job after all of it. Everything is checked here, before anything is queued."""

from __future__ import annotations

import copy
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
from click.core import ParameterSource
from rich.console import Console

from agent_eval.agents import get_agent
from agent_eval.agents.base import AuthMissing
from agent_eval.agents.registry import efforts_by_agent
from agent_eval.benchmarks import load_benchmark, registry
from agent_eval.commands.slurm.plan import (
    ARRAY_SCRIPT,
    MERGE_SCRIPT,
    Cell,
    SlurmPlan,
    expected_keys,
    new_plan,
)
from agent_eval.commands.slurm.scripts import array_script, merge_script
from agent_eval.datamodel.config import ConfigError, RunConfig
from agent_eval.datamodel.jsonl import DataError
from agent_eval.datamodel.pricing import where_prices_come_from
from agent_eval.datamodel.results import ResultsError
from agent_eval.engine.runner import refuse_a_cap_it_cannot_keep
from agent_eval.engine.selection import select

# Run options a task does not take from the user: it gets its own shard, folder and name, and a
# requeued task must resume its shard, never start it over.
NOT_PASSED = ("shard", "redo", "out_dir", "run_name")
# sbatch options the scripts set themselves.
RESERVED_SBATCH = (
    "-a",
    "--array",
    "-d",
    "--dependency",
    "-o",
    "--output",
    "-e",
    "--error",
    "--open-mode",
    "-J",
    "--job-name",
)


def run_params() -> list[click.Parameter]:
    """The `run` command's own options, so submit takes and checks exactly what `run` takes."""
    from agent_eval.commands.options import run_options

    params = []
    for param in click.command()(run_options(lambda **_: None)).params:
        if param.name in ("shard", "redo"):
            continue
        param = copy.copy(param)
        param.required = False  # --agent/--model are not needed with --sweep; checked below
        params.append(param)
    return params


def _check_sbatch(text: str) -> list[str]:
    try:
        args = shlex.split(text or "")
    except ValueError as error:
        raise ConfigError(f"--sbatch {text!r}: {error}") from None
    for arg in args:
        if arg.split("=", 1)[0] in RESERVED_SBATCH:
            raise ConfigError(
                f"--sbatch: {arg.split('=', 1)[0]} is set by agent-eval (array, logs, merge "
                f"dependency); pass partition, time, cpus-per-task, mem, account and the like"
            )
    return args


def _check_runnable(config: RunConfig, benchmark) -> None:
    """What the runner would refuse on the node, refused now instead (the jobs get this environment)."""
    config.validate(efforts_by_agent())
    if config.tools not in benchmark.tool_modes:
        raise ConfigError(
            f"tool mode {config.tools!r} does not exist for {benchmark.name} items; "
            f"choose one of {', '.join(benchmark.tool_modes)}"
        )
    agent = get_agent(config.agent)
    auth = agent.find_auth(dict(os.environ))
    if not config.unpriced and auth.kind != "login" and not agent.priced(config.model):
        raise ConfigError(
            f"no price for model {config.model!r} in {where_prices_come_from()}: add it there, or pass --unpriced"
        )
    refuse_a_cap_it_cannot_keep(config, agent.priced(config.model))


def _option_args(ctx: click.Context, values: dict) -> list[str]:
    """The run options the user gave, as a command line (the dataset as an absolute path)."""
    args = []
    for param in ctx.command.params:
        name = param.name
        if name not in values or name in NOT_PASSED or name == "data":  # `values`: the run options only
            continue
        if ctx.get_parameter_source(name) in (ParameterSource.DEFAULT, None) or values[name] is None:
            continue
        if param.is_flag:
            args += [param.opts[0]] if values[name] else []
        else:
            args += [param.opts[0], str(values[name])]
    return args


def plan_run(ctx: click.Context, values: dict, shards: int, sbatch_args: list[str], console: Console) -> SlurmPlan:
    from agent_eval.engine.selection import resolve_data_dir

    if not values["agent"] or not values["model"]:
        raise ConfigError("--agent and --model are required (or --sweep FILE)")
    config = RunConfig(
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
    )
    data = resolve_data_dir(values["data"], console).absolute()
    benchmark, dataset = load_benchmark(data)
    _check_runnable(config, benchmark)
    items = select(dataset, **{k: values[k] for k in ("tasks", "ids", "categories", "limit")})
    name = values["run_name"] or config.run_name
    out_dir = Path(values["out_dir"])
    cell = Cell(name, ["--data", str(data), *_option_args(ctx, values)], expected_keys(items, shards, config.repeats))
    return new_plan(name, "run", shards, out_dir / f"{name}.slurm", out_dir / name, [cell], sbatch_args)


def plan_sweep(path: Path, jobs: int | None, shards: int, sbatch_args: list[str], console: Console) -> SlurmPlan:
    from agent_eval.engine.selection import resolve_data_dir
    from agent_eval.engine.sweeps import SweepError, cell_name, load_sweep

    try:
        sweep = load_sweep(path)
    except SweepError as error:
        raise ConfigError(str(error)) from None
    data = resolve_data_dir(Path(sweep.data) if sweep.data else None, console).absolute()
    benchmark, dataset = load_benchmark(data)
    selection = {k: ",".join(map(str, v)) if isinstance(v, list) else v for k, v in sweep.selection.items()}
    items = select(dataset, **selection)
    shared = ["--data", str(data)]
    for key, value in selection.items():
        if value is not None:
            shared += [f"--{key}", str(value)]
    cells = []
    for config in sweep.cells():
        config.jobs = jobs or config.jobs  # per task, like run's --jobs
        _check_runnable(config, benchmark)
        args = [
            "--agent",
            config.agent,
            "--model",
            config.model,
            "--tools",
            config.tools,
            *shared,
            "--jobs",
            str(config.jobs),
            "--timeout",
            str(config.timeout_s),
            "--repeats",
            str(config.repeats),
            "--sandbox",
            config.sandbox,
        ]
        args += ["--effort", config.effort] if config.effort else []
        args += ["--max-turns", str(config.max_turns)] if config.max_turns else []
        args += ["--max-cost-usd", str(config.max_cost_usd)] if config.max_cost_usd is not None else []
        args += ["--max-item-cost-usd", str(config.max_item_cost_usd)] if config.max_item_cost_usd is not None else []
        args += ["--max-item-tokens", str(config.max_item_tokens)] if config.max_item_tokens is not None else []
        args += ["--unpriced"] if config.unpriced else []
        for name, value in (config.kind_options or {}).items():  # a sweep's kind_options axis
            args += [registry.kind_options()[name][1].flag, str(value)]
        if config.outage_hold_minutes != RunConfig.outage_hold_minutes:
            args += ["--outage-hold-minutes", f"{config.outage_hold_minutes:g}"]
        cells.append(Cell(cell_name(config), args, expected_keys(items, shards, config.repeats)))
    return new_plan(sweep.name, "sweep", shards, sweep.out_dir / f"{sweep.name}.slurm", sweep.root, cells, sbatch_args)


def _sbatch(argv: list[str]) -> str:
    done = subprocess.run(["sbatch", "--parsable", *argv], capture_output=True, text=True)
    if done.returncode != 0:
        raise ResultsError(f"sbatch {' '.join(argv)} failed: {(done.stderr or done.stdout).strip()}")
    return done.stdout.strip().split(";")[0]


def submit(plan: SlurmPlan, no_submit: bool, console: Console) -> None:
    from agent_eval.datamodel.itemdir import now_iso

    folder = plan.folder
    (folder / "logs").mkdir(parents=True, exist_ok=True)
    (folder / "shards").mkdir(exist_ok=True)
    (folder / ARRAY_SCRIPT).write_text(array_script(plan))
    (folder / MERGE_SCRIPT).write_text(merge_script(plan))
    plan.save()
    shape = f"{len(plan.cells)} cell(s) x {plan.shards} shard(s) = {plan.n_tasks} array task(s)"
    console.print(f"wrote {folder / ARRAY_SCRIPT} and {MERGE_SCRIPT} ({shape})", highlight=False, soft_wrap=True)
    if no_submit:
        console.print(
            f"not submitted (--no-submit); submit with:\n  {plan.resubmit_command(list(range(plan.n_tasks)))}",
            highlight=False,
            soft_wrap=True,
        )
        return
    if not shutil.which("sbatch"):
        raise ResultsError(
            "sbatch not found: run this on a Slurm login node (or use --no-submit to write the scripts only)"
        )
    array_job = _sbatch([str(folder / ARRAY_SCRIPT)])
    merge_job = _sbatch([f"--dependency=afterany:{array_job}", str(folder / MERGE_SCRIPT)])
    plan.submissions.append(
        {"array_job": array_job, "merge_job": merge_job, "at": now_iso(), "tasks": f"0-{plan.n_tasks - 1}"}
    )
    plan.save()
    console.print(
        f"submitted array job {array_job} ({shape}) and merge job {merge_job} (after all of them)",
        highlight=False,
        soft_wrap=True,
    )
    console.print(f"follow it:      agent-eval slurm status {folder}", highlight=False, soft_wrap=True)
    console.print(f"merged result:  {plan.target}", highlight=False, soft_wrap=True)


@click.command("submit")
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
@click.pass_context
def command(ctx, shards, sweep_file, sbatch_text, no_submit, **values):
    """Run on Slurm: an array of N shard tasks per run (each `agent-eval run --shard K/N`, resumable
    under requeue) and a job that merges them, after all tasks end, into one run laid out as a
    single-machine run. Takes the `run` options (--jobs is per task) or --sweep FILE. The scripts,
    job.json, logs and shard folders go to OUT_DIR/NAME.slurm/; the merged run to OUT_DIR/NAME."""
    console = Console()
    try:
        sbatch_args = _check_sbatch(sbatch_text)
        if sweep_file:
            given = [
                p.opts[0]
                for p in ctx.command.params
                if isinstance(p, click.Option)
                and p.name in values
                and p.name not in ("jobs",)
                and ctx.get_parameter_source(p.name) == ParameterSource.COMMANDLINE
            ]
            if given:
                raise ConfigError(
                    f"with --sweep the sweep file says what to run; drop {', '.join(given)} "
                    f"(only --jobs, per task, may be given)"
                )
            jobs = values["jobs"] if ctx.get_parameter_source("jobs") == ParameterSource.COMMANDLINE else None
            plan = plan_sweep(sweep_file, jobs, shards, sbatch_args, console)
        else:
            plan = plan_run(ctx, values, shards, sbatch_args, console)
        submit(plan, no_submit, console)
    except (ConfigError, DataError, ResultsError, AuthMissing) as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)


command.params.extend(run_params())
