"""What `agent-eval slurm status RESULTS` prints: per shard what is graded, failed and missing (from the shard
folders), the Slurm state of each task and of the merge job, and the merged run."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from agent_eval.datamodel.results import RunStore
from agent_eval.engine.slurm.plan import SlurmPlan
from agent_eval.engine.slurm.state import describe_gaps, item_label, shard_states, slurm_states

ENDED = (
    "COMPLETED",
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "OUT_OF_MEMORY",
    "NODE_FAIL",
    "PREEMPTED",
    "BOOT_FAIL",
    "DEADLINE",
)


def _merged_state(plan: SlurmPlan) -> list[str]:
    lines = []
    for cell in plan.cells:
        target = plan.merged_dir(cell)
        manifest = RunStore(target).read_manifest() if target.is_dir() else None
        if manifest and manifest.merged_from:
            n = sum(
                1 for path in target.glob("*/items.jsonl") for line in path.read_text().splitlines() if line.strip()
            )
            lines.append(f"merged: {target} ({n} item record(s))")
        else:
            lines.append(f"not merged yet: {target}")
    return lines


def show_status(plan: SlurmPlan, console: Console) -> bool:
    """Prints the table; True when every expected item has a record (and the merge can run)."""
    states = shard_states(plan)
    tasks, merge, queried = slurm_states(plan)
    console.print(
        f"{plan.name}: {len(plan.cells)} cell(s) x {plan.shards} shard(s) in {plan.root}",
        highlight=False,
        soft_wrap=True,
    )
    table = Table()
    columns = ("cell",) * (len(plan.cells) > 1) + ("shard", "task", "items", "graded", "failed", "to do", "slurm")
    for column in columns:
        table.add_column(
            column,
            justify="left" if column in ("cell", "slurm") else "right",
            overflow="fold",
            no_wrap=column != "cell",
        )
    for state in states:
        slurm = tasks.get(state.task) or ("-" if queried else "(no squeue)")
        row = [
            f"{state.shard}/{plan.shards}",
            str(state.task),
            str(len(state.expected)),
            str(len(state.graded)),
            str(len(state.failed)) if state.failed else "",
            str(len(state.missing)) if state.missing else "",
            slurm,
        ]
        table.add_row(*([state.cell.name] if len(plan.cells) > 1 else []), *row)
    console.print(table)
    if plan.submissions:
        last = plan.submissions[-1]
        console.print(
            f"submitted: array job {last['array_job']}, merge job {last['merge_job']}; "
            f"{merge or ('merge job: not in the queue' if queried else 'no squeue here')}",
            highlight=False,
        )
    for state in states:
        if state.failed:
            console.print(
                f"{state.cell.name} shard {state.shard}: harness errors (rerun on resume): "
                + ", ".join(f"{item_label(k)} ({v})" for k, v in state.failed.items()),
                highlight=False,
                soft_wrap=True,
            )
    running = [
        s
        for s in states
        if s.missing and not any(tasks.get(s.task, "").startswith(e) for e in ENDED) and tasks.get(s.task)
    ]
    if any(s.missing for s in states) and not running:
        for line in describe_gaps(plan, states):
            console.print(line, highlight=False, soft_wrap=True)
    for line in _merged_state(plan):
        console.print(line, highlight=False, soft_wrap=True)
    return all(s.complete for s in states)
