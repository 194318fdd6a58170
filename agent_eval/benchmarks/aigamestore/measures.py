"""What an AI GameStore record's `metrics` holds (GameStoreMetrics: the game as played, its raw and normalised
score), and the kind's own measures, in place of accuracy wherever a run is read (analysis/measures.py): a game's
normalised score, and over games their geometric mean (the benchmark's figure, scoring.py); the raw score of one
game (over several games raw scores do not add up: none)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field

from pydantic.dataclasses import dataclass

from agent_eval.analysis.measures import GRADED, NONE, KindMeasure, graded
from agent_eval.benchmarks.aigamestore.scoring import per_game, summary
from agent_eval.benchmarks.base import KindMetrics
from agent_eval.datamodel.records import ItemRecord


@dataclass
class GameStoreMetrics(KindMetrics):
    game: str | None = None
    raw_score: float | None = None  # the highest score or highScore seen (VISTA's rule); None: never read
    human_median: float | None = None  # the published median it is normalised against (None: none known)
    median_source: str | None = None
    normalized: float | None = None  # min(10000, max(1, 100 * raw / median)); None: no median or no score
    decisions: int = 0
    max_decisions: int = 0
    episodes: int = 0  # 1 + restarts
    won: bool = False  # a winning phase was seen (VISTA plays the whole budget anyway)
    final_phase: str | None = None
    frames: int = 0
    protocol: str | None = None  # "vista" or "official"
    replies_without_keys: int = 0  # official protocol: replies read as five NOOP segments (or padded, cut)
    page_errors: int = 0  # the page's uncaught errors
    refused_requests: int = 0  # requests the harness refused (the page reached for the network)
    restores: int = 0  # times the game was replayed after the harness was killed
    started_over: list[str] = field(default_factory=list)
    notes_written: int = 0
    canvas: list[int] = field(default_factory=list)  # the frames' width and height


def graded_games(records: Sequence[ItemRecord]) -> dict[str, dict]:
    """per_game() over the graded item runs (a game's raw score: its mean over repeats, then normalised)."""
    metrics = [GameStoreMetrics.of(r) for r in graded(records)]
    return per_game([(m.game or "?", m.raw_score, m.human_median) for m in metrics])


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
