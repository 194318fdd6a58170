"""`agent-eval run`: run an agent over a benchmark and grade every item (resumable)."""
from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console

from agent_eval.benchmarks import ALL_TOOL_MODES, load_benchmark
from agent_eval.commands.options import resolve_data_dir, selection_options
from agent_eval.agents import registry as agent_registry
from agent_eval.core.config import SANDBOX_KINDS, RunConfig, parse_shard
from agent_eval.core.data import select, shard_of
from agent_eval.core.usererrors import user_errors


@click.command("run")
@click.option("--agent", type=click.Choice(agent_registry.names()), required=True, help="Which agent CLI to run.")
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
def command(agent, model, effort, tools, data, tasks, ids, categories, limit, jobs, timeout_s, max_turns,
        max_item_cost_usd, sandbox, out_dir, run_name, redo, retry_wait, repeats, max_cost_usd, unpriced, shard):
    """Run an agent over the benchmark and grade every item (resumable)."""
    from agent_eval.core.runner import Runner
    from agent_eval.reading.tables import accuracy_table
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
