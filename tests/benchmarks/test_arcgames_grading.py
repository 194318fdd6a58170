"""Grading from the game's result: the toolkit's scorecard into the record's metrics, no baselines, rollup."""

import pytest

from agent_eval.benchmarks.arcgames.game_record import GameEnd
from agent_eval.benchmarks.arcgames.grading import environment_score, game_metrics, rollup_games

ENTRY = {
    "score": 62.5,
    "levels_completed": 2,
    "actions": 17,
    "resets": 1,
    "completed": True,
    "state": "WIN",
    "level_scores": [100.0, 25.0],
    "level_actions": [5, 12],
    "level_baseline_actions": [5, 6],
}


def test_a_whole_card_or_its_entry_reads_the_same():
    totals = {k: ENTRY[k] for k in ("score", "levels_completed", "actions", "resets", "completed")}
    card = {"card_id": "x", "environments": [{"id": "fk01-v1", "runs": [{"score": 0.0}, ENTRY], **totals}]}
    assert environment_score(card) == ENTRY == environment_score(ENTRY)
    assert environment_score({"environments": [{"runs": [ENTRY], **totals, "score": 70.0}]})["score"] == 70.0


def test_metrics_are_the_scorecards():
    end = GameEnd(
        game="fk01",
        version="v1",
        state="WIN",
        levels_completed=2,
        win_levels=2,
        actions_used=17,
        max_actions=40,
        scorecard=ENTRY,
    )
    m = game_metrics(end, (5, 6))
    assert (m.won, m.score, m.levels_completed, m.actions, m.resets, m.level_scores) == (
        True,
        62.5,
        2,
        17,
        1,
        [100.0, 25.0],
    )
    assert m.actions_per_level() == pytest.approx(8.5)


def test_no_baselines_is_no_score_not_zero():
    end = GameEnd(
        game="fk01", version="v1", state="NOT_FINISHED", scorecard={**ENTRY, "score": 0.0, "completed": False}
    )
    m = game_metrics(end, None)
    assert m.score is None and "baseline_actions" in m.score_note
    rollup = rollup_games([m, game_metrics(GameEnd(game="b", version="1", scorecard=ENTRY), (5, 6))])
    assert rollup["mean_score"] == 62.5 and rollup["scored_games"] == 1 and rollup["games"] == 2


def test_resets_per_level_from_the_timeline():
    from agent_eval.benchmarks.arcgames.grading import resets_per_level

    timeline = [
        {"action": a, "levels_completed": n, "state": "NOT_FINISHED"}
        for a, n in [
            ("RESET", 0),
            ("RESET", 0),
            ("ACTION1", 0),
            ("RESET", 0),
            ("ACTION1", 1),
            ("RESET", 1),
            ("ACTION2", 2),
        ]
    ]
    assert resets_per_level(timeline, 3) == [1, 1, 0]  # the first RESETs start the game
