"""Grading from the game, as GameWorld's suite grades: a task's record is its last evaluation (read from the item's
`game/result.json`): `correct` means its status was `success`; progress is the evaluator's best progress. The run's
summary is the suite's: success rate over the tasks run, mean progress over those that have one. The final text's
<answer> tag only says whether the agent ended as asked."""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Sequence
from pathlib import Path

from pydantic.dataclasses import dataclass

from agent_eval.analysis.measures import graded
from agent_eval.benchmarks.answers import extract_answer
from agent_eval.benchmarks.base import BenchmarkGrade, KindMetrics
from agent_eval.benchmarks.gameworld import evaluator
from agent_eval.benchmarks.gameworld.evaluator import TaskResult, suite_summary
from agent_eval.benchmarks.gameworld.records import read_end
from agent_eval.benchmarks.notes import read_history


@dataclass
class TaskMetrics(KindMetrics):
    """What a GameWorld task record's `metrics` holds."""

    game: str | None = None
    status: str = "unknown"  # the last evaluation's: success, fail, unknown, error
    progress: float | None = None  # the evaluator's best progress, 0-1
    score: float | None = None  # the best score over the task (score_run_best)
    target: float | None = None
    stop_reason: str | None = None
    summary: str = ""
    steps: int = 0  # steps taken, every role
    max_steps: int | None = None
    resets: int = 0  # failed terminals reset within the budget
    invalid_steps: int = 0  # steps that sent nothing (an invalid action, an official decision without a call)
    frames: int = 0
    game_s: float = 0.0  # game time played
    restores: int = 0  # times the task was replayed after the harness was killed
    started_over: list[str] | None = None  # why a record that did not replay was abandoned
    notes_written: int = 0
    evaluator_metrics: dict | None = None  # the evaluator's own metrics at the end, as GameWorld logs them

    @property
    def success(self) -> bool:
        return self.status == "success"


def grade_task(final_text: str | None, item, item_root: Path) -> tuple[TaskMetrics | None, str | None, bool]:
    """(metrics, the task's error or None, whether the final text had an answer tag)."""
    _, has_tag = extract_answer(final_text)
    end = read_end(item_root)
    if end is None:
        return None, f"{item.id}: the task left no result (game/result.json is missing)", has_tag
    best = end.metrics.get("score_run_best")
    copied = ("status", "progress", "stop_reason", "summary", "steps", "max_steps", "resets", "invalid_steps", "frames")
    metrics = TaskMetrics(
        game=end.game,
        score=float(best) if isinstance(best, (int, float)) and not isinstance(best, bool) else None,
        target=item.task_def.rules.target_score,
        game_s=end.game_s,
        evaluator_metrics=dict(end.metrics),
        **{name: getattr(end, name) for name in copied},
    )
    # How the task survived restarts of the harness (not grading: left out of the rules' hash)
    metrics.restores = sum(r.get("outcome") == "replayed" for r in end.restores)
    metrics.started_over = [r.get("why", "") for r in end.restores if r.get("outcome") == "started over"] or None
    metrics.notes_written = len(read_history(item_root))
    return metrics, end.error, has_tag


def task_grade(final_text: str | None, item, item_root: Path) -> BenchmarkGrade:
    """The record's verdict: correct when the evaluator's last status was success; the game's own failure, if any."""
    metrics, error, has_tag = grade_task(final_text, item, item_root)
    if metrics is None:  # no result.json: the task never ran to its end here
        return BenchmarkGrade("", False, has_tag, error=error)
    progress = "?" if metrics.progress is None else f"{metrics.progress:.2f}"
    score = "" if metrics.score is None else f", best score {metrics.score:g}"
    target = "" if metrics.target is None else f" of {metrics.target:g}"
    said = f"{metrics.status}: progress {progress}{score}{target} in {metrics.steps} steps"
    return BenchmarkGrade(said, metrics.success, has_tag, metrics=metrics, error=error)


def rollup_records(records: Sequence) -> dict:
    """rollup.json's part (and show's, report's, the measures'): the suite's measures over the graded records, as
    GameWorld's suite reports them, plus steps and resets."""
    metrics = [TaskMetrics.of(r) for r in graded(records)]
    summary = suite_summary([TaskResult(m.status, m.progress) for m in metrics])
    return {
        "tasks": len(metrics),
        "success_rate": summary["task_avg_success_rate"],
        "mean_progress": summary["task_avg_progress"],
        "successes": summary["success_runs"],
        "fails": summary["fail_runs"],
        "errors": summary["error_runs"],
        "steps": sum(m.steps for m in metrics),
        "resets": sum(m.resets for m in metrics),
    }


def rules_hash() -> str:
    """What grading means, hashed: a change to the evaluator or here changes every run's scorer hash."""
    from agent_eval.benchmarks import answers

    source = inspect.getsource(evaluator) + inspect.getsource(grade_task) + inspect.getsource(answers)
    return "gameworld-" + hashlib.sha256(source.encode()).hexdigest()[:12]
