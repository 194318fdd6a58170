"""`agent-eval sample-data`: write procedurally generated items with exact ground truth."""
from __future__ import annotations

from pathlib import Path

import click

from agent_eval.core.data import DataError
from agent_eval.core.usererrors import user_errors


@click.command("sample-data")
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--per-task", type=int, default=5, show_default=True)
@click.option("--difficulty", default="normal", show_default=True, help="easy, normal or hard.")
@click.option("--kind", type=click.Choice(("activevision", "activeobs")), default="activevision", show_default=True,
              help="activeobs: synthetic 360° panoramic sequences with active-observation questions.")
@user_errors
def command(out, seed, per_task, difficulty, kind):
    """Write procedurally generated items with exact ground truth to OUT: ActiveVision-style images,
    or (--kind activeobs) panoramic sequences rendered on demand from scene files."""
    from agent_eval.benchmarks.activevision.samples import SampleError, write_sample_set
    if kind == "activeobs":
        from agent_eval.benchmarks.activeobs.generate import (
            generate_dataset,
            validation_summary,
        )
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
