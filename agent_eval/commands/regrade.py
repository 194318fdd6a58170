"""`agent-eval regrade RUN`: grade a finished run again from its stored answers with the current
scorer (no agent runs), optionally re-parsing its saved event streams with the current parsers."""

from __future__ import annotations

import os
from pathlib import Path

import click
from rich.console import Console

from agent_eval.commands.options import judge_option
from agent_eval.commands.usererrors import user_errors
from agent_eval.engine.regrading import regrade_run


@click.command("regrade")
@click.argument("run", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option(
    "--reparse",
    is_flag=True,
    help="Also re-parse every item's saved event stream (transcript.jsonl) with the current parsers: "
    "usage, failures, received images and the answer text itself.",
)
@click.option(
    "--data",
    type=click.Path(path_type=Path),
    default=None,
    help="The dataset, when it moved (needed by --reparse and by benchmarks that grade against it).",
)
@judge_option
@user_errors
def command(run, reparse, data, judge_model):
    """Grade every record of RUN again with the current scorer (no agent is run), rewrite its summaries
    and its manifest's scorer hash, and say how many verdicts changed."""
    click.echo(regrade_run(run, reparse, data, judge_model, dict(os.environ), Console(stderr=True)).summary())
