"""What a Slurm submission runs, kept in `<name>.slurm/job.json` beside the scripts: the cells (one
`agent-eval run` command line each), the shard count, and the items every shard must grade, so the
merge step and `status` can say exactly what is missing without the dataset at hand.

Array task T runs cell T // N, shard T % N + 1 (N shards per cell): a sweep's cells x shards are
one array. Shard K of cell C lives in `shards/<C>.shard<K>of<N>/`, an ordinary resumable run.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from agent_eval.datamodel.results import ResultsError, write_json_atomic
from agent_eval.engine.selection import shard_of

PLAN_FILE = "job.json"
ARRAY_SCRIPT = "array.sbatch"
MERGE_SCRIPT = "merge.sbatch"


@dataclass
class Cell:
    name: str
    args: list[str]  # `agent-eval run` options, without --shard/--out-dir/--run-name
    expected: dict[str, list[list]]  # shard number (as text, JSON keys) -> [[item id, repeat], ...]


@dataclass
class SlurmPlan:
    name: str
    kind: str  # "run" or "sweep"
    shards: int
    root: str  # the `<name>.slurm` folder: scripts, job.json, logs, shards
    target: str  # the merged run (kind run) or the sweep folder (kind sweep)
    cells: list[Cell]
    agent_eval: str  # the executable the tasks run
    workdir: str
    sbatch_args: list[str] = field(default_factory=list)
    submissions: list[dict] = field(default_factory=list)
    schema_version: int = 1

    # -- where things are -------------------------------------------------------------------------
    @property
    def folder(self) -> Path:
        return Path(self.root)

    @property
    def job_name(self) -> str:
        """One name for the array and its merge job, unique to this folder (squeue finds both)."""
        return f"agent-eval:{self.name}:{hashlib.sha256(self.root.encode()).hexdigest()[:6]}"

    @property
    def n_tasks(self) -> int:
        return len(self.cells) * self.shards

    def task_of(self, cell_index: int, shard: int) -> int:
        return cell_index * self.shards + shard - 1

    def shard_dir(self, cell: Cell, shard: int) -> Path:
        return self.folder / "shards" / f"{cell.name}.shard{shard}of{self.shards}"

    def merged_dir(self, cell: Cell) -> Path:
        return Path(self.target) if self.kind == "run" else Path(self.target) / cell.name

    def resubmit_command(self, tasks: list[int]) -> str:
        """One pasteable line: the listed array tasks again, then the merge once they have all ended."""
        array = ",".join(map(str, sorted(tasks)))
        return (
            f"sbatch --dependency=afterany:$(sbatch --parsable --array={array} {self.folder / ARRAY_SCRIPT}) "
            f"{self.folder / MERGE_SCRIPT}"
        )

    # -- file -------------------------------------------------------------------------------------
    def save(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.folder / PLAN_FILE, asdict(self))

    def same_work(self, other: "SlurmPlan") -> bool:
        return (self.shards, [(c.name, c.args, c.expected) for c in self.cells]) == (
            other.shards,
            [(c.name, c.args, c.expected) for c in other.cells],
        )


def load_plan(path: Path) -> SlurmPlan:
    """From the `.slurm` folder, or from the merged run, sweep or sweep cell folder beside it."""
    path = Path(path)
    candidates = [path, path.with_name(path.name + ".slurm"), path.parent.with_name(path.parent.name + ".slurm")]
    for folder in candidates:
        if (folder / PLAN_FILE).is_file():
            data = json.loads((folder / PLAN_FILE).read_text(encoding="utf-8"))
            data["cells"] = [Cell(**cell) for cell in data["cells"]]
            return SlurmPlan(**data)
    raise ResultsError(
        f"{path}: no {PLAN_FILE} here or in {path.name}.slurm/; give the folder that "
        f"`agent-eval slurm submit` wrote (it printed it)"
    )


def expected_keys(items: list, shards: int, repeats: int) -> dict[str, list[list]]:
    return {
        str(k): [[item.id, r] for r in range(repeats) for item in shard_of(items, k, shards)]
        for k in range(1, shards + 1)
    }


def agent_eval_executable() -> str:
    """The `agent-eval` of this installation (beside the running Python, as in a venv), absolute."""
    beside = Path(sys.executable).parent / "agent-eval"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside.absolute())
    found = shutil.which("agent-eval")
    if not found:
        raise ResultsError(
            "cannot find the agent-eval executable to put in the job script; "
            "install the package (make setup) and run this from its environment"
        )
    return str(Path(found).absolute())


def new_plan(
    name: str, kind: str, shards: int, root: Path, target: Path, cells: list[Cell], sbatch_args: list[str]
) -> SlurmPlan:
    """A plan for `root`; a resubmission of the same work into the same folder keeps its history."""
    plan = SlurmPlan(
        name=name,
        kind=kind,
        shards=shards,
        root=str(root.absolute()),
        target=str(target.absolute()),
        cells=cells,
        agent_eval=agent_eval_executable(),
        workdir=os.getcwd(),
        sbatch_args=sbatch_args,
    )
    if (root / PLAN_FILE).is_file():
        old = load_plan(root)
        if not old.same_work(plan):
            raise ResultsError(
                f"{root} already holds a Slurm submission of different work (cells, items or "
                f"shard count); choose another --out-dir or --run-name, or remove that folder"
            )
        plan.submissions = old.submissions
    return plan
