"""`agent-eval score`: grade replies produced elsewhere with a kind's own rules (and judge) into a run folder."""

from __future__ import annotations

import os
import re
from pathlib import Path

import click
from rich.console import Console

from agent_eval.benchmarks import load_benchmark
from agent_eval.commands.options import judge_option
from agent_eval.commands.usererrors import user_errors
from agent_eval.engine.selection import print_problems


@click.command("score")
@click.argument("replies", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option(
    "--data",
    type=click.Path(path_type=Path, exists=True),
    required=True,
    help="The dataset the replies answer (any layout `run --data` reads).",
)
@click.option("--out-dir", type=click.Path(path_type=Path), default=Path("results"), show_default=True)
@click.option("--run-name", default=None, help="Default: replies-<REPLIES file name>.")
@click.option(
    "--model",
    default="unknown",
    show_default=True,
    help="What wrote the replies: the run's model, as compare shows it.",
)
@judge_option
@user_errors
def command(replies, data, out_dir, run_name, model, judge_model):
    """Grade REPLIES (JSON Lines: {"id": ..., "reply": ...} per line, produced by another harness or a no-tool
    track) with the benchmark's own rules and judge, into OUT_DIR/RUN_NAME laid out as `run` lays a run out:
    show, report and compare read it beside runs made here. Scoring again into the same folder grades only
    the replies not graded yet."""
    from agent_eval.analysis.tables import accuracy_table
    from agent_eval.engine.reply_grading import score

    console = Console()
    benchmark, dataset = load_benchmark(data)
    print_problems(console, dataset)
    name = run_name or "replies-" + re.sub(r"[^A-Za-z0-9._-]+", "_", replies.stem)
    done = score(benchmark, dataset, replies, out_dir, name, model, judge_model, dict(os.environ), console)
    console.print(accuracy_table(done["rollup"], f"{name}  ({done['root']})"))
    if done["kept"]:
        console.print(f"{done['kept']} reply(ies) were graded before and kept.")
