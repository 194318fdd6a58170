"""Options and defaults several commands share (not a command itself)."""
from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console


def resolve_data_dir(data: Path | None, console: Console) -> Path:
    """--data, else ./data, else the bundled sample set (said out loud)."""
    if data is not None:
        return data
    if Path("data").is_dir():
        return Path("data")
    from agent_eval.benchmarks.registry import default_kind
    path = default_kind().bundled_samples()
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
