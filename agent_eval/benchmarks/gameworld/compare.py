"""The GameWorld part of `agent-eval compare` and `agent-eval table`: on the tasks every run played, GameWorld's two
suite measures side by side, success rate (paired by the exact McNemar test) and mean progress (paired permutation
test), with steps and resets; per task each run's status and progress. With repeats, a task's value is its mean
over repeats; an item whose agent or game failed counts as not succeeded, with the progress it reached (none: 0)."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from agent_eval.analysis.comparison_result import Comparison, Measure
from agent_eval.analysis.stats import ALPHA, paired, sign_flip_test
from agent_eval.analysis.verdicts import verdict
from agent_eval.benchmarks.games.reading import Cells, GameTables
from agent_eval.benchmarks.gameworld.grading import TaskMetrics


def per_task(records) -> dict[str, dict[str, Any]]:
    by: dict[str, list[TaskMetrics]] = defaultdict(list)
    for r in records:
        by[r.id].append(TaskMetrics.of(r))
    return {
        task: {
            "success": sum(m.success for m in runs) / len(runs),
            "progress": statistics.fmean(m.progress or 0.0 for m in runs),
            "steps": statistics.fmean(m.steps for m in runs),
            "resets": statistics.fmean(m.resets for m in runs),
        }
        for task, runs in by.items()
    }


def compared(runs, letters: list[str], shared: list[str], n_resamples: int, seed: int) -> TasksComparison:
    """The runs on the tasks every one played: the suite's two measures, each paired against the first run's."""
    tables = [per_task(run.records) for run in runs]
    ids = [i for i in shared if all(i in t for t in tables)]
    columns = [{k: [t[i][k] for i in ids] for k in ("success", "progress", "steps", "resets")} for t in tables]
    first = columns[0]
    row: dict[str, Any] = {
        "n": len(ids),
        "success_rate": [statistics.fmean(c["success"]) if ids else None for c in columns],
        "mean_progress": [statistics.fmean(c["progress"]) if ids else None for c in columns],
        "steps": [sum(c["steps"]) for c in columns],
        "resets": [sum(c["resets"]) for c in columns],
        "success_vs_first": [None]
        + [paired(first["success"], c["success"], n_resamples, seed).to_json() for c in columns[1:]],
        "progress_vs_first": [None]
        + [
            {
                "diff": statistics.fmean(b - a for a, b in zip(first["progress"], c["progress"])) if ids else None,
                **sign_flip_test(first["progress"], c["progress"], n_resamples, seed),
            }
            for c in columns[1:]
        ],
    }
    tasks = [{"task": i, **{k: [t[i][k] for t in tables] for k in ("success", "progress", "steps")}} for i in ids]
    verdicts = []
    for j, letter in enumerate(letters[1:], start=1):
        verdicts.append(verdict(letter, row["success_vs_first"][j], "tasks succeeded", "succeeded"))
        s = row["progress_vs_first"][j]
        sig = "significant" if s["p_value"] < ALPHA else "not significant"
        diff = "?" if s["diff"] is None else f"{s['diff']:+.3f}"
        verdicts.append(
            f"{letter} vs A, progress per task: {diff}, paired permutation p = {s['p_value']:.3g} "
            f"({'exact' if s['exact'] else 'Monte Carlo'}, {s['nonzero']} tasks differ): {sig} at α={ALPHA}"
        )
    return TasksComparison(verdicts=verdicts, tasks={"overall": row, "tasks": tasks})


def _num(value, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


@dataclass
class TasksComparison(GameTables):
    """Success rate and mean progress per run, with their paired tests ("overall"), and per task ("tasks")."""

    tasks: dict = field(default_factory=dict)

    def table_measures(self) -> list[Measure]:
        row = self.tasks["overall"]
        return [
            Measure(
                "mean progress (GameWorld)",
                row["mean_progress"],
                digits=3,
                vs_first=row["progress_vs_first"],
                test="paired permutation test per task",
                change_name="progress per task",
            )
        ]

    def to_json(self) -> dict:
        return {"tasks": self.tasks}  # compare.json's "tasks": "overall" and per task

    def tables(self, data: Comparison) -> tuple[Cells, Cells]:
        row = self.tasks["overall"]
        header = ["run", "tasks", "success rate", "mean progress", "p success", "p progress", "steps", "resets"]
        body = [
            [run["letter"], str(row["n"]), _num(row["success_rate"][k]), _num(row["mean_progress"][k])]
            + [f"{row[f'{m}_vs_first'][k]['p_value']:.3g}" if k else "—" for m in ("success", "progress")]
            + [_num(row["steps"][k], 0), _num(row["resets"][k], 0)]
            for k, run in enumerate(data.runs)
        ]
        per = [
            [t["task"], run["letter"], _num(t["success"][k], 2), _num(t["progress"][k]), _num(t["steps"][k], 0)]
            for t in self.tasks["tasks"]
            for k, run in enumerate(data.runs)
        ]
        title = "GameWorld tasks: success rate and mean progress on the shared tasks"
        heading = "GameWorld (success: exact McNemar; progress: paired permutation):"
        overall = Cells(title, heading, header, body)
        return overall, Cells("per task", "Per task:", ["task", "run", "success", "progress", "steps"], per)
