"""An item's game folder (docs/kinds/arcgames.md): game.json (which game, its files' hash, the first observation when
shown), timeline.jsonl (a line per play call, durable before the call is answered), frames/, restores.jsonl and
result.json (the scorecard, or the game's error); the records written into them and their readers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from agent_eval.benchmarks.games.folder import GAME_DIR, RESULT, read_entries, read_json, write_json

GAME_RECORD = "game.json"


@dataclass
class Play:
    step: int
    action: str
    x: int | None
    y: int | None
    state: str
    levels_completed: int
    win_levels: int
    frames: list[int]  # the archived frames' numbers, in order (the last one is shown)
    available_actions: list[str]
    actions_used: int
    game_ms: float  # the game process's step, round trip
    harness_ms: float = 0.0  # the rest of the call here: checks, archive, PNG, timeline
    toolkit_ms: float | None = None  # the toolkit's own env.step inside the game process (as it timed it)
    error: str | None = None
    frame_hashes: list[str] = field(default_factory=list)  # frames.frame_hash of each frame, checked on a replay
    game_s: float | None = None  # the game's clock when the action was taken: seconds played, across restarts


@dataclass
class GameEnd:
    """result.json: how the item's game ended."""

    game: str
    version: str
    state: str | None = None
    levels_completed: int = 0
    win_levels: int | None = None
    actions_used: int = 0
    max_actions: int = 0
    budget_spent: bool = False
    frames: int = 0
    scorecard: dict | None = None
    error: str | None = None
    play_s: float | None = None  # the game's clock at the end: seconds played, across restarts
    max_hours: float | None = None  # the game's time budget, when the run set one
    restores: list[dict] = field(default_factory=list)  # restores.jsonl: each restore after a restart
    observations: dict = field(default_factory=dict)  # frames shown as images and as text (this process's)
    stopped_early: bool = False  # the agent's last session ended with the game live and its budgets left
    early_stops: list[dict] = field(default_factory=list)  # stops.jsonl: each early stop and what followed it
    refused_unseen: int = 0  # plays refused because the previous result had not reached the model (this process)
    extra: dict = field(default_factory=dict)


def write_end(directory: Path, end: GameEnd) -> None:
    write_json(Path(directory) / RESULT, asdict(end))


def read_end(item_root: Path) -> GameEnd | None:
    data = read_json(Path(item_root) / GAME_DIR / RESULT)
    if data is None:
        return None
    known = {k: data.pop(k) for k in list(data) if k in GameEnd.__dataclass_fields__ and k != "extra"}
    return GameEnd(**known, extra=data)


def read_plays(directory: Path) -> list[Play]:
    return read_entries(directory, Play)


def read_record(directory: Path) -> dict | None:
    return read_json(Path(directory) / GAME_RECORD)


def in_progress(item_root: Path) -> str | None:
    """What an earlier process left of this item's game (a run killed mid-game), in words; None: nothing."""
    plays = read_plays(Path(item_root) / GAME_DIR)
    return f"a game in progress ({len(plays)} play(s) recorded)" if plays else None
