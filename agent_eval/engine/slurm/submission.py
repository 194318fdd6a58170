"""`agent-eval slurm submit` below its options: a run or a sweep planned as one Slurm array of cells x
shards (plan.py), its two scripts written (scripts.py) and queued with a merge job after all of it.
Everything is checked here, before anything is queued."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from agent_eval.agents import get_agent
from agent_eval.agents.registry import efforts_by_agent
from agent_eval.benchmarks import load_benchmark, registry
from agent_eval.datamodel.config import ConfigError, RunConfig
from agent_eval.datamodel.pricing import where_prices_come_from
from agent_eval.datamodel.results import ResultsError
from agent_eval.engine.runner import refuse_a_cap_it_cannot_keep
from agent_eval.engine.selection import resolve_data_dir, select
from agent_eval.engine.slurm.plan import ARRAY_SCRIPT, MERGE_SCRIPT, Cell, SlurmPlan, expected_keys, new_plan
from agent_eval.engine.slurm.scripts import array_script, merge_script

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


@dataclass(frozen=True)
class Queueing:
    """How a submission is laid out and queued: submit's own options."""

    shards: int
    sbatch_text: str = ""  # passed to sbatch for every job
    no_submit: bool = False  # write the scripts and job.json, queue nothing


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


def submit_run(
    config: RunConfig,
    data: Path | None,
    selection: dict,
    run_args: list[str],
    target: Path,
    queueing: Queueing,
    console: Console,
) -> SlurmPlan:
    """One run as shards, merged into `target`: `run_args` are the `run` options the user gave, passed to
    every task as they are (the dataset added as an absolute path), `config` what they mean. The scripts,
    job.json, logs and shards go to `target`.slurm beside it."""
    sbatch_args = _check_sbatch(queueing.sbatch_text)
    return _write_and_queue(
        _run_plan(config, data, selection, run_args, target, queueing.shards, sbatch_args, console),
        queueing.no_submit,
        console,
    )


def submit_sweep(path: Path, jobs: int | None, queueing: Queueing, console: Console) -> SlurmPlan:
    """A sweep file's cells x shards as one array; `jobs` (per task) overrides the file's when given."""
    sbatch_args = _check_sbatch(queueing.sbatch_text)
    return _write_and_queue(_sweep_plan(path, jobs, queueing.shards, sbatch_args, console), queueing.no_submit, console)


def _run_plan(
    config: RunConfig,
    data: Path | None,
    selection: dict,
    run_args: list[str],
    target: Path,
    shards: int,
    sbatch_args: list[str],
    console: Console,
) -> SlurmPlan:
    data = resolve_data_dir(data, console).absolute()
    benchmark, dataset = load_benchmark(data)
    _check_runnable(config, benchmark)
    items = select(dataset, **selection)
    cell = Cell(target.name, ["--data", str(data), *run_args], expected_keys(items, shards, config.repeats))
    folder = target.with_name(f"{target.name}.slurm")
    return new_plan(target.name, "run", shards, folder, target, [cell], sbatch_args)


def _sweep_plan(path: Path, jobs: int | None, shards: int, sbatch_args: list[str], console: Console) -> SlurmPlan:
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


def _write_and_queue(plan: SlurmPlan, no_submit: bool, console: Console) -> SlurmPlan:
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
        return plan
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
    return plan
