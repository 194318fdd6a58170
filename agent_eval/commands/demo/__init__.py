"""`agent-eval demo`: the whole pipeline offline, with the real CLIs, on the bundled sample tasks,
driven by the scripted model server. A scripted model, not an evaluation: its answers are fixed.

__init__.py     the command: its options, and the default kind's demo (its scenario: scripted/demo.py)
runs.py         one agent's run against the scripted server, and another kind's one-item demo
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.panel import Panel

from agent_eval.agents import registry as agent_registry
from agent_eval.benchmarks import registry
from agent_eval.benchmarks.registry import default_kind
from agent_eval.commands.demo.runs import kind_demo, scripted_runs
from agent_eval.commands.usererrors import user_errors
from agent_eval.engine.selection import select
from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.demo import demo_scenario


@click.command("demo")
@click.option(
    "--agent",
    "agents",
    type=click.Choice(agent_registry.names()),
    multiple=True,
    help="Which CLI(s) to drive (repeatable). Default: both.",
)
@click.option("--tools", type=click.Choice(("none", "image", "python")), default="python", show_default=True)
@click.option("--limit", type=int, default=None, help="At most N items per task.")
@click.option("--jobs", type=int, default=4, show_default=True)
@click.option("--out-dir", type=click.Path(path_type=Path), default=Path("demo-results"), show_default=True)
@click.option(
    "--kind",
    type=click.Choice(registry.names()),
    default=registry.DEFAULT,
    show_default=True,
    help="Another kind plays one of its own sample items (e.g. arcgames: a game, won by its known sequence).",
)
@click.option("--item", "item_id", default=None, help="With --kind: which sample item (default: the first).")
@user_errors
def command(agents, tools, limit, jobs, out_dir, kind, item_id):
    """Run the real CLIs on the bundled sample tasks against the scripted model (offline, no key)."""
    console = Console()
    if kind != registry.DEFAULT:
        return kind_demo(console, kind, item_id, agents, tools, out_dir)
    console.print(
        Panel(
            "SCRIPTED MODEL DEMO: the real agent CLIs run sandboxed against a local scripted model that "
            "plays fixed tool calls and fixed guesses. The accuracy below is NOT an evaluation.",
            style="bold yellow",
        )
    )
    benchmark = default_kind()  # its bundled sample tasks, which the scenario's fixed guesses know
    samples = benchmark.bundled_samples()
    assert samples is not None, "the default kind makes its own samples"
    dataset = benchmark.load(samples)
    items = select(dataset, limit=limit)
    stopped = False
    with ScriptedServer(demo_scenario(tools)) as server:
        for outcome in scripted_runs(console, server, agents, tools, benchmark, dataset, items, out_dir, "", jobs, 120):
            stopped = stopped or outcome.interrupted
            root = outcome.store.root
            console.print(f"Read it: agent-eval show {root}   |   agent-eval report {root} -o report.html\n")
    sys.exit(130 if stopped else 0)
