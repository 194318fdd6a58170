"""`agent-eval demo`: the whole pipeline offline, with the real CLIs, on the bundled sample tasks,
driven by the scripted model server. A scripted model, not an evaluation: its answers are fixed."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.panel import Panel

from agent_eval.agents import registry as agent_registry
from agent_eval.agents.registry import scripted_environ
from agent_eval.analysis.tables import accuracy_table
from agent_eval.benchmarks import registry
from agent_eval.benchmarks.registry import default_kind
from agent_eval.commands.usererrors import user_errors
from agent_eval.datamodel.config import ConfigError, RunConfig
from agent_eval.engine.selection import select
from agent_eval.scripted import ScriptedServer

# A fixed guess per task family (matched on the question), nothing computed from the image.
GUESSES = [("maze", "A-B"), ("arrow", "C"), ("intersect", "B, C"), ("difference", "none"), ("", "12")]


def demo_scenario(tools: str) -> dict:
    """Look with the tools the mode offers, then give the fixed guess."""
    looks = {
        "none": [],
        "image": [
            {
                "say": "Let me enlarge the top-left corner.",
                "call": "inspect",
                "input": {"views": [{"x": 0, "y": 0, "width": 256, "height": 192}], "grid": 64},
            }
        ],
        "python": [
            {
                "say": "Let me measure the image.",
                "call": "shell",
                "input": {
                    "command": 'python3 -c "from PIL import Image; import numpy as np; '
                    "a = np.asarray(Image.open('image.png').convert('L')); "
                    "print(a.shape, int((a < 128).sum()), 'dark pixels')\""
                },
            },
            {"call": "inspect", "input": {"views": [{"x": 0, "y": 0, "width": 256, "height": 192}]}},
        ],
    }[tools]
    return {
        "rules": [
            {"match": match, "turns": looks + [{"final": f"(scripted guess) <answer>{guess}</answer>"}]}
            for match, guess in GUESSES
        ]
    }


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
    benchmark = default_kind()  # its bundled sample tasks, which the fixed guesses below know
    samples = benchmark.bundled_samples()
    assert samples is not None, "the default kind makes its own samples"
    dataset = benchmark.load(samples)
    items = select(dataset, limit=limit)
    stopped = False
    with ScriptedServer(demo_scenario(tools)) as server:
        for agent in agents or agent_registry.names():
            outcome = scripted_run(
                console,
                server,
                agent,
                tools,
                benchmark,
                dataset,
                items,
                out_dir,
                f"scripted-{agent}-{tools}",
                jobs=jobs,
                timeout_s=120,
            )
            stopped = stopped or outcome.interrupted
            console.print(
                f"Read it: agent-eval show {outcome.store.root}   |   "
                f"agent-eval report {outcome.store.root} -o report.html\n"
            )
    sys.exit(130 if stopped else 0)


def kind_demo(console: Console, kind: str, item_id: str | None, agents, tools: str, out_dir: Path) -> None:
    """One sample item of another kind, played by the turns the kind gives for it (Benchmark.demo_turns)."""
    benchmark = registry.get_benchmark(kind)
    if tools not in benchmark.tool_modes:
        choices = ", ".join(benchmark.tool_modes)
        raise ConfigError(f"tool mode {tools!r} does not exist for {kind}; choose one of {choices}")
    data = out_dir / f"samples-{kind}"
    if not data.exists():
        for line in benchmark.write_samples(data, 0, 1, "normal"):
            console.print(line)
    dataset = benchmark.load(data)
    items = select(dataset, ids=item_id) if item_id else dataset.items[:1]
    turns = benchmark.demo_turns(items[0], tools)
    if turns is None:
        raise ConfigError(f"{kind} has no scripted demo for {items[0].id}")
    console.print(
        Panel(
            f"SCRIPTED MODEL DEMO ({kind}, {items[0].id}): the real agent CLIs run sandboxed against a local "
            "scripted model that plays a fixed sequence. The score below is NOT an evaluation.",
            style="bold yellow",
        )
    )
    scenario = turns if isinstance(turns, dict) else {"turns": turns}  # a kind may give rules (a session per turn)
    with ScriptedServer(scenario) as server:
        for agent in agents or agent_registry.names():
            outcome = scripted_run(
                console,
                server,
                agent,
                tools,
                benchmark,
                dataset,
                items[:1],
                out_dir,
                f"scripted-{agent}-{kind}-{tools}",
                jobs=1,
                timeout_s=300,
            )
            console.print(f"Read it: agent-eval show {outcome.store.root} {items[0].id}\n")


def scripted_run(console, server, agent, tools, benchmark, dataset, items, out_dir, run_name, jobs, timeout_s):
    """One agent's run of the items against the scripted server (redone each time), its table printed."""
    from agent_eval.engine.runner import Runner

    model = agent_registry.agent_class(agent).demo_model
    config = RunConfig(agent=agent, model=model, tools=tools, jobs=jobs, timeout_s=timeout_s, unpriced=True)
    runner = Runner(  # unpriced: a scripted model has no price
        config,
        benchmark,
        dataset,
        items,
        out_dir,
        run_name=run_name,
        redo=True,
        console=console,
        environ=scripted_environ(agent, server.url),
        scripted_model=True,
    )
    outcome = runner.run()
    console.print(accuracy_table(outcome.rollup, f"{runner.run_name} (scripted model, not an evaluation)"))
    return outcome
