"""`agent-eval slurm merge DIR`: what the dependent job runs once every array task has ended. Every
shard complete: each cell's shards become one run laid out as a single-machine run (the ordinary
`merge`), a sweep also gets its compare table and plot. Anything missing: it names the items, the
shards and the one command that resubmits them, merges nothing, and exits 1."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import click
from rich.console import Console

from agent_eval.commands.slurm.plan import SlurmPlan, load_plan
from agent_eval.commands.slurm.state import ShardState, item_label, shard_states
from agent_eval.datamodel.results import ResultsError, RunStore
from agent_eval.engine.merging import merge_runs


def describe_gaps(plan: SlurmPlan, states: list[ShardState]) -> list[str]:
    """Lines naming each incomplete shard's missing items, and the resubmit command."""
    lines = []
    incomplete = [s for s in states if s.missing]
    for state in incomplete:
        shown = ", ".join(item_label(key) for key in state.missing[:20])
        more = f" and {len(state.missing) - 20} more" if len(state.missing) > 20 else ""
        why = f" ({state.problem})" if state.problem else ""
        lines.append(
            f"{state.cell.name} shard {state.shard}/{plan.shards} (array task {state.task}): "
            f"{len(state.missing)} of {len(state.expected)} item(s) missing{why}: {shown}{more}"
        )
    if incomplete:
        tasks = sorted({s.task for s in incomplete})
        logs = ", ".join(str(plan.folder / "logs" / f"task-{t}.out") for t in tasks)
        lines.append(f"see why in {logs}; once fixed, resubmit those shards (they resume) and merge again with:")
        lines.append(f"  {plan.resubmit_command(tasks)}")
    return lines


def _merge_into(target: Path, shard_dirs: list[Path]) -> int:
    """Merge into a fresh sibling, then swap it in: a rerun replaces an earlier merge, never a real run."""
    if target.exists():
        manifest = RunStore(target).read_manifest()
        if not (manifest and manifest.merged_from):
            raise ResultsError(f"{target} exists and is not an earlier merge of these shards; move it away")
    staging = target.with_name(f".{target.name}.merging-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    merged = merge_runs(staging, shard_dirs)
    merged.write_manifest(merged.read_manifest().but(run_name=target.name))
    count = len(merged.records())
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    return count


def finish(plan: SlurmPlan, console: Console) -> bool:
    states = shard_states(plan)
    gaps = describe_gaps(plan, states)
    if gaps:
        console.print(
            f"[red]not merged: {sum(len(s.missing) for s in states)} item(s) have no record[/]", highlight=False
        )
        for line in gaps:
            console.print(line, highlight=False, soft_wrap=True)
        return False
    roots = []
    for cell in plan.cells:
        target = plan.merged_dir(cell)
        shard_dirs = [s.path for s in states if s.cell.name == cell.name and s.path.is_dir()]
        count = _merge_into(target, shard_dirs)
        roots.append(target)
        console.print(
            f"merged {len(shard_dirs)} shard(s) of {cell.name} into {target}: {count} item record(s)",
            highlight=False,
            soft_wrap=True,
        )
    failed = [s for s in states if s.failed]
    for state in failed:
        statuses = ", ".join(f"{item_label(k)} ({v})" for k, v in state.failed.items())
        console.print(
            f"{state.cell.name} shard {state.shard}: harness errors kept as in a single-machine run: {statuses}",
            highlight=False,
            soft_wrap=True,
        )
    if failed:
        console.print("to retry them (they run again on resume), then merge again:", highlight=False)
        console.print(f"  {plan.resubmit_command(sorted({s.task for s in failed}))}", highlight=False, soft_wrap=True)
    if plan.kind == "sweep":
        from agent_eval.reading.grid import write_grid_comparison

        write_grid_comparison(roots, Path(plan.target), console)
    return True


@click.command("merge")
@click.argument("folder", type=click.Path(path_type=Path, exists=True, file_okay=False))
def command(folder):
    """Merge a submission's shards once its tasks have ended (the dependent job runs this); names the
    missing items and the resubmit command instead of merging a partial run (exit 1)."""
    console = Console()
    try:
        ok = finish(load_plan(folder), console)
    except ResultsError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    sys.exit(0 if ok else 1)
