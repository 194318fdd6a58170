"""Where each shard stands, read from its folder against the items the plan expects of it, and
what Slurm says about the tasks (squeue; sacct where accounting is on)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from agent_eval.datamodel.results import RunStore
from agent_eval.engine.slurm.plan import Cell, SlurmPlan


@dataclass
class ShardState:
    cell: Cell
    shard: int
    task: int
    path: Path
    expected: list[tuple[str, int]]
    graded: set = field(default_factory=set)
    failed: dict = field(default_factory=dict)  # key -> status of the latest (harness failure) record
    problem: str | None = None  # e.g. the shard path is not a directory

    @property
    def missing(self) -> list[tuple[str, int]]:
        return [key for key in self.expected if key not in self.graded and key not in self.failed]

    @property
    def complete(self) -> bool:
        return not self.missing


def item_label(key: tuple[str, int]) -> str:
    item_id, repeat = key
    return item_id if repeat == 0 else f"{item_id} (repeat {repeat})"


def shard_states(plan: SlurmPlan) -> list[ShardState]:
    states = []
    for index, cell in enumerate(plan.cells):
        for shard in range(1, plan.shards + 1):
            path = plan.shard_dir(cell, shard)
            state = ShardState(
                cell,
                shard,
                plan.task_of(index, shard),
                path,
                [(item_id, repeat) for item_id, repeat in cell.expected[str(shard)]],
            )
            if path.exists() and not path.is_dir():
                state.problem = f"{path} is not a directory"
            elif path.is_dir():
                latest = RunStore(path).latest_records()
                for key in state.expected:
                    record = latest.get(key)
                    if record is not None and record.is_final:
                        state.graded.add(key)
                    elif record is not None:
                        state.failed[key] = record.status
            states.append(state)
    return states


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


def _run(argv: list[str]) -> str | None:
    if not shutil.which(argv[0]):
        return None
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def slurm_states(plan: SlurmPlan) -> tuple[dict[int, str], str | None, bool]:
    """({array task: state}, "merge job N: STATE" of the newest merge, whether Slurm could be asked). The newest job
    wins for
    a task submitted more than once; jobs this folder's submissions made are found by their name."""
    tasks: dict[int, tuple[int, str]] = {}
    merge: tuple[int, str] | None = None
    queried = False
    listing = _run(["squeue", "-h", "-r", "-t", "all", f"--name={plan.job_name}", "-o", "%i|%K|%T|%r"])
    if listing is not None:
        queried = True
        for line in listing.splitlines():
            job, index, state, reason = (line.split("|") + ["", "", ""])[:4]
            state = state if reason in ("None", "") else f"{state} ({reason})"
            number = int(job.split("_")[0]) if job.split("_")[0].isdigit() else 0
            if index.isdigit():
                if int(index) not in tasks or number >= tasks[int(index)][0]:
                    tasks[int(index)] = (number, state)
            elif merge is None or number >= merge[0]:
                merge = (number, state)
    accounted = _run(["sacct", "-X", "-n", "-P", f"--name={plan.job_name}", "-o", "JobID,State", "-S", "now-30days"])
    if accounted is not None:
        queried = True
        for line in accounted.splitlines():
            job, _, state = line.partition("|")
            base, _, index = job.partition("_")
            if not base.isdigit():
                continue
            if index.isdigit():
                tasks.setdefault(int(index), (int(base), state))
            elif not index and merge is None:
                merge = (int(base), state)
    return (
        {index: state for index, (_, state) in tasks.items()},
        f"merge job {merge[0]}: {merge[1]}" if merge else None,
        queried,
    )
