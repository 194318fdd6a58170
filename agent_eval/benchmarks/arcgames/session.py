"""One item's game, as the tools see it (from worker threads: one lock): the game process, the budgets, the frame
archive and the timeline, and at the end the toolkit's scorecard, all in the item's folder (game_record.py).

A game survives the harness: over a folder whose timeline holds plays (a run killed mid-game), the game is made
again and every recorded action replayed, each frame checked against its recorded hash (the toolkit has no save;
the same play-through, so its scorecard counts every action once). One that does not replay identically raises
NotReplayable: the caller starts the game over (it is never continued from another state)."""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path

from agent_eval.benchmarks.arcgames.frames import GRID_SIDE, FrameArchive, checked_frame, frame_hash
from agent_eval.benchmarks.arcgames.game_process import ACTIONS, CLICK
from agent_eval.benchmarks.arcgames.game_record import GAME_RECORD, GameEnd, Play, read_plays, read_record, write_end
from agent_eval.benchmarks.arcgames.ladder import Ladder
from agent_eval.benchmarks.arcgames.loader import GameItem
from agent_eval.benchmarks.games.folder import TIMELINE, Timeline, append_replayed, read_restores
from agent_eval.benchmarks.games.frames import FRAMES_DIR
from agent_eval.benchmarks.games.handoff import HandoffState, handoff_request
from agent_eval.benchmarks.games.protocol import ObservationGate
from agent_eval.benchmarks.games.recovery import read_stops
from agent_eval.datamodel.itemdir import now_iso

SEED = 0  # the toolkit's default seed (Arcade.make): recorded, so a replay makes the same game
STOP = "Stop now: reply with <answer>DONE</answer>."


class PlayRefused(ValueError):
    """A play the model can fix (an unknown action, a click without coordinates): nothing was spent."""


def checked_click(x: object, y: object, size: int) -> tuple[int, int]:
    for name, value in (("x", x), ("y", y)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < size:
            raise PlayRefused(f"{CLICK} is a click: give {name} as an integer 0-{size - 1} (got {value!r})")
    assert isinstance(x, int) and isinstance(y, int)  # (checked above)
    return x, y


class NotReplayable(Exception):
    """A recorded game that cannot be restored as it was (another game file, a failed step, a replayed action whose
    frames or state differ: a game that is not deterministic). Says where."""


class GameSession:
    """game: a started GameProcess (context-managed by the caller). Over a folder holding an earlier process's plays,
    the game is restored first (or NotReplayable is raised)."""

    def __init__(
        self,
        item: GameItem,
        game,
        directory: Path,
        max_actions: int,
        frame_scale: int,
        time_budget_s: float | None = None,
        max_hours: float | None = None,
        *,
        ladder: Ladder = Ladder(),
        initial_frame: bool = False,
        one_action_per_observation: bool = False,
    ):
        self.item = item
        # The first observation (the game as make() left it, before any action) archived and shown up front, as
        # VISTA does; off: the agent's first play (RESET) is what first shows it the game.
        self.initial_frame = initial_frame
        self.initial_frames: list[int] = []  # the first observation's frame numbers in the archive
        # One action per observation (games/protocol.py): the model never acts on a result it has not seen.
        self.gate = ObservationGate(one_action_per_observation)
        # When the agent is asked to hand the game on to a fresh session (handoff.py): its context past
        # --context handoff:N, the CLI's own compaction point (handoff:cli), or --session-images N.
        self.handoff = HandoffState(
            ladder.handoff_tokens, ladder.handoff_at_cli, ladder.session_images, handoff_request(ladder.game_tools)
        )
        self.level_actions = ladder.level_actions  # each level bounded at ceil(its baseline x this) actions
        self.game = game
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.archive = FrameArchive(
            self.directory / FRAMES_DIR, frame_scale, ladder.frame_grid
        )  # as shown: grid lines too
        self.max_actions = max_actions
        self.max_hours = max_hours
        self.plays: list[Play] = []
        self.actions_used = 0
        self.last = None  # the last StepResult (its hashes, not frames, after a restore)
        self.error: str | None = None  # the game process failed: the item is an error
        self.clock_before = 0.0  # seconds played by earlier processes (the game clock when this one began)
        self.level_began_at = 0  # actions used when the current level began
        self.observations = {"images": 0, "text_chars": 0}  # frames shown as images, and as text (characters)
        self._lock = threading.Lock()
        earlier = read_plays(self.directory)
        if earlier:
            self._restore(earlier)
        else:
            if self.initial_frame:
                self.initial_frames = [self.archive.add(checked_frame(f))[0] for f in self.game.initial.frames]
                self.last = self.game.initial
            self._write_record()
        self.provider_wait: Callable[[], float] = lambda: 0.0  # seconds held at the gateway: not play time
        self._started = self.now()
        # Play stops taking actions at the first of two bounds: this attempt's (the run's --timeout less a margin
        # for the agent's last reply, so an agent near the time limit ends with its game graded, not killed) and
        # the game's own time budget across restarts (--max-hours), less what earlier processes played.
        hours_left = None if max_hours is None else max_hours * 3600 - self.clock_before
        bounds = [b for b in (time_budget_s, hours_left) if b is not None]
        self.deadline = self._started + max(0.0, min(bounds)) if bounds else None
        self._timeline = Timeline(self.directory / TIMELINE)

    def game_clock(self) -> float:  # seconds this game has been played, across restarts
        return self.clock_before + (self.now() - self._started)

    def now(self) -> float:
        """time.monotonic less the provider's waits: a subscription's window waited out at the gateway takes nothing
        from the game's time budget."""
        return time.monotonic() - self.provider_wait()

    def leave_out_waits(self, provider_wait: Callable[[], float]) -> None:
        before = self.now()
        self.provider_wait = provider_wait
        shift = before - self.now()  # the waits so far: the clocks read from now on stay where they were
        self._started -= shift
        if self.deadline is not None:
            self.deadline -= shift

    # -- a game that survives the harness

    def _write_record(self) -> None:
        first, shown = self.game.initial, None  # the first observation, when shown
        if self.initial_frame:
            shown = {
                "frames": self.initial_frames,
                "hashes": [frame_hash(checked_frame(f)) for f in first.frames],
                "state": first.state,
                "levels_completed": first.levels_completed,
                "win_levels": first.win_levels,
                "available_actions": list(first.available_actions),
            }
        record = {
            "game": self.item.id,
            "version": self.item.version,
            "seed": SEED,
            "files_sha256": self.item.files_sha256,
            "baseline_actions": list(self.item.baseline_actions or []) or None,
            "started_at": now_iso(),
            "initial": shown,
        }
        (self.directory / GAME_RECORD).write_text(json.dumps(record, indent=1), encoding="utf-8")

    def _restore(self, plays: list[Play]) -> None:
        started = time.perf_counter()
        record = read_record(self.directory)
        if record is not None and record.get("files_sha256") not in (None, self.item.files_sha256):
            raise NotReplayable(
                f"the game's files changed since it was started (sha256 {record['files_sha256'][:12]}…, now "
                f"{str(self.item.files_sha256)[:12]}…)"
            )
        shown = (record or {}).get("initial")
        if self.initial_frame and shown:
            if [frame_hash(checked_frame(f)) for f in self.game.initial.frames] != shown.get("hashes"):
                raise NotReplayable("the game does not replay identically: its first observation differs")
            self.initial_frames = list(shown.get("frames") or [])
        elif self.initial_frame != bool(shown):
            raise NotReplayable(
                "the game was started " + ("without" if self.initial_frame else "with") + " its first observation shown"
            )
        failed = next((p for p in plays if p.state == "ERROR"), None)
        if failed is not None:
            raise NotReplayable(f"the game failed at step {failed.step} before the restart ({failed.error})")
        try:
            replayed = self.game.replay([(p.action, p.x, p.y) for p in plays])
        except Exception as error:  # the game process's failure while replaying: it does not replay
            raise NotReplayable(f"the replay failed: {_one_line(error)}") from None
        if len(replayed) != len(plays):
            raise NotReplayable(f"the replay returned {len(replayed)} steps for {len(plays)} recorded actions")
        for play, again in zip(plays, replayed):
            recorded = play.frame_hashes or [frame_hash(self.archive.load(n)) for n in play.frames]
            differs = []
            if list(again.hashes) != list(recorded):
                differs.append(f"its {len(again.hashes)} frame(s) differ from the {len(recorded)} recorded")
            if (again.state, again.levels_completed) != (play.state, play.levels_completed):
                differs.append(
                    f"state {again.state}, {again.levels_completed} level(s), recorded {play.state}, "
                    f"{play.levels_completed}"
                )
            if differs:
                where = f"{play.action}" + (f" at ({play.x}, {play.y})" if play.x is not None else "")
                raise NotReplayable(
                    f"the game does not replay identically: step {play.step} ({where}): {'; '.join(differs)}"
                )
        self.plays = list(plays)
        for earlier, play in zip([None, *plays], plays):
            self._note_level(earlier, play)
        self.actions_used = plays[-1].actions_used
        self.last = replayed[-1]
        self.archive.resume(max((n for p in plays for n in p.frames), default=max(self.initial_frames, default=0)))
        self.clock_before = max((p.game_s or 0.0 for p in plays), default=0.0)
        append_replayed(self.directory, started, actions=len(plays))

    def _note_level(self, before: Play | None, play: Play) -> None:
        # a level completed (or the whole game reset to its first level): the next level's count begins
        if play.state != "ERROR" and play.levels_completed != (before.levels_completed if before else 0):
            self.level_began_at = play.actions_used

    def level_limit(self) -> int | None:
        baselines = self.item.baseline_actions or ()
        if self.level_actions is None or self.level >= len(baselines):
            return None
        return math.ceil(baselines[self.level] * self.level_actions)

    def where(self, level_start_turn: int) -> dict:
        """Where the game stood when a note was written (VISTA's working provenance, plus our actions used)."""
        last = self.last
        completed, total = (last.levels_completed, last.win_levels) if last is not None else (None, None)
        return {
            "actions_used": self.actions_used,
            "turn": self.plays[-1].step if self.plays else 0,
            "state": last.state if last is not None else None,
            "progress": {"completed": completed, "total": total},
            "level_start_turn": level_start_turn,
        }

    def progress_words(self) -> str:
        parts = [
            f"{self.level} of {self._total()} levels completed" if self.last is not None else "no action yet",
            f"state {self.last.state}" if self.last is not None else "",
            f"{self.actions_used} actions used, {max(0, self.max_actions - self.actions_used)} left",
        ]
        if self.deadline is not None:
            parts.append(f"about {max(0, int(self.deadline - self.now())) // 60} minutes of play left")
        return "; ".join(p for p in parts if p)

    def image_room(self, images: int) -> str | None:
        """None when a tool may give `images` more images in this session, else its answer instead (a hand-off);
        nothing to refuse once the game is over (play then shows no frame)."""
        with self._lock:
            return None if self.over else self.handoff.image_room(images)

    def begin_session(self) -> None:
        with self._lock:
            self.handoff.begin()

    def observed(self, images: int = 0, text_chars: int = 0) -> None:
        """What the model was shown of frames, by form (VISTA's rung i: what each form costs, per item)."""
        with self._lock:
            self.observations["images"] += images
            self.observations["text_chars"] += text_chars
            self.handoff.shown(images)

    def last_frame_number(self) -> int | None:
        for play in reversed(self.plays):
            if play.frames:
                return play.frames[-1]
        return self.initial_frames[-1] if self.initial_frames else None

    def last_frame_png(self) -> Path | None:
        number = self.last_frame_number()
        return None if number is None else self.archive.path(number)

    def first_turn(self) -> Play | None:
        """Turn 0 (no action): the game's first observation, when the run shows it before any action."""
        first = self.game.initial
        if not self.initial_frames:
            return None
        shown, actions = list(self.initial_frames), list(first.available_actions)
        return Play(0, "", None, None, first.state, first.levels_completed, first.win_levels, shown, actions, 0, 0.0)

    def first_observation(self) -> dict | None:
        """What the agent is told of the game before its first action; None when the run does not show it."""
        first = self.first_turn()
        return None if first is None else {**_described(first), "actions_used": 0, "actions_left": self.max_actions}

    # -- the tools' side

    @property
    def over(self) -> str | None:
        ended = self.ended()
        return ended[1] if ended else None

    def ended(self) -> tuple[str, str] | None:
        """Why no more actions are taken: (VISTA's termination reason, or ours for our own bounds; our words)."""
        if self.error:
            return "controller_error", "the game failed"
        if self.last is not None and self.last.state == "WIN":
            return "WIN", "the game is won"
        if self.actions_used >= self.max_actions:
            return "action_budget_exhausted", f"the action budget ({self.max_actions}) is spent"
        limit = self.level_limit()
        if limit is not None and self.actions_used - self.level_began_at >= limit:
            words = f"this level's action budget ({limit}: its baseline x {self.level_actions:g}) is spent"
            return "level_action_budget_exhausted", words
        if self.deadline is not None and self.now() >= self.deadline:
            if self.max_hours is not None and self.game_clock() >= self.max_hours * 3600:
                return "time_budget_exhausted", f"the game's time budget ({self.max_hours:g} h) is spent"
            return "time_budget_exhausted", "the time budget is spent"
        return None

    def play(self, action: str, x: int | None, y: int | None) -> tuple[dict, bytes | None]:
        """Take one action: (the JSON the model reads, the last frame's PNG), or PlayRefused."""
        action = str(action).strip().upper()
        if action not in ACTIONS:
            raise PlayRefused(f"unknown action {action!r}; use one of {', '.join(ACTIONS)}")
        x, y = checked_click(x, y, GRID_SIDE) if action == CLICK else (None, None)
        with self._lock:
            if self.over:
                return self._status(stopped=True), None
            if self.handoff.told:  # the agent was asked to stop: the next session plays on
                return {"stop": f"No action taken: {self.handoff.ask}"}, None
            if blind := self.gate.refuses():
                raise PlayRefused(blind)
            started = time.perf_counter()
            try:
                result = self.game.step(action, x, y)
                game_ms = (time.perf_counter() - started) * 1000
                frames = [checked_frame(f) for f in result.frames]
            except Exception as error:  # the game's own failure (GameError) or a broken frame: the item's error
                self.error = _naming(self.item, error)
                step, spent_ms = len(self.plays) + 1, (time.perf_counter() - started) * 1000
                failed = Play(
                    step, action, x, y, "ERROR", self.level, self._total(), [], [], self.actions_used, spent_ms
                )
                self._log(replace(failed, error=self.error))
                return self._status(stopped=True), None
            self.actions_used += 1
            self.last = result
            self.gate.acted(bool(frames))  # its result is on its way to the model
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
                frame_hashes=[frame_hash(frame) for frame in frames],
            )
            play.harness_ms = round((time.perf_counter() - started) * 1000 - game_ms, 3)
            if isinstance(getattr(self.game, "last_step_s", None), float):
                play.toolkit_ms = round(self.game.last_step_s * 1000, 3)
            self._log(play)
            return self._status(play=play), png

    @property
    def level(self) -> int:
        """The levels completed: the level the game is on."""
        return self.last.levels_completed if self.last is not None else 0

    def _total(self) -> int:
        return self.last.win_levels if self.last is not None else 0

    def _status(self, play: Play | None = None, stopped: bool = False) -> dict:
        shown: dict = {}
        if play is not None:
            shown = {"step": play.step, **_described(play)}
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
        limit = self.level_limit()
        if limit is not None:
            shown["level_actions_left"] = max(0, limit - (self.actions_used - self.level_began_at))
        if self.deadline is not None:
            shown["seconds_left"] = max(0, int(self.deadline - self.now()))
        if self.over:
            shown["stop"] = f"{self.over}. {STOP}" if not stopped else f"No action taken: {self.over}. {STOP}"
        elif play is not None and (stop := self.handoff.stop_now()):
            shown["stop"] = stop
        elif play is not None and play.state == "GAME_OVER":
            ignored = "the game is over and ignored this action (no new frame): play RESET"
            shown["note"] = ignored if not play.frames else "game over: play RESET to start the level again"
        return shown

    def _log(self, play: Play) -> None:
        """Durable before the play is answered: a harness killed after this line restores the game with this
        action in it (and the agent is told its result), never plays it twice."""
        play.game_s = round(self.game_clock(), 3)
        self._note_level(self.plays[-1] if self.plays else None, play)
        self.plays.append(play)
        self._timeline.append(asdict(play))

    # -- recall

    def frames_of_step(self, step: int) -> list[int]:
        if not 1 <= step <= len(self.plays):
            raise PlayRefused(
                f"no step {step}: steps so far are 1-{len(self.plays)}" if self.plays else "no step yet: play first"
            )
        return list(self.plays[step - 1].frames)

    # -- the end

    def finish(self) -> GameEnd:
        """The toolkit's scorecard (or the game's error) into result.json, as the item ends."""
        with self._lock:
            end = GameEnd(
                game=self.item.id,
                version=self.item.version,
                actions_used=self.actions_used,
                max_actions=self.max_actions,
                budget_spent=self.actions_used >= self.max_actions,
                frames=self.archive.count,
                error=self.error,
                play_s=round(self.game_clock(), 3),
                max_hours=self.max_hours,
                restores=read_restores(self.directory),
                observations=dict(self.observations),
                stopped_early=self.error is None and self.over is None,
                early_stops=read_stops(self.directory),
                refused_unseen=self.gate.refused,
            )
            if (last := self.last) is not None:
                end.state, end.levels_completed, end.win_levels = last.state, last.levels_completed, last.win_levels
            if self.error is None:
                try:
                    end.scorecard = self.game.scorecard()
                except Exception as error:
                    end.error = _naming(self.item, f"the scorecard failed: {error}")
            self._timeline.close()
            write_end(self.directory, end)
            return end


def _described(play: Play) -> dict:
    """A play as the model reads it (first observation and play answers alike)."""
    return {
        "state": play.state,
        "levels_completed": f"{play.levels_completed} of {play.win_levels}",
        "available_actions": play.available_actions,
        "frames": play.frames,
    }


def _naming(item: GameItem, error) -> str:
    text = _one_line(error)
    return text if text.startswith(f"{item.id}-{item.version}:") else f"{item.id}-{item.version}: {text}"


def _one_line(error) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
