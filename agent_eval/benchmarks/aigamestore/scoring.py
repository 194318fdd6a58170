"""AI GameStore's scores as its authors and VISTA compute them: a game's raw score is the highest score or
highScore the page reported; normalised against the published human median, min(10000, max(1, 100 * raw /
median)); a run's figure is the geometric mean of the normalised scores over its games (the arithmetic mean
beside it). With repeats, a game's raw score is the mean over its repeats before it is normalised (VISTA's
aggregate). A game without a median, or whose every attempt failed, is left out and counted."""

from __future__ import annotations

import hashlib
import inspect
import math
import statistics
from collections import defaultdict

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
