"""AI GameStore's own measures, in place of accuracy wherever a run is read (analysis/measures.py): a game's
normalised score, and over games their geometric mean (the benchmark's figure, scoring.py); the raw score of one
game (over several games raw scores do not add up: none)."""

from __future__ import annotations

from collections.abc import Sequence

from agent_eval.analysis.measures import GRADED, NONE, KindMeasure
from agent_eval.benchmarks.aigamestore.metrics import GameStoreMetrics, graded_games
from agent_eval.benchmarks.aigamestore.scoring import summary
from agent_eval.datamodel.records import ItemRecord


def number_text(value: float | None, form: str) -> str:
    return NONE if value is None else format(value, form)


def _normalised(record: ItemRecord) -> str:
    return number_text(GameStoreMetrics.of(record).normalized if record.status in GRADED else None, ".1f")


def _geometric(records: Sequence[ItemRecord]) -> str:
    return number_text(summary(graded_games(records))["geometric_mean"], ".1f")


def _raw(record: ItemRecord) -> str:
    return number_text(GameStoreMetrics.of(record).raw_score if record.status in GRADED else None, "g")


def _raw_of_one_game(records: Sequence[ItemRecord]) -> str:
    games = graded_games(records)
    if len(games) != 1:
        return NONE
    (game,) = games.values()
    return number_text(game["raw"], "g")


MEASURES = [
    KindMeasure("normalised", "normalised score (geometric mean over games)", _normalised, _geometric),
    KindMeasure("raw", "raw score (one game's, mean over repeats)", _raw, _raw_of_one_game),
]
