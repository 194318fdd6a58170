"""The two batch scripts a submission writes into its `.slurm` folder, readable and rerunnable by hand:
`array.sbatch` (one task per cell x shard, each an `agent-eval run --shard K/N`) and `merge.sbatch`."""

from __future__ import annotations

import shlex

from agent_eval.engine.slurm.plan import SlurmPlan


def _header(plan: SlurmPlan, lines: list[str]) -> list[str]:
    extra = [f"#SBATCH {shlex.join(plan.sbatch_args)}"] if plan.sbatch_args else []
    return ["#!/bin/bash", *lines, *extra, "set -euo pipefail", f"cd {shlex.quote(plan.workdir)}"]


def array_script(plan: SlurmPlan) -> str:
    cases = []
    for index, cell in enumerate(plan.cells):
        cases.append(f"  {index}) NAME={shlex.quote(cell.name)}; ARGS=({shlex.join(cell.args)}) ;;")
    shards_dir = shlex.quote(str(plan.folder / "shards"))
    return "\n".join(
        [
            *_header(
                plan,
                [
                    f"# Written by `agent-eval slurm submit`: {len(plan.cells)} cell(s) x {plan.shards} shard(s).",
                    "# Task T runs cell T / SHARDS, shard T % SHARDS + 1, into shards/<cell>.shard<K>of<N>/ "
                    "(resumable:",
                    "# a requeued or resubmitted task continues its shard). Rerun some tasks by hand with",
                    f"#   sbatch --array=T1,T2 {plan.folder / 'array.sbatch'}",
                    f"#SBATCH --job-name={plan.job_name}",
                    f"#SBATCH --array=0-{plan.n_tasks - 1}",
                    f"#SBATCH --output={plan.folder / 'logs' / 'task-%a.out'}",
                    "#SBATCH --open-mode=append",  # a requeued task appends to its log instead of overwriting it
                    "#SBATCH --requeue",
                ],
            ),
            f"SHARDS={plan.shards}",
            'TASK="${SLURM_ARRAY_TASK_ID:?submit this script with sbatch --array}"',
            "CELL=$((TASK / SHARDS)); K=$((TASK % SHARDS + 1))",
            'case "$CELL" in',
            *cases,
            '  *) echo "array task $TASK is outside this submission (0-' + str(plan.n_tasks - 1) + ')" >&2; exit 2 ;;',
            "esac",
            'echo "== $(date -u +%FT%TZ) task $TASK (job ${SLURM_JOB_ID:-?}, restart ${SLURM_RESTART_COUNT:-0}) '
            'on $(hostname): $NAME shard $K/$SHARDS"',
            f'exec {shlex.quote(plan.agent_eval)} run "${{ARGS[@]}}" --shard "$K/$SHARDS" --out-dir {shards_dir} '
            '--run-name "$NAME.shard${K}of${SHARDS}"',
            "",
        ]
    )


def merge_script(plan: SlurmPlan) -> str:
    return "\n".join(
        [
            *_header(
                plan,
                [
                    "# Written by `agent-eval slurm submit`: merges the shards once every array task has ended",
                    "# (submitted with --dependency=afterany:<array job>). It names missing items and the resubmit",
                    "# command instead of merging a partial run.",
                    f"#SBATCH --job-name={plan.job_name}",
                    f"#SBATCH --output={plan.folder / 'logs' / 'merge-%j.out'}",
                ],
            ),
            f"exec {shlex.quote(plan.agent_eval)} slurm merge {shlex.quote(plan.root)}",
            "",
        ]
    )
