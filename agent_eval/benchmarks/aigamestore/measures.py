"""AI GameStore's scores as its authors and VISTA compute them: a game's raw score is the highest score or
highScore the page reported; normalised against the published human median, min(10000, max(1, 100 * raw /
median)); a run's figure is the geometric mean of the normalised scores over its games (the arithmetic mean
beside it). With repeats, a game's raw score is the mean over its repeats before it is normalised (VISTA's
aggregate). A game without a median, or whose every attempt failed, is left out and counted.

Also what a record's `metrics` holds (GameStoreMetrics), and the kind's own measures, in place of accuracy wherever
a run is read (analysis/measures.py): a game's normalised score, over games their geometric mean; the raw score of
one game (over several games raw scores do not add up: none)."""

from __future__ import annotations

import hashlib
import inspect
import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import field

from pydantic.dataclasses import dataclass

from agent_eval.analysis.measures import GRADED, NONE, KindMeasure, graded
from agent_eval.benchmarks.base import KindMetrics
from agent_eval.datamodel.records import ItemRecord

FLOOR, CEILING = 1.0, 10_000.0


def normalized(raw: float, median: float) -> float:
    if median <= 0:
        raise ValueError(f"a human median must be positive, got {median}")
    return min(CEILING, max(FLOOR, 100.0 * raw / median))


def geometric_mean(values: list[float]) -> float | None:
    return math.exp(statistics.fmean(math.log(v) for v in values)) if values else None


def per_game(rows: list[tuple[str, float | None, float | None]]) -> dict[str, dict]:
    """(game, raw score or None, median or None) per attempt -> game -> {raw (mean over attempts that read a
    score), median, normalized, attempts}."""
    raws: dict[str, list[float]] = defaultdict(list)
    medians: dict[str, float | None] = {}
    attempts: dict[str, int] = defaultdict(int)
    for game, raw, median in rows:
        attempts[game] += 1
        medians[game] = median if median is not None else medians.get(game)
        if raw is not None:
            raws[game].append(float(raw))
    out = {}
    for game in sorted(attempts):
        raw = statistics.fmean(raws[game]) if raws[game] else None
        median = medians.get(game)
        out[game] = {
            "raw": raw,
            "median": median,
            "normalized": normalized(raw, median) if raw is not None and median else None,
            "attempts": attempts[game],
        }
    return out


def summary(games: dict[str, dict]) -> dict:
    """The run's figures from per_game(): geometric and arithmetic mean of the normalised scores."""
    scored = [g["normalized"] for g in games.values() if g["normalized"] is not None]
    return {
        "games": len(games),
        "scored_games": len(scored),
        "geometric_mean": geometric_mean(scored),
        "arithmetic_mean": statistics.fmean(scored) if scored else None,
        "unscored": sorted(name for name, g in games.items() if g["normalized"] is None),
        "per_game": games,
    }


def rules_hash() -> str:
    """What scoring means, hashed: a change here changes every run's scorer hash."""
    source = inspect.getsource(normalized) + inspect.getsource(per_game) + inspect.getsource(geometric_mean)
    return "aigamestore-" + hashlib.sha256(source.encode()).hexdigest()[:12]


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
    games = list(graded_games(records).values())
    return number_text(games[0]["raw"], "g") if len(games) == 1 else NONE


MEASURES = [
    KindMeasure("normalised", "normalised score (geometric mean over games)", _normalised, _geometric),
    KindMeasure("raw", "raw score (one game's, mean over repeats)", _raw, _raw_of_one_game),
]
