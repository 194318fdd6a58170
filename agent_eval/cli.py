"""The command line: parse options, build a config, hand it to the runner. Nothing else lives here."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import click
from rich.console import Console

from . import __version__
from .config import AGENT_EFFORTS, SANDBOX_KINDS, RunConfig, parse_shard
from .data import DataError, select, shard_of
from .benchmarks import ALL_TOOL_MODES, load_benchmark
from .usererrors import user_errors

# Commands whose modules import heavy libraries (scipy, matplotlib, jinja2, the mcp SDK) load only
# when called, so `agent-eval run` (and a resumed run with nothing to do) starts fast.
LAZY_COMMANDS = {
    "export": "agent_eval.export",
    "show": "agent_eval.show", "report": "agent_eval.report", "compare": "agent_eval.compare",
    "doctor": "agent_eval.doctor", "demo": "agent_eval.demo", "merge": "agent_eval.merge",
    "sweep": "agent_eval.sweep", "regrade": "agent_eval.regrade", "parse": "agent_eval.parse_stream",
}
LAZY_COMMANDS["slurm"] = "agent_eval.slurm"   # scale-out on Slurm (docs/scale-out.md)


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted([*super().list_commands(ctx), *LAZY_COMMANDS])

    def get_command(self, ctx, name):
        if name in LAZY_COMMANDS:
            return importlib.import_module(LAZY_COMMANDS[name]).command
        return super().get_command(ctx, name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="agent-eval")
def main():
    """Run Claude Code and Codex headless over a visual benchmark, one sandboxed workdir per item,
    grade the answers, and compare tool modes honestly.

    Start with `agent-eval run --agent claude-code --model MODEL`; read results with `show`,
    `report` and `compare`."""


def resolve_data_dir(data: Path | None, console: Console) -> Path:
    """--data, else ./data, else the bundled sample set (said out loud)."""
    if data is not None:
        return data
    if Path("data").is_dir():
        return Path("data")
    from .samples import ensure_default_sample_set
    path = ensure_default_sample_set()
    console.print(f"[yellow]No --data and no ./data: using the bundled sample tasks in {path} "
                  f"(procedurally generated, not the ActiveVision dataset).[/]")
    return path


def selection_options(func):
    for decorator in reversed([
        click.option("--data", type=click.Path(path_type=Path), default=None,
                     help="Dataset dir: metadata.jsonl or manifest.json layout, or an active-observation set "
                          "(items.jsonl + scenes/). Default: ./data, else the bundled samples."),
        click.option("--tasks", default=None, help="Comma-separated task names."),
        click.option("--ids", default=None, help="Comma-separated item ids, e.g. ACF-0,MPT-3."),
        click.option("--categories", default=None, help="Comma-separated categories."),
        click.option("--limit", type=int, default=None, help="At most N items per task."),
    ]):
        func = decorator(func)
    return func


@main.command()
@click.option("--agent", type=click.Choice(sorted(AGENT_EFFORTS)), required=True, help="Which agent CLI to run.")
@click.option("--model", required=True, help="Model name passed to the CLI, e.g. claude-opus-4-8 or gpt-5.5.")
@click.option("--effort", default=None,
              help="Reasoning effort. claude-code: low|medium|high|xhigh|max; codex: none|minimal|low|medium|high|xhigh.")
@click.option("--tools", type=click.Choice(ALL_TOOL_MODES), default="python", show_default=True,
              help="none: image inline, no tools; image: inspection tools only; python: plus a shell. "
                   "Active-observation items: none (sampled frames inline), observe (the observe tool), python.")
@selection_options
@click.option("--jobs", type=int, default=4, show_default=True, help="Items run at once.")
@click.option("--timeout", "timeout_s", type=float, default=1800, show_default=True, help="Seconds per item attempt.")
@click.option("--max-turns", type=int, default=None,
              help="Cap on agent turns per item (Claude Code --max-turns; Codex has no such flag).")
@click.option("--max-item-cost-usd", type=float, default=None,
              help="Budget per item (Claude Code --max-budget-usd; Codex has no such flag).")
@click.option("--sandbox", type=click.Choice(SANDBOX_KINDS), default="bwrap", show_default=True,
              help="OS sandbox for the agent. 'none' only where bubblewrap cannot run: loudly marked.")
@click.option("--out-dir", type=click.Path(path_type=Path), default=Path("results"), show_default=True)
@click.option("--run-name", default=None, help="Default: <agent>-<model>-<effort>-<tools>.")
@click.option("--redo", is_flag=True, help="Start over: the old results are moved aside, not deleted.")
@click.option("--retry-wait", type=float, default=10.0, show_default=True,
              help="First backoff in seconds after a rate limit; doubles each retry.")
@click.option("--repeats", type=int, default=1, show_default=True,
              help="Run each item K times, each in its own workdir (resumable per item and repeat).")
@click.option("--max-cost-usd", type=float, default=None,
              help="No new item starts once the run's recorded cost reaches this; rerun with a higher cap to go on.")
@click.option("--unpriced", is_flag=True, help="Allow a Codex model missing from the pricing table (cost: unknown).")
@click.option("--shard", default=None, help="K/N: run only the K-th of N deterministic slices of the items.")
@user_errors
def run(agent, model, effort, tools, data, tasks, ids, categories, limit, jobs, timeout_s, max_turns,
        max_item_cost_usd, sandbox, out_dir, run_name, redo, retry_wait, repeats, max_cost_usd, unpriced, shard):
    """Run an agent over the benchmark and grade every item (resumable)."""
    from .runner import Runner
    from .tables import accuracy_table
    console = Console()
    config = RunConfig(agent=agent, model=model, effort=effort, tools=tools, sandbox=sandbox,
                       max_turns=max_turns, max_item_cost_usd=max_item_cost_usd, timeout_s=timeout_s, jobs=jobs,
                       repeats=repeats,
                       max_cost_usd=max_cost_usd, unpriced=unpriced, shard=shard)
    config.validate()
    benchmark, dataset = load_benchmark(resolve_data_dir(data, console))
    items = select(dataset, tasks=tasks, ids=ids, categories=categories, limit=limit)
    if shard:
        items = shard_of(items, *parse_shard(shard))
    selection = {"tasks": tasks, "ids": ids, "categories": categories, "limit": limit, "shard": shard}
    runner = Runner(config, benchmark, dataset, items, out_dir, run_name=run_name, redo=redo, console=console,
                    selection=selection, retry_wait_s=retry_wait)
    outcome = runner.run()
    console.print(accuracy_table(outcome.rollup, f"{runner.run_name}  ({outcome.store.root})"))
    if outcome.not_run_cost_cap:
        console.print(f"{outcome.not_run_cost_cap} item(s) not run: cost cap --max-cost-usd {max_cost_usd:g} reached.")
    if outcome.stopped_for_auth:
        click.echo(f"error: {outcome.stopped_for_auth}", err=True)
        sys.exit(3)
    if outcome.interrupted:
        sys.exit(130)


@main.command("sample-data")
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--per-task", type=int, default=5, show_default=True)
@click.option("--difficulty", default="normal", show_default=True, help="easy, normal or hard.")
@click.option("--kind", type=click.Choice(("activevision", "activeobs")), default="activevision", show_default=True,
              help="activeobs: synthetic 360° panoramic sequences with active-observation questions.")
@user_errors
def sample_data(out, seed, per_task, difficulty, kind):
    """Write procedurally generated items with exact ground truth to OUT: ActiveVision-style images,
    or (--kind activeobs) panoramic sequences rendered on demand from scene files."""
    from .samples import SampleError, write_sample_set
    if kind == "activeobs":
        from .activeobs.generate import generate_dataset, validation_summary
        if out.exists() and any(out.iterdir()):
            raise DataError(f"{out} exists and is not empty; choose a new directory")
        dataset = generate_dataset(out, per_family=per_task, seed=seed)
        click.echo(f"wrote {len(dataset.items)} active-observation items to {out}/items.jsonl (+ scenes/)")
        click.echo(f"{validation_summary(out)} (details: {out}/validation.json)")
        return
    try:
        rows = write_sample_set(out, seed=seed, per_task=per_task, difficulty=difficulty)
    except SampleError as error:
        raise DataError(str(error)) from None
    click.echo(f"wrote {len(rows)} items to {out}/metadata.jsonl")

