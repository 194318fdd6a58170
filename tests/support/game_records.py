"""Game records written by hand (AI GameStore, GameWorld, ARC-AGI-3), with the figures their measures must give
worked out in each docstring: for the measures' tests and the readers'."""

from agent_eval.benchmarks.aigamestore.measures import GameStoreMetrics
from agent_eval.benchmarks.arcgames.metrics import GameMetrics
from agent_eval.benchmarks.gameworld.grading import TaskMetrics
from agent_eval.datamodel.records import ItemRecord


def record(item, task, metrics, category="games", status="ok", correct=False, repeat=0):
    return ItemRecord(
        id=item,
        task=task,
        category=category,
        ground_truth="score",
        status=status,
        correct=correct,
        repeat=repeat,
        prediction="raw 10, normalised 20.0 in 3/120 decisions, 1 episode(s)",
        metrics=metrics.to_json() if metrics else {},
    )


def ags_records():
    """game1: raw 10 against the median 50 (normalised 20); game2: raw 100 and 300 over two repeats, median 100
    (mean raw 200, normalised 200); game3's agent failed (no score)."""

    def game(name, raw, median, repeat=0):
        normalized = min(10000, max(1, 100 * raw / median))
        metrics = GameStoreMetrics(game=name, raw_score=raw, human_median=median, normalized=normalized)
        return record(name, name, metrics, correct=normalized >= 100, repeat=repeat)

    failed = record("game3", "game3", None, status="agent_error")
    return [game("game1", 10, 50), game("game2", 100, 100), game("game2", 300, 100, repeat=1), failed]


def gw_records():
    """90_01 succeeded (progress 1), 90_02 failed at progress 0.5, both of game 90_beacon; 90_03 timed out."""
    win = TaskMetrics(game="90_beacon", status="success", progress=1.0)
    fail = TaskMetrics(game="90_beacon", status="fail", progress=0.5)
    return [
        record("90_01", "90_beacon", win, correct=True),
        record("90_02", "90_beacon", fail),
        record("90_03", "90_beacon", None, status="timeout"),
    ]


def arc_records():
    """ae01 won (3 of 3 levels, score 100), ae02 not (1 of 4 levels, score 20)."""
    won = GameMetrics(game="ae01", won=True, levels_completed=3, win_levels=3, score=100.0)
    lost = GameMetrics(game="ae02", won=False, levels_completed=1, win_levels=4, score=20.0)
    return [record("ae01", "ae01", won, correct=True), record("ae02", "ae02", lost)]
