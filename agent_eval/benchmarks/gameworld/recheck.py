"""A GameWorld task's verdicts checked again from its timeline: every step keeps the state getState() gave (the one
the evaluator judged), so an evaluator run over the kept states again, the game reset where the task was reset,
must give the verdicts recorded. The evaluator is this project's (evaluator.py), or GameWorld's own
env/task_evaluator.py put in its place (scripts/gameworld_reference_check.py --run RUN reads your copy)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from agent_eval.benchmarks.gameworld.evaluator import TaskEvaluator, TaskRules, as_float
from agent_eval.benchmarks.gameworld.records import read_record, read_steps

VERDICT = ("status", "stop_reason", "should_stop", "should_reset")  # and the progress, compared as a number


class NotRecheckable(ValueError):
    """A task folder whose timeline cannot be checked again (written before states were kept, or not a task)."""


@dataclass
class Recheck:
    """How the verdicts evaluated again compare with the recorded ones: how many, and each difference in words."""

    task: str
    verdicts: int = 0
    differences: list[str] = field(default_factory=list)


def recheck_folder(
    directory: Path, rules: TaskRules, make: Callable[[TaskRules], TaskEvaluator] = TaskEvaluator
) -> Recheck:
    """A task folder (`<item>/game/`) checked again with `make(rules)`'s evaluator (`rules`: its task file's, the
    step budget the one the task ran with), run over the kept states as the session ran it: the evaluated role's
    steps in order, the episode cleared after each reset that was made; each verdict compared with the recorded one."""
    record = read_record(directory)
    if record is None:
        raise NotRecheckable(f"{directory}: no task.json (not a GameWorld task's folder)")
    if not record.get("states_kept"):
        raise NotRecheckable(f"{directory}: its timeline was written before the states were kept; nothing to check")
    evaluator = make(replace(rules, max_steps=record.get("max_steps", rules.max_steps)))
    out = Recheck(str(record.get("task")))
    for step in read_steps(directory):
        if step.evaluation is None:  # another role's step: not evaluated
            continue
        result = evaluator.after_step(step.state)
        out.verdicts += 1
        again = {key: getattr(result, key) for key in VERDICT} | {
            "progress": as_float((result.metrics or {}).get("progress"))
        }
        recorded = {key: step.evaluation.get(key) for key in (*VERDICT, "progress")}
        differ = [f"{key} {again[key]!r}, recorded {recorded[key]!r}" for key in again if again[key] != recorded[key]]
        if differ:
            out.differences.append(f"step {step.step}: {'; '.join(differ)}")
        if step.reset_frame is not None and not step.reset_failed:
            evaluator.reset_done()
    return out
