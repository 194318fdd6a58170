"""GameWorld's evaluator, rule by rule (agent_eval/benchmarks/gameworld/evaluator.py).

Each test quotes the rule it checks from the reference, gameworld-project/gameworld env/task_evaluator.py and
runtime/coordinator.py (commit e236a39; no licence: short quotes for reference only), and uses the evaluator
settings of the catalog's own task files (catalog/tasks/<game>/<task>.yaml) where one fits."""

from __future__ import annotations

import pytest

from agent_eval.benchmarks.gameworld.evaluator import (
    STOP_REASONS,
    TaskEvaluator,
    TaskResult,
    TaskRules,
    evaluate,
    reset_episode,
    suite_summary,
)

# catalog/tasks/01_2048/01_01.yaml: target 32, start 0, 100 steps
CONFIG_2048 = {
    "terminal_status": "success",
    "score_field": "game_state.level",
    "end_field": "terminal.isTerminal",
    "metrics_fields": ["game_state.score", "game_state.level", "terminal.outcome", "terminal.isTerminal"],
}
# catalog/tasks/12_fireboy-and-watergirl/12_01.yaml: target 2.0, both score_field and aggregate_score_fields
CONFIG_FIREBOY = {
    "terminal_status": "fail",
    "score_field": "game_state.score",
    "aggregate_score_fields": [
        "game_state.diamonds.fireboy.collected",
        "game_state.diamonds.watergirl.collected",
    ],
    "end_field": "terminal.isTerminal",
}
# catalog/tasks/09_cubefield/09_04.yaml: target 60000, no end_field
CONFIG_CUBEFIELD = {"terminal_status": "success", "score_field": "game_state.score"}


def rules(config=CONFIG_2048, target=32.0, start=0.0, max_steps=100, continue_on_fail=True) -> TaskRules:
    return TaskRules(config, start, target, max_steps, continue_on_fail)


def state(level=None, score=None, terminal=False, outcome=None, **extra) -> dict:
    return {
        "status": "terminal" if terminal else "playing",
        "terminal": {"isTerminal": terminal, "outcome": outcome},
        "game_state": {"level": level, "score": score, **extra},
    }


def test_the_score_is_the_score_field_and_progress_is_clamped():
    """`progress_current = (score_best - score_start) / (target_score - score_start)`, clamped to [0, 1];
    `score_field` is a dotted path: `for key in path.split(".")`."""
    first = evaluate(rules(), state(level=8), 1, {})
    assert first.metrics["score_current"] == 8.0
    assert first.progress == pytest.approx(0.25)
    assert first.status == "unknown" and first.stop_reason is None and not first.should_stop
    over = evaluate(rules(), state(level=64), 2, first.metrics)
    assert over.progress == 1.0  # clamped: 64 of 32


def test_the_best_score_is_kept_when_the_score_falls():
    """`score_best = max(previous_best, score)`; `progress_best = max(previous_progress_best, progress_current)`."""
    metrics = evaluate(rules(), state(level=16), 1, {}).metrics
    after = evaluate(rules(), state(level=4), 2, metrics)
    assert after.metrics["score_current"] == 4.0
    assert after.metrics["score_best"] == 16.0 and after.progress == 0.5


def test_negative_progress_is_zero():
    """`if progress_current < 0.0: progress_current = 0.0` (a score below the task's start)."""
    result = evaluate(rules(start=10.0), state(level=2), 1, {})
    assert result.progress == 0.0


def test_aggregate_score_fields_are_summed_and_win_over_score_field():
    """`aggregate_score_fields = config.get(...)`; `if aggregate_score_fields is not None:` ... `total +=
    numeric_value` (the fireboy task also names a score_field, which is then not read)."""
    diamonds = {"fireboy": {"collected": 1}, "watergirl": {"collected": 1}}
    result = evaluate(rules(CONFIG_FIREBOY, target=2.0), state(score=99, diamonds=diamonds), 1, {})
    assert result.metrics["score_current"] == 2.0
    assert result.status == "success" and result.stop_reason == "target_reached"


def test_a_null_aggregate_field_is_no_score_and_no_issue():
    """`if current is None: return None` (no issue recorded), while a missing one is: `missing aggregate score
    field`."""
    nulls = {"fireboy": {"collected": None}, "watergirl": {"collected": 1}}
    result = evaluate(rules(CONFIG_FIREBOY, target=2.0), state(diamonds=nulls), 1, {})
    assert "score_current" not in result.metrics and result.status == "unknown"
    assert "evaluation_runtime_issues" not in result.metrics
    missing = evaluate(rules(CONFIG_FIREBOY, target=2.0), state(diamonds={"fireboy": {"collected": 1}}), 1, {})
    assert missing.metrics["evaluation_runtime_issues"] == [
        "missing aggregate score field 'game_state.diamonds.watergirl.collected'"
    ]
    assert missing.summary.startswith("evaluator unresolved fields: missing aggregate score field")


def test_a_missing_or_non_numeric_score_field_is_an_unresolved_field():
    """`missing score field '...'`; `score field '...' is not numeric` (a bool is not a number:
    `isinstance(value, (int, float)) and not isinstance(value, bool)`); such a step's status is `unknown`."""
    missing = evaluate(rules(), {"game_state": {}, "terminal": {"isTerminal": False}}, 1, {})
    assert missing.status == "unknown"
    assert missing.metrics["evaluation_runtime_issues"] == ["missing score field 'game_state.level'"]
    boolean = evaluate(rules(), state(level=True), 1, {})
    assert boolean.metrics["evaluation_runtime_issues"] == ["score field 'game_state.level' is not numeric"]
    no_state = evaluate(rules(), None, 1, {})
    assert no_state.status == "unknown"


def test_a_null_score_field_is_no_score_this_step():
    """`if current is None: return None`, and then `return _to_float(metrics.get("score_best"))`: the best so far."""
    metrics = evaluate(rules(), state(level=16), 1, {}).metrics
    result = evaluate(rules(), state(level=None), 2, metrics)
    assert result.metrics["score_best"] == 16.0 and result.progress == 0.5
    assert "evaluation_runtime_issues" not in result.metrics


def test_config_errors_make_the_status_error():
    """`evaluator_config.aggregate_score_fields must be a non-empty list when provided`; `missing evaluator score
    source`; `if config_errors: status = "error"`."""
    empty = evaluate(rules({"aggregate_score_fields": []}), state(level=2), 1, {})
    assert empty.status == "error"
    assert empty.summary == (
        "evaluator config error: evaluator_config.aggregate_score_fields must be a non-empty list when provided"
    )
    none = evaluate(rules({"end_field": "terminal.isTerminal"}), state(level=2), 1, {})
    assert none.status == "error" and "missing evaluator score source" in none.summary
    bad_end = evaluate(rules({"score_field": "game_state.level", "end_field": 3}), state(level=2), 1, {})
    assert bad_end.metrics["evaluation_config_errors"] == [
        "evaluator_config.end_field must be a non-empty string when provided"
    ]


def test_a_target_at_or_below_the_start_is_all_or_nothing():
    """`if target_score <= score_start: progress_current = 1.0 if score_best >= target_score else 0.0`."""
    assert evaluate(rules(target=0.0, start=0.0), state(level=0), 1, {}).progress == 1.0
    below = evaluate(rules(target=5.0, start=10.0), state(level=4), 1, {})
    assert below.progress == 0.0 and below.status == "unknown"


def test_no_target_gives_no_progress():
    """`if target_score is None ...: metrics.pop("progress_current")` and `progress` unless a best exists."""
    result = evaluate(rules(target=None), state(level=64), 1, {})
    assert result.progress is None and "task_target_score" not in result.metrics
    assert result.metrics["target_reached"] is False


def test_the_target_reached_is_success_and_stops_the_task():
    """`if score_best >= target_score: target_reached = True`; `elif target_reached: stop_reason = "target_reached"`;
    the summary is `task complete`."""
    result = evaluate(rules(), state(level=32), 7, {})
    assert (result.status, result.stop_reason, result.should_stop, result.summary) == (
        "success",
        "target_reached",
        True,
        "task complete",
    )


def test_success_needs_the_target_within_one_episode():
    """`reset_task_evaluator_episode_metrics`: "Clear episode-local score/progress baselines after reset, keep
    run-wide bests": `score_best` is the episode's, so two episodes of 16 do not reach 32."""
    evaluator = TaskEvaluator(rules())
    evaluator.after_step(state(level=16))
    failed = evaluator.after_step(state(level=16, terminal=True, outcome="fail"))
    assert failed.should_reset and failed.stop_reason == "terminal_fail_reset" and failed.status == "fail"
    evaluator.reset_done()
    again = evaluator.after_step(state(level=16))
    assert again.status == "unknown" and again.metrics["target_reached"] is False
    assert again.progress == 0.5  # the task's best progress, not a sum
    assert again.metrics["score"] == 16.0  # the run's best score


def test_a_reset_clears_the_episode_and_keeps_the_task_bests():
    """`for key in EPISODE_METRIC_KEYS: next_metrics.pop(key, None)` with EPISODE_METRIC_KEYS = score_current,
    score_start, score_best, progress_current; `score` = score_run_best; `progress` = progress_best;
    `finalized` False, `stop_reason` None."""
    metrics = evaluate(rules(), state(level=16, terminal=True, outcome="fail"), 3, {}).metrics
    after = reset_episode(metrics)
    for key in ("score_current", "score_start", "score_best", "progress_current"):
        assert key not in after
    assert after["score"] == 16.0 and after["score_run_best"] == 16.0
    assert after["progress"] == 0.5 and after["progress_best"] == 0.5
    assert after["finalized"] is False and after["stop_reason"] is None
    assert reset_episode(None) == {}


def test_a_failed_terminal_without_continue_on_fail_ends_the_task():
    """`should_reset = continue_on_fail and terminal_hit and terminal_outcome == "fail" and ...`; without it the
    2048 task's `end_field: terminal.isTerminal` matches: `stop_reason = "end_field"`, and the status is the
    terminal's outcome: `if terminal_outcome in {"success", "fail"}: status = terminal_outcome`."""
    result = evaluate(rules(continue_on_fail=False), state(level=8, terminal=True, outcome="fail"), 5, {})
    assert (result.status, result.stop_reason, result.should_stop, result.should_reset) == (
        "fail",
        "end_field",
        True,
        False,
    )
    assert result.summary == "task failed"


def test_a_failed_terminal_on_the_last_step_is_not_reset():
    """`and not max_steps_hit`: the budget is spent, `max_steps_exhausted`, status fail, `step budget exhausted`."""
    result = evaluate(rules(), state(level=8, terminal=True, outcome="fail"), 100, {})
    assert not result.should_reset
    assert (result.status, result.stop_reason, result.summary) == (
        "fail",
        "max_steps_exhausted",
        "step budget exhausted",
    )


def test_a_won_terminal_is_success_even_below_the_target():
    """`elif terminal_hit: if terminal_outcome in {"success", "fail"}: status = terminal_outcome`: a game won
    before the target (2048 stops at its own win) is a success; its stop reason is the end field."""
    result = evaluate(rules(target=4096.0), state(level=2048, terminal=True, outcome="success"), 40, {})
    assert (result.status, result.stop_reason) == ("success", "end_field")
    assert result.progress == pytest.approx(0.5)


def test_a_terminal_without_outcome_takes_the_tasks_terminal_status():
    """`else: status = terminal_status` with `terminal_status = str(config.get("terminal_status", "unknown"))`."""
    assert evaluate(rules(), state(level=2, terminal=True), 2, {}).status == "success"  # 2048: terminal_status success
    unsaid = evaluate(rules({"score_field": "game_state.score"}, target=9.0), state(score=1, terminal=True), 2, {})
    assert unsaid.status == "unknown" and unsaid.stop_reason == "game_terminal"  # no terminal_status: "unknown"
    fireboy = evaluate(rules(CONFIG_FIREBOY, target=2.0), state(terminal=True, diamonds={}), 2, {})
    assert fireboy.stop_reason == "end_field"
    assert fireboy.status == "unknown"  # the diamonds are missing: unresolved fields come first


def test_another_end_field_blocks_the_reset():
    """`and not (end_match and end_field != "terminal.isTerminal")`: an end field of the task's own that holds
    ends the task even on a failed terminal."""
    config = {**CONFIG_CUBEFIELD, "end_field": "game_state.over", "end_value": True}
    result = evaluate(rules(config, target=60000.0), state(score=10, over=True, terminal=True, outcome="fail"), 4, {})
    assert not result.should_reset and result.stop_reason == "end_field" and result.status == "fail"


def test_end_value_defaults_to_true_and_is_compared_by_equality():
    """`return current == config.get("end_value", True), raw_end_field`."""
    config = {**CONFIG_CUBEFIELD, "end_field": "game_state.phase", "end_value": "over"}
    assert evaluate(rules(config, target=9.0), state(score=1, phase="over"), 1, {}).stop_reason == "end_field"
    assert evaluate(rules(config, target=9.0), state(score=1, phase="run"), 1, {}).stop_reason is None


def test_a_task_without_end_field_stops_on_the_games_terminal():
    """cubefield's tasks have no end_field: `elif terminal_hit: stop_reason = "game_terminal"`; with
    continue_on_fail a failed terminal resets instead."""
    fail = state(score=500, terminal=True, outcome="fail")
    reset = evaluate(rules(CONFIG_CUBEFIELD, target=60000.0), fail, 9, {})
    assert reset.should_reset and not reset.should_stop and reset.summary == "terminal fail; reset and continue"
    ended = evaluate(rules(CONFIG_CUBEFIELD, target=60000.0, continue_on_fail=False), fail, 9, {})
    assert (ended.stop_reason, ended.status, ended.should_stop) == ("game_terminal", "fail", True)


def test_the_stop_reasons_come_in_the_references_order():
    """`if should_reset: ... elif target_reached: ... elif max_steps_hit: ... elif end_match: ... elif
    terminal_hit:`: the target reached on the last step is `target_reached`; a won terminal on the last step is
    `max_steps_exhausted` below the target."""
    assert STOP_REASONS == (
        "terminal_fail_reset",
        "target_reached",
        "max_steps_exhausted",
        "end_field",
        "game_terminal",
    )
    both = evaluate(rules(), state(level=32, terminal=True, outcome="success"), 100, {})
    assert both.stop_reason == "target_reached" and both.status == "success"
    last = evaluate(rules(target=4096.0), state(level=2048, terminal=True, outcome="success"), 100, {})
    assert (last.stop_reason, last.status) == ("max_steps_exhausted", "fail")


def test_a_budget_spent_without_any_score_is_unresolved():
    """`if max_steps_hit and target_score is not None and score_best is None ...: "score field '...' never
    produced a numeric value"`, and `summary = f"{summary}; step budget exhausted"`."""
    result = evaluate(rules(), state(level=None), 100, {})
    assert result.status == "unknown" and result.stop_reason == "max_steps_exhausted" and result.should_stop
    assert result.summary == (
        "evaluator unresolved fields: score field 'game_state.level' never produced a numeric value; "
        "step budget exhausted"
    )
    aggregate = evaluate(rules(CONFIG_FIREBOY, target=2.0), state(diamonds=None), 100, {})
    assert "missing aggregate score field" in aggregate.summary  # a missing field is the issue already


def test_the_unresolved_fields_are_listed_in_the_summary():
    """`visible = issues[:2]`; `f"{prefix}: {'; '.join(visible)}{suffix}"` (one score and one end field at most)."""
    config = {"score_field": "a.b", "end_field": "c.d"}
    result = evaluate(rules(config), {}, 100, {})
    assert result.metrics["evaluation_runtime_issues"] == ["missing score field 'a.b'", "missing end field 'c.d'"]
    assert result.summary.startswith("evaluator unresolved fields: missing score field 'a.b'; missing end field")


def test_metrics_fields_are_copied_found_or_not():
    """`metrics[field_name] = current if found else None`."""
    result = evaluate(rules(), state(level=4, score=12), 1, {})
    assert result.metrics["game_state.score"] == 12 and result.metrics["terminal.isTerminal"] is False
    assert evaluate(rules(), {"game_state": {"level": 2}}, 1, {}).metrics["terminal.outcome"] is None


def test_the_evaluator_makes_a_stopping_evaluation_again_as_the_final_one():
    """coordinator.py: `if result.should_stop and not result.should_reset: result = await
    self.evaluator.summarize(agent, state)` (finalized=True); steps count from 1 (`agent.step_index += 1` before
    the evaluation)."""
    evaluator = TaskEvaluator(rules(max_steps=3))
    assert evaluator.after_step(state(level=2)).finalized is False
    evaluator.after_step(state(level=4))
    last = evaluator.after_step(state(level=8))
    assert evaluator.steps == 3
    assert last.finalized is True and last.stop_reason == "max_steps_exhausted" and last.metrics["finalized"] is True
    assert evaluator.last is last


def test_the_suite_reports_success_rate_over_all_runs_and_mean_progress_over_scored_runs():
    """reports.py: `"task_avg_success_rate": (success / total)`; `progress_values = [... if
    isinstance(row.get("progress"), int | float)]`."""
    summary = suite_summary(
        [TaskResult("success", 1.0), TaskResult("fail", 0.5), TaskResult("error", None), TaskResult("unknown", 0.0)]
    )
    assert summary["task_avg_success_rate"] == 0.25
    assert summary["task_avg_progress"] == pytest.approx(0.5)
    assert (summary["success_runs"], summary["fail_runs"], summary["error_runs"]) == (1, 1, 1)
    assert suite_summary([])["task_avg_success_rate"] == 0.0
