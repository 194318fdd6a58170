"""`agent-eval slurm merge DIR` below its options: what the dependent job runs once every array task has
ended. Every shard complete: each cell's shards become one run laid out as a single-machine run (the
ordinary `merge`). Anything missing: it names the items, the shards and the one command that resubmits
them, and merges nothing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from rich.console import Console

from agent_eval.datamodel.results import ResultsError, RunStore
from agent_eval.engine.merging import merge_runs
from agent_eval.engine.slurm.plan import SlurmPlan
from agent_eval.engine.slurm.state import describe_gaps, item_label, shard_states


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


def merge_shards(plan: SlurmPlan, console: Console) -> list[Path] | None:
    """The merged run of each cell, or None (nothing merged) when an item has no record."""
    states = shard_states(plan)
    gaps = describe_gaps(plan, states)
    if gaps:
        console.print(
            f"[red]not merged: {sum(len(s.missing) for s in states)} item(s) have no record[/]", highlight=False
        )
        for line in gaps:
            console.print(line, highlight=False, soft_wrap=True)
        return None
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
    return roots
