"""`agent-eval merge OUT RUN...`: shard results (--shard K/N on several machines) into one run
directory laid out exactly as a single-machine run."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from agent_eval.datamodel.results import ResultsError
from agent_eval.engine.merging import merge_runs


@click.command("merge")
@click.argument("out", type=click.Path(path_type=Path))
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True, file_okay=False))
def command(out, runs):
    """Combine shard runs (same configuration) into OUT, laid out as a single-machine run."""
    try:
        merged = merge_runs(out, list(runs))
    except ResultsError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    records = merged.records()
    click.echo(f"merged {len(runs)} run(s) into {out}: {len(records)} item record(s)")
