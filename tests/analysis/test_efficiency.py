"""Cost, time and turns per right answer, and cost per item of each task, counted by hand."""

import pytest

from agent_eval.analysis.efficiency import per_correct, task_efficiency
from agent_eval.datamodel.records import ItemRecord


def _record(item, correct, cost=None, elapsed=None, turns=None, task="t", repeat=0):
    return ItemRecord(
        id=item,
        task=task,
        category="c",
        ground_truth="x",
        status="ok",
        correct=correct,
        cost_usd=cost,
        elapsed_s=elapsed,
        num_turns=turns,
        repeat=repeat,
    )


def test_per_correct_counts_only_item_runs_whose_value_is_known():
    records = [
        _record("a", True, cost=0.10, elapsed=10, turns=3),
        _record("b", False, cost=0.30, elapsed=20, turns=5),
        _record("c", True, cost=None, elapsed=30, turns=None),
        _record("a", True, cost=0.20, elapsed=None, turns=4, repeat=1),  # a repeat counts as its own item run
    ]
    assert per_correct(records) == {
        "correct": 3,
        "item_runs": 4,
        # cost known on a, b, a r1: (0.10 + 0.30 + 0.20) / 2 right among them = 0.30 (c's right answer is not free)
        "cost_usd": pytest.approx(0.30),
        "cost_usd_unknown": 1,
        # time known on a, b, c: (10 + 20 + 30) / 2 right = 30
        "elapsed_s": pytest.approx(30.0),
        "elapsed_s_unknown": 1,
        # turns known on a, b, a r1: (3 + 5 + 4) / 2 right = 6
        "num_turns": pytest.approx(6.0),
        "num_turns_unknown": 1,
    }


def test_per_correct_is_none_when_nothing_known_was_right():
    records = [
        _record("a", False, cost=0.5, elapsed=12, turns=2),
        _record("b", True, cost=None, elapsed=None, turns=None),  # right, but every value unknown
    ]
    assert per_correct(records) == {
        "correct": 1,
        "item_runs": 2,
        "cost_usd": None,
        "cost_usd_unknown": 1,
        "elapsed_s": None,
        "elapsed_s_unknown": 1,
        "num_turns": None,
        "num_turns_unknown": 1,
    }


def test_per_correct_of_nothing():
    assert per_correct([]) == {
        "correct": 0,
        "item_runs": 0,
        "cost_usd": None,
        "cost_usd_unknown": 0,
        "elapsed_s": None,
        "elapsed_s_unknown": 0,
        "num_turns": None,
        "num_turns_unknown": 0,
    }


def test_a_known_zero_cost_is_counted():
    # two right answers, one free (0.0 known) and one at 0.4: 0.4 / 2 = 0.2
    assert per_correct([_record("a", True, cost=0.0), _record("b", True, cost=0.4)])["cost_usd"] == pytest.approx(0.2)


def test_task_efficiency_per_task_sorted_with_unknown_costs_apart():
    records = [
        _record("z1", True, cost=0.4, task="zeta"),
        _record("a1", False, cost=0.1, task="alpha"),
        _record("a2", True, cost=None, task="alpha"),
        _record("a3", True, cost=0.3, task="alpha"),
        _record("a3", False, cost=0.2, task="alpha", repeat=1),
    ]
    result = task_efficiency(records)
    assert list(result) == ["alpha", "zeta"]
    # alpha: known 0.1, 0.3, 0.2 -> median 0.2, mean 0.6 / 3 = 0.2, total 0.6; one unknown; 4 item runs
    assert result["alpha"] == {
        "item_runs": 4,
        "cost_usd": {"median": 0.2, "mean": pytest.approx(0.2), "total": pytest.approx(0.6), "unknown": 1},
    }
    assert result["zeta"] == {"item_runs": 1, "cost_usd": {"median": 0.4, "mean": 0.4, "total": 0.4, "unknown": 0}}
    assert task_efficiency([]) == {}
