"""`agent-eval sample-data`: write procedurally generated items with exact ground truth."""

from __future__ import annotations

from pathlib import Path

import click

from agent_eval.benchmarks import registry
from agent_eval.commands.usererrors import user_errors


@click.command("sample-data")
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--per-task", type=int, default=5, show_default=True)
@click.option("--difficulty", default="normal", show_default=True, help="easy, normal or hard.")
@click.option(
    "--kind",
    type=click.Choice(registry.names()),
    default=registry.DEFAULT,
    show_default=True,
    help=registry.help_of("samples_help", "; ") + ".",
)
@user_errors
def command(out, seed, per_task, difficulty, kind):
    """Write procedurally generated items with exact ground truth to OUT, of the benchmark kind --kind."""
    for line in registry.get_benchmark(kind).write_samples(out, seed, per_task, difficulty):
        click.echo(line)
