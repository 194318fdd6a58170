"""GameWorld's task evaluator (`game_api_metric`, its env/task_evaluator.py), as a pure module: the same rules,
written here (GameWorld carries no licence, so nothing of it is copied), checked rule by rule in
tests/benchmarks/test_gameworld_evaluator.py against the reference's own statements, and field by field against
a checkout's own by scripts/gameworld_reference_check.py. docs/kinds/gameworld.md states the rules: the score from
the state read after each action, the best per episode and over the task, progress towards the target, the reset
after a failed terminal, the stop reason (STOP_REASONS, in the reference's order). `TaskEvaluator` is the rule over
a whole task as the reference's coordinator drives it; `suite_summary` its suite runner's report."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

EVALUATOR_ID = "game_api_metric"
# The stop reasons, in the order the reference decides them: the first that holds is the step's.
STOP_REASONS = ("terminal_fail_reset", "target_reached", "max_steps_exhausted", "end_field", "game_terminal")
# What a reset clears: the episode's own score and progress (the task's bests stay).
EPISODE_KEYS = ("score_current", "score_start", "score_best", "progress_current")
TERMINAL_END_FIELD = "terminal.isTerminal"


@dataclass(frozen=True)
class TaskRules:
    """A task file's evaluator settings (what VISTA's adapter left out, so nothing it ran was scored)."""

    config: Mapping[str, Any]  # evaluator_config, as the task file gives it
    start_score: float = 0.0  # task_start_score_field
    target_score: float | None = None  # task_target_score_field
    max_steps: int | None = None
    continue_on_fail: bool = True


@dataclass
class Evaluation:
    """One evaluation: the task's status (success, fail, unknown, error), its metrics, what the harness does next."""

    status: str
    summary: str
    metrics: dict[str, Any]
    should_stop: bool
    should_reset: bool
    stop_reason: str | None
    finalized: bool

    @property
    def progress(self) -> float | None:
        return as_float(self.metrics.get("progress"))


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def as_float(value: Any) -> float | None:
    return float(value) if _number(value) else None


def lookup(state: Any, path: str) -> tuple[bool, Any]:
    """(found, value) of a dotted path into nested mappings; a value of None is found."""
    current = state
    for key in path.split("."):
        if not isinstance(current, dict) or key not in current:
            return False, None
        current = current[key]
    return True, current


def _note(bucket: list[str], message: str) -> None:
    if message not in bucket:
        bucket.append(message)


def _read_number(state: dict | None, path: str, name: str, issues: list[str]) -> float | None:
    """One score field's value: None when missing or not a number (each said in `issues`), or when null (said
    nowhere: the game does not know it yet)."""
    found, value = lookup(state, path)
    if not found:
        _note(issues, f"missing {name} '{path}'")
    elif value is not None and not _number(value):
        _note(issues, f"{name} '{path}' is not numeric")
    return float(value) if found and _number(value) else None


def _score(state: dict | None, config: Mapping[str, Any], errors: list[str], issues: list[str]) -> float | None:
    """This step's score: the sum of aggregate_score_fields when given, else score_field; None when missing."""
    fields = config.get("aggregate_score_fields")
    if fields is None:
        path = config.get("score_field")
        if not isinstance(path, str) or not path.strip():
            errors.append("missing evaluator score source: set evaluator_config.score_field or aggregate_score_fields")
            return None
        return _read_number(state, path, "score field", issues)
    if not isinstance(fields, (list, tuple)) or not fields:
        errors.append("evaluator_config.aggregate_score_fields must be a non-empty list when provided")
        return None
    total = 0.0
    for path in fields:  # in order: the first field that fails decides (a later bad path is not looked at)
        if not isinstance(path, str) or not path.strip():
            errors.append("evaluator_config.aggregate_score_fields must contain non-empty string paths")
            return None
        value = _read_number(state, path, "aggregate score field", issues)
        if value is None:
            return None
        total += value
    return total


def _keep_scores(metrics: dict[str, Any], score: float | None, start: float) -> float | None:
    """The episode's start, current and best score, and the task's best; returns the episode's best."""
    episode_start = as_float(metrics.get("score_start"))
    metrics["score_start"] = start if episode_start is None else episode_start
    if score is None:
        return as_float(metrics.get("score_best"))
    metrics["score_current"] = score
    for key in ("score_best", "score_run_best"):
        earlier = as_float(metrics.get(key))
        metrics[key] = score if earlier is None else max(earlier, score)
    metrics["score"] = metrics["score_run_best"]
    return metrics["score_best"]


def _keep_progress(metrics: dict[str, Any], target: float | None) -> bool:
    """This episode's progress, the task's best progress, and whether the target has been reached."""
    start, best = as_float(metrics.get("score_start")), as_float(metrics.get("score_best"))
    reached = bool(metrics.get("target_reached"))
    if target is None or start is None or best is None:
        metrics.pop("progress_current", None)
        if "progress_best" not in metrics:
            metrics.pop("progress", None)
        metrics["target_reached"] = reached
        return reached
    if target <= start:  # nothing to climb: all or nothing
        current = 1.0 if best >= target else 0.0
    else:
        current = min(1.0, max(0.0, (best - start) / (target - start)))
    earlier = as_float(metrics.get("progress_best"))
    metrics["progress_current"] = current
    metrics["progress_best"] = current if earlier is None else max(earlier, current)
    metrics["progress"] = metrics["progress_best"]
    metrics["target_reached"] = reached or best >= target
    return metrics["target_reached"]


def _end_field(state: dict | None, config: Mapping[str, Any], errors: list[str], issues: list[str]) -> tuple[bool, str]:
    """(whether the end field holds its end value, the end field's path or "")."""
    path = config.get("end_field", "")
    if path in ("", None):
        return False, ""
    if not isinstance(path, str) or not path.strip():
        errors.append("evaluator_config.end_field must be a non-empty string when provided")
        return False, ""
    found, value = lookup(state, path)
    if not found:
        _note(issues, f"missing end field '{path}'")
        return False, path
    return value == config.get("end_value", True), path


def _summary_of(issues: list[str], prefix: str) -> str:
    shown = issues[:2]
    more = f"; +{len(issues) - len(shown)} more" if len(issues) > len(shown) else ""
    return f"{prefix}: {'; '.join(shown)}{more}"


def evaluate(
    rules: TaskRules, state: Any, step_index: int, metrics: Mapping[str, Any] | None, *, finalized: bool = False
) -> Evaluation:
    """One evaluation of the state read after step `step_index` (1-based), given the metrics so far."""
    config = rules.config if isinstance(rules.config, Mapping) else {}
    state = state if isinstance(state, dict) else None
    metrics = dict(metrics or {})
    start = float(rules.start_score) if _number(rules.start_score) else 0.0
    target = as_float(rules.target_score)
    if target is None:
        metrics.pop("task_target_score", None)
    else:
        metrics["task_target_score"] = target
    errors: list[str] = []
    issues: list[str] = []

    best = _keep_scores(metrics, _score(state, config, errors, issues), start)
    reached = _keep_progress(metrics, target)
    extra = config.get("metrics_fields")
    if isinstance(extra, (list, tuple)):
        for path in extra:
            if isinstance(path, str) and path:
                found, value = lookup(state, path)
                metrics[path] = value if found else None
    end_match, end_path = _end_field(state, config, errors, issues)

    terminal = state.get("terminal") if state is not None else None
    terminal_hit = isinstance(terminal, dict) and terminal.get("isTerminal") is True
    outcome = terminal.get("outcome") if isinstance(terminal, dict) else None
    outcome = outcome if isinstance(outcome, str) and outcome else None
    budget_spent = isinstance(step_index, int) and isinstance(rules.max_steps, int) and step_index >= rules.max_steps
    if budget_spent and target is not None and best is None and not errors and not issues:
        if config.get("aggregate_score_fields") is not None:
            _note(issues, "aggregate score fields never produced a numeric value")
        else:
            _note(issues, f"score field '{config.get('score_field')}' never produced a numeric value")

    should_reset = (
        bool(rules.continue_on_fail)
        and terminal_hit
        and outcome == "fail"
        and not reached
        and not budget_spent
        and not (end_match and end_path != TERMINAL_END_FIELD)
    )
    if should_reset and end_path == TERMINAL_END_FIELD:
        end_match = False  # the failed episode's end is the reset's, not the task's

    holds = (should_reset, reached, budget_spent, end_match, terminal_hit)
    stop_reason = next((reason for reason, held in zip(STOP_REASONS, holds) if held), None)
    should_stop = stop_reason not in (None, "terminal_fail_reset")
    terminal_status = str(config.get("terminal_status", "unknown"))
    if errors:
        status = "error"
    elif issues:
        status = "unknown"
    elif reached:
        status = "success"
    elif should_reset or budget_spent:
        status = "fail"
    elif terminal_hit:
        status = outcome if outcome in ("success", "fail") else terminal_status
    elif end_match:
        status = terminal_status
    else:
        status = "unknown"

    metrics["stop_reason"] = stop_reason
    metrics["finalized"] = finalized
    if errors:
        summary = _summary_of(errors, "evaluator config error")
    elif issues:
        summary = _summary_of(issues, "evaluator unresolved fields")
        if stop_reason == "max_steps_exhausted":
            summary += "; step budget exhausted"
    elif should_reset:
        summary = "terminal fail; reset and continue"
    elif not should_stop:
        summary = ""
    elif status == "success":
        summary = "task complete"
    elif stop_reason == "max_steps_exhausted":
        summary = "step budget exhausted"
    elif status == "fail":
        summary = "task failed"
    else:
        summary = "task complete"
    for key, listed in (("evaluation_config_errors", errors), ("evaluation_runtime_issues", issues)):
        if listed:
            metrics[key] = list(listed)
        else:
            metrics.pop(key, None)
    return Evaluation(status, summary, metrics, should_stop, should_reset, stop_reason, finalized)


def reset_episode(metrics: Mapping[str, Any] | None) -> dict[str, Any]:
    """The metrics after a reset: the episode's own score and progress cleared, the task's bests kept."""
    if not isinstance(metrics, Mapping):
        return {}
    kept = {key: value for key, value in metrics.items() if key not in EPISODE_KEYS}
    if _number(kept.get("score_run_best")):
        kept["score"] = float(kept["score_run_best"])
    if _number(kept.get("progress_best")):
        kept["progress"] = float(kept["progress_best"])
    else:
        kept.pop("progress", None)
    kept["finalized"] = False
    kept["stop_reason"] = None
    return kept


@dataclass
class TaskEvaluator:
    """The evaluator over one task as GameWorld's coordinator drives it: `after_step(state)` once per step of the
    evaluated role (steps counted from 1); an evaluation that stops is made again as the final one; `reset_done()`
    after the game was reset on a failed terminal. `last` is what the suite reads at the end. `rule` and `clear`
    are this module's `evaluate` and `reset_episode` (GameWorld's own, given in their place, check a record
    against the reference: scripts/gameworld_reference_check.py --run)."""

    rules: TaskRules
    steps: int = 0
    metrics: dict[str, Any] = field(default_factory=dict)
    last: Evaluation | None = None
    rule: Callable[..., Evaluation] = evaluate  # (rules, state, step, metrics, finalized=...) -> an evaluation
    clear: Callable[[Any], dict[str, Any]] = reset_episode  # the metrics after a reset

    def after_step(self, state: Any) -> Evaluation:
        self.steps += 1
        result = self.rule(self.rules, state, self.steps, self.metrics, finalized=False)
        self.metrics = dict(result.metrics) if result.metrics else self.metrics
        if result.should_stop and not result.should_reset:
            result = self.rule(self.rules, state, self.steps, self.metrics, finalized=True)
            self.metrics = dict(result.metrics) if result.metrics else self.metrics
        self.last = result
        return result

    def reset_done(self) -> None:
        self.metrics = self.clear(self.metrics)


@dataclass(frozen=True)
class TaskResult:
    """What GameWorld's suite reads of one task run: its final status and progress."""

    status: str  # success, fail, unknown, error
    progress: float | None


def suite_summary(results: Sequence[TaskResult]) -> dict[str, Any]:
    """The suite's report: success rate over all task runs, mean progress over those with one."""
    total = len(results)
    progress = [r.progress for r in results if _number(r.progress)]
    counts = {status: sum(r.status == status for r in results) for status in ("success", "fail", "error")}
    return {
        "total_runs": total,
        "success_runs": counts["success"],
        "fail_runs": counts["fail"],
        "error_runs": counts["error"],
        "task_avg_success_rate": counts["success"] / total if total else 0.0,
        "task_avg_progress": sum(progress) / len(progress) if progress else None,  # type: ignore[arg-type]
    }
