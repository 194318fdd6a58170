"""What an AI GameStore record's `metrics` holds: the game as played, its raw and normalised score."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field

from pydantic.dataclasses import dataclass

from agent_eval.analysis.measures import graded
from agent_eval.benchmarks.aigamestore.scoring import per_game
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
