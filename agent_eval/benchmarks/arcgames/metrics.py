"""An ARC-AGI-3 game record's `metrics` (the toolkit's scorecard of the game as played), and the kind's measures in
place of accuracy wherever a run is read: the game score (0-100), the levels completed, the games won."""

from __future__ import annotations

from dataclasses import field

from pydantic.dataclasses import dataclass

from agent_eval.analysis.measures import GRADED, NONE, averaged, counted
from agent_eval.benchmarks.base import KindMetrics
from agent_eval.datamodel.records import ItemRecord


@dataclass
class GameMetrics(KindMetrics):
    game: str | None = None
    version: str | None = None
    won: bool = False
    state: str | None = None  # the last state: NOT_FINISHED, WIN, GAME_OVER (None: never played)
    levels_completed: int = 0
    win_levels: int | None = None  # the game's number of levels
    actions: int = 0  # actions the toolkit counted, RESETs included
    resets: int = 0
    level_resets: list[int] = field(default_factory=list)  # RESETs played on each level (from the timeline)
    level_actions: list[int] = field(default_factory=list)
    level_scores: list[float] = field(default_factory=list)  # 0-115 each, the toolkit's
    level_baseline_actions: list[int] = field(default_factory=list)
    score: float | None = None  # the toolkit's game score 0-100 (RHAE); None: no baselines
    score_note: str | None = None  # why there is no score
    max_actions: int | None = None  # the run's budget per game
    budget_spent: bool = False
    plays: int = 0  # play calls that took an action
    frames: int = 0  # frames archived
    scorecard: dict = field(default_factory=dict)  # the toolkit's scorecard as it gave it
    play_s: float | None = None  # seconds the game was played, across restarts of the harness
    restores: int = 0  # times the game was restored by replaying its record after the harness was killed
    started_over: list[str] = field(default_factory=list)  # why a record that did not replay was abandoned
    observations: dict = field(default_factory=dict)  # frames shown as images, and as text (characters)
    notes_written: int = 0  # versions of GUIDE.md / WORKING.md written (the notes rung)
    early_stops: int = 0  # sessions that ended with the game live and its budgets left (each continued or not)
    stopped_early: bool = False  # the game ended that way: graded as it stood (VISTA's agent_stopped_early)
    refused_unseen: int = 0  # plays refused because the previous play's result had not reached the model yet
    # --arc-mode online/competition: this play's entry on the run's card at the ARC API, or `unavailable` and why; the
    # fields above are then the offline scorecard of the same actions replayed locally (`differs_from_offline`).
    online: dict = field(default_factory=dict)

    def actions_per_level(self) -> float | None:
        """Actions spent per completed level (None: no level completed)."""
        return self.actions / self.levels_completed if self.levels_completed else None


def _won(record: ItemRecord) -> str:
    if record.status not in GRADED:
        return NONE
    return "yes" if GameMetrics.of(record).won else "no"


MEASURES = [
    averaged("score", "game score, 0-100 (mean over games)", lambda r: GameMetrics.of(r).score, "{:.1f}".format),
    counted(
        "levels",
        "levels completed (of the games' levels)",
        lambda r: GameMetrics.of(r).levels_completed,
        lambda r: GameMetrics.of(r).win_levels or 0,
    ),
    counted("won", "games won", lambda r: int(GameMetrics.of(r).won), lambda r: 1, item_text=_won),
]
