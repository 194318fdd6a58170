"""The game's folder in an item's folder, as every game kind lays it out, and its durable files. JSON files are
written whole or not at all (beside, then renamed into place), so a harness killed mid-write leaves the earlier
file. The timeline's lines are flushed and synced before the model is answered, so a harness killed after a line
restores the game with that move in it and never plays it twice (a line cut by a kill is a move never answered:
the readers leave it out). Each kind replays its own moves; the restore log is shared.

    <item>/game/                  GAME_DIR: the kind's record (game.json or task.json), the frames (frames.py),
                                  stops.jsonl (recovery.py)
    <item>/game/result.json       RESULT: how the game ended, the kind's own fields
    <item>/game/timeline.jsonl    one JSON line per move (Timeline)
    <item>/game/restores.jsonl    one line per restore: at, outcome (replayed / started over), why, earlier_game
    <item>/game.abandoned-N/      a game that did not replay identically, kept beside the new one"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from agent_eval.benchmarks.notes import write_atomic
from agent_eval.datamodel.itemdir import now_iso
from agent_eval.datamodel.jsonl import append_line, log_lines, open_log
from agent_eval.datamodel.ondisk import known_fields

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

GAME_DIR = "game"
RESULT = "result.json"
TIMELINE = "timeline.jsonl"
RESTORES = "restores.jsonl"
T = TypeVar("T", bound="DataclassInstance")
S = TypeVar("S")


def files_hash(folder: Path) -> str:
    """A game's folder, its files' names and bytes, bytecode caches left out (run.json records it: a game's files
    change between revisions)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


class GameDataset:
    """What every game kind's dataset gives run.json: each game's version, as its item describes it."""

    items: list

    def versions(self) -> dict:
        return {item.id: item.describe() for item in sorted(self.items, key=lambda i: i.id)}


def write_json(path: Path, data: dict) -> None:
    write_atomic(path, json.dumps(data, indent=1, default=str))


def read_json(path: Path) -> dict | None:
    """The file's object (None: not written yet)."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def read_timeline(item_root: Path) -> list[dict] | None:
    """The timeline's lines as written (None: the game never started)."""
    path = Path(item_root) / GAME_DIR / TIMELINE
    return log_lines(path) if path.is_file() else None


def read_entries(directory: Path, kind: type[T]) -> list[T]:
    """A game folder's timeline as the kind's dataclass (its known fields)."""
    return [kind(**known_fields(kind, line)) for line in log_lines(Path(directory) / TIMELINE)]


class Timeline:
    def __init__(self, path: Path):
        self._file = open_log(path)

    def append(self, entry: dict) -> None:
        self._file.write(json.dumps(entry) + "\n")
        self._file.flush()
        os.fdatasync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def append_restore(directory: Path, entry: dict) -> None:
    """One restore of the game (replayed, or started over and why), in its folder's log."""
    append_line(Path(directory) / RESTORES, entry)


def append_replayed(directory: Path, began: float, **replayed: int) -> dict:
    """A replay's line in the restore log (how many of what it replayed, its seconds since `began`); the line."""
    entry = {"at": now_iso(), "outcome": "replayed", **replayed, "seconds": round(time.perf_counter() - began, 3)}
    append_restore(directory, entry)
    return entry


def read_restores(directory: Path) -> list[dict]:
    return log_lines(Path(directory) / RESTORES)


def restored_or_started_over(
    directory: Path, open_game: Callable[[], S], not_replayable: type[Exception], key: str = "earlier_game"
) -> S:
    """The item's game, restored by replay when an earlier process played it (open_game replays what the folder
    holds, or raises `not_replayable` having closed what it opened), else started over: the old folder moved aside
    and the start over logged with why (`key` names the moved folder in the log, as the kind has always named it)."""
    try:
        return open_game()
    except not_replayable as why:
        number = 1  # the abandoned game's folder is kept beside the new one (game.abandoned-1, -2, ...)
        while (aside := directory.with_name(f"{directory.name}.abandoned-{number}")).exists():
            number += 1
        directory.rename(aside)
        game = open_game()
        append_restore(directory, {"at": now_iso(), "outcome": "started over", "why": str(why), key: aside.name})
        return game


def time_budget(timeout_s: float | None) -> float | None:
    """How long moves are taken: the run's --timeout less a tenth of it (5 s to 2 min), the time the agent needs to
    reply once told to stop, so a game near the limit is graded, not killed."""
    if not timeout_s:
        return None
    margin = min(120.0, max(5.0, timeout_s / 10))
    return max(timeout_s - margin, timeout_s / 2)
