"""One item's game, as the `play` tool sees it: the game process, the action budget, the frame
archive and the timeline, and at the end the toolkit's scorecard, all in the item's folder.

    <item>/game/timeline.jsonl   one line per play call: step, action (x, y), state, level, frames, times
    <item>/game/frames/NNNN.npy  every frame returned, as colour indices (and NNNN.png, as shown)
    <item>/game/result.json      the end: the scorecard, the last state, or the game's error

The game runs in its own process (game_process.py, outside the sandbox); this object lives in the
harness and is what the MCP tools call (from worker threads: one lock)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from agent_eval.benchmarks.arcgames.frames import FRAMES_DIR, FrameArchive, checked_frame
from agent_eval.benchmarks.arcgames.loader import GameItem

GAME_DIR = "game"
TIMELINE = "timeline.jsonl"
RESULT = "result.json"
ACTIONS = ("RESET", "ACTION1", "ACTION2", "ACTION3", "ACTION4", "ACTION5", "ACTION6", "ACTION7")
CLICK = "ACTION6"
GRID = 64
STOP = "Stop now: reply with <answer>DONE</answer>."


class PlayRefused(ValueError):
    """A play the model can fix (an unknown action, a click without coordinates): nothing was spent."""


@dataclass
class Play:
    """What one play call did (a timeline line)."""

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
    extra: dict = field(default_factory=dict)


class GameSession:
    """game: a started GameProcess (context-managed by the caller) or a factory's product."""

    def __init__(
        self,
        item: GameItem,
        game,
        directory: Path,
        max_actions: int,
        frame_scale: int,
        time_budget_s: float | None = None,
    ):
        self.item = item
        # Play stops taking actions this long after the session starts (the run's --timeout less a margin for
        # the agent's last reply), so an agent near the time limit ends with its game graded, not killed.
        self.deadline = time.monotonic() + time_budget_s if time_budget_s else None
        self.game = game
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.archive = FrameArchive(self.directory / FRAMES_DIR, frame_scale)
        self.max_actions = max_actions
        self.plays: list[Play] = []
        self.actions_used = 0
        self.last = None  # the last StepResult
        self.error: str | None = None  # the game process failed: the item is an error
        self._lock = threading.Lock()
        self._timeline = (self.directory / TIMELINE).open("a", encoding="utf-8")

    # -- the tools' side

    @property
    def over(self) -> str | None:
        """Why no more actions are taken (won, budget spent, game broken), or None."""
        if self.error:
            return "the game failed"
        if self.last is not None and self.last.state == "WIN":
            return "the game is won"
        if self.actions_used >= self.max_actions:
            return f"the action budget ({self.max_actions}) is spent"
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return "the time budget is spent"
        return None

    def play(self, action: str, x: int | None, y: int | None) -> tuple[dict, bytes | None]:
        """Take one action: (the JSON the model reads, the last frame's PNG), or PlayRefused."""
        action = str(action).strip().upper()
        if action not in ACTIONS:
            raise PlayRefused(f"unknown action {action!r}; use one of {', '.join(ACTIONS)}")
        if action == CLICK:
            for name, value in (("x", x), ("y", y)):
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < GRID:
                    raise PlayRefused(f"{CLICK} is a click: give {name} as an integer 0-{GRID - 1} (got {value!r})")
        else:
            x = y = None
        with self._lock:
            if self.over:
                return self._status(stopped=True), None
            started = time.perf_counter()
            try:
                result = self.game.step(action, x, y)
                game_ms = (time.perf_counter() - started) * 1000
                frames = [checked_frame(f) for f in result.frames]
            except Exception as error:  # the game's own failure (GameError) or a broken frame: the item's error
                self.error = _naming(self.item, error)
                self._log(
                    Play(
                        len(self.plays) + 1,
                        action,
                        x,
                        y,
                        "ERROR",
                        self._levels(),
                        self._total(),
                        [],
                        [],
                        self.actions_used,
                        (time.perf_counter() - started) * 1000,
                        error=self.error,
                    )
                )
                return self._status(stopped=True), None
            self.actions_used += 1
            self.last = result
            ids, png = [], None
            for frame in frames:
                ident, png = self.archive.add(frame)
                ids.append(ident)
            play = Play(
                len(self.plays) + 1,
                action,
                x,
                y,
                result.state,
                result.levels_completed,
                result.win_levels,
                ids,
                list(result.available_actions),
                self.actions_used,
                round(game_ms, 3),
            )
            play.harness_ms = round((time.perf_counter() - started) * 1000 - game_ms, 3)
            if isinstance(getattr(self.game, "last_step_s", None), float):
                play.toolkit_ms = round(self.game.last_step_s * 1000, 3)
            self._log(play)
            return self._status(play=play), png

    def _levels(self) -> int:
        return self.last.levels_completed if self.last is not None else 0

    def _total(self) -> int:
        return self.last.win_levels if self.last is not None else 0

    def _status(self, play: Play | None = None, stopped: bool = False) -> dict:
        shown: dict = {}
        if play is not None:
            shown = {
                "step": play.step,
                "state": play.state,
                "levels_completed": f"{play.levels_completed} of {play.win_levels}",
                "available_actions": play.available_actions,
                "frames": play.frames,
            }
            if len(play.frames) > 1:
                shown["note"] = (
                    f"this action played {len(play.frames)} frames (an animation); the image is the "
                    f"last, every one is archived"
                )
        elif self.last is not None:
            shown = {
                "state": self.last.state,
                "levels_completed": f"{self.last.levels_completed} of {self.last.win_levels}",
            }
        shown.update({"actions_used": self.actions_used, "actions_left": max(0, self.max_actions - self.actions_used)})
        if self.deadline is not None:
            shown["seconds_left"] = max(0, int(self.deadline - time.monotonic()))
        if self.over:
            shown["stop"] = f"{self.over}. {STOP}" if not stopped else f"No action taken: {self.over}. {STOP}"
        elif play is not None and play.state == "GAME_OVER":
            shown["note"] = "game over: play RESET to start the level again"
            if not play.frames:
                shown["note"] = "the game is over and ignored this action (no new frame): play RESET"
        return shown

    def _log(self, play: Play) -> None:
        self.plays.append(play)
        self._timeline.write(json.dumps(asdict(play)) + "\n")
        self._timeline.flush()

    # -- recall

    def frames_of_step(self, step: int) -> list[int]:
        if not 1 <= step <= len(self.plays):
            raise PlayRefused(
                f"no step {step}: steps so far are 1-{len(self.plays)}" if self.plays else "no step yet: play first"
            )
        return list(self.plays[step - 1].frames)

    # -- the end

    def finish(self) -> GameEnd:
        """The toolkit's scorecard (or the game's error) into result.json; called once, as the item ends."""
        with self._lock:
            end = GameEnd(
                game=self.item.id,
                version=self.item.version,
                actions_used=self.actions_used,
                max_actions=self.max_actions,
                budget_spent=self.actions_used >= self.max_actions,
                frames=self.archive.count,
                error=self.error,
            )
            if self.last is not None:
                end.state, end.levels_completed, end.win_levels = (
                    self.last.state,
                    self.last.levels_completed,
                    self.last.win_levels,
                )
            if self.error is None:
                try:
                    end.scorecard = self.game.scorecard()
                except Exception as error:
                    end.error = _naming(self.item, f"the scorecard failed: {error}")
            self._timeline.close()
            write_end(self.directory, end)
            return end


def _naming(item: GameItem, error) -> str:
    """The error as one line that names the game (the game process's errors already do: GAME-VERSION: ...)."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text if text.startswith(f"{item.id}-{item.version}:") else f"{item.id}-{item.version}: {text}"


def write_end(directory: Path, end: GameEnd) -> None:
    path = Path(directory) / RESULT
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(end), indent=1, default=str), encoding="utf-8")
    tmp.replace(path)


def read_end(item_root: Path) -> GameEnd | None:
    path = Path(item_root) / GAME_DIR / RESULT
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    known = {k: data.pop(k) for k in list(data) if k in GameEnd.__dataclass_fields__ and k != "extra"}
    return GameEnd(**known, extra=data)


def read_timeline(item_root: Path) -> list[dict] | None:
    path = Path(item_root) / GAME_DIR / TIMELINE
    if not path.is_file():
        return None
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
