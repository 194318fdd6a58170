"""One item's walk: what the walk kind owns (a position on a line, its two actions, a picture of the line, the end)
on the game core's archive, timeline, observation gate and restore by replay."""

from __future__ import annotations

import hashlib
import io
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from PIL import Image, ImageDraw

from agent_eval.benchmarks.games.folder import (
    RESULT,
    TIMELINE,
    Timeline,
    append_restore,
    read_entries,
    read_json,
    write_json,
)
from agent_eval.benchmarks.games.frames import FRAMES_DIR, FrameArchive
from agent_eval.benchmarks.games.protocol import ObservationGate
from agent_eval.benchmarks.games.recovery import read_stops
from agent_eval.datamodel.itemdir import now_iso

DIRECTIONS = {"left": -1, "right": 1}
CELL = 16
RECORD = "walk.json"
STOP = "Stop now: reply with <answer>DONE</answer>."


@dataclass(frozen=True)
class WalkItem:
    id: str
    length: int
    task: str = "walk"
    category: str = "walk"
    answer: str = "goal"


@dataclass
class Move:
    """A timeline line."""

    n: int
    direction: str
    position: int
    frame: int
    frame_hash: str


class MoveRefused(ValueError):
    """A move the model can fix (an unknown direction, a move before seeing the last): nothing spent."""


class NotReplayable(Exception):
    pass


def draw(length: int, position: int) -> bytes:
    """The line as the model sees it: grey cells, the goal green, the walker red."""
    image = Image.new("RGB", (length * CELL, CELL), "white")
    pen = ImageDraw.Draw(image)
    for cell in range(length):
        fill = "red" if cell == position else "green" if cell == length - 1 else "lightgrey"
        pen.rectangle([cell * CELL + 1, 1, cell * CELL + CELL - 2, CELL - 2], fill=fill)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


class WalkSession:
    """Over a folder with an earlier process's moves, the walk is replayed first (or NotReplayable is raised)."""

    def __init__(self, item: WalkItem, directory: Path, max_moves: int, one_action_per_observation: bool = True):
        self.item, self.max_moves = item, max_moves
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.archive = FrameArchive(self.directory / FRAMES_DIR)
        self.gate = ObservationGate(one_action_per_observation)
        self._lock = threading.Lock()
        self.moves = read_entries(self.directory, Move)
        if self.moves:
            self._replay()
        else:
            self.first_frame = self.archive.add(draw(item.length, 0))
            write_json(self.directory / RECORD, {"walk": item.id, "length": item.length, "first_frame": 1})
        self._timeline = Timeline(self.directory / TIMELINE)

    # -- what the core reads (games/recovery.LiveGame)
    @property
    def actions_used(self) -> int:
        return len(self.moves)

    level = 0  # one level

    def progress_words(self) -> str:
        used = f"{self.actions_used} of {self.max_moves} moves used"
        return f"on cell {self.position} of 0-{self.item.length - 1}, {used}"

    # -- the walk
    @property
    def position(self) -> int:
        return self.moves[-1].position if self.moves else 0

    @property
    def over(self) -> str | None:
        if self.position == self.item.length - 1:
            return "the goal is reached"
        if self.actions_used >= self.max_moves:
            return f"the move budget ({self.max_moves}) is spent"
        return None

    def last_frame(self) -> Path:
        return self.archive.path(self.moves[-1].frame if self.moves else self.first_frame)

    def move(self, direction: str) -> tuple[dict, bytes | None]:
        if direction not in DIRECTIONS:
            raise MoveRefused(f"unknown direction {direction!r}: left or right")
        with self._lock:
            if self.over:
                return {"stop": f"No move made: {self.over}. {STOP}"}, None
            if blind := self.gate.refuses():
                raise MoveRefused(blind)
            position = min(self.item.length - 1, max(0, self.position + DIRECTIONS[direction]))
            png = draw(self.item.length, position)
            move = Move(len(self.moves) + 1, direction, position, self.archive.add(png), _hash(png))
            self._timeline.append(asdict(move))  # durable before the model hears of it
            self.moves.append(move)
            self.gate.acted(True)
            shown: dict = {"position": position, "moves_left": self.max_moves - self.actions_used}
            if self.over:
                shown["stop"] = f"{self.over}. {STOP}"
            return shown, png

    def _replay(self) -> None:
        record = read_json(self.directory / RECORD) or {}
        self.first_frame = int(record.get("first_frame") or 1)
        position = 0
        for move in self.moves:
            position = min(self.item.length - 1, max(0, position + DIRECTIONS[move.direction]))
            if position != move.position or _hash(draw(self.item.length, position)) != move.frame_hash:
                raise NotReplayable(f"move {move.n} ({move.direction}) does not replay as recorded")
        self.archive.resume(max(m.frame for m in self.moves))
        append_restore(self.directory, {"at": now_iso(), "outcome": "replayed", "moves": len(self.moves)})

    def finish(self) -> None:
        with self._lock:
            won = self.position == self.item.length - 1
            end = {"won": won, "moves_used": self.actions_used, "refused_unseen": self.gate.refused}
            end["early_stops"] = len(read_stops(self.directory))
            write_json(self.directory / RESULT, end)
            self._timeline.close()


def _hash(png: bytes) -> str:
    return hashlib.sha256(png).hexdigest()[:16]
