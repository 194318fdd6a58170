"""A game's turns as VISTA numbers and reports them (arc3/claude/controller.py): turn N is the state after the N-th
action, turn 0 the first observation (when shown); a turn's frames are numbered 0..k-1 within it. Read from the
session's record (its plays and first observation), so they survive a restore of the game."""

from __future__ import annotations

import json
import threading

from agent_eval.benchmarks.arcgames.coordinates import Coordinates
from agent_eval.benchmarks.arcgames.game_process import ACTIONS, CLICK
from agent_eval.benchmarks.arcgames.game_record import Play
from agent_eval.benchmarks.arcgames.ladder import Ladder
from agent_eval.benchmarks.arcgames.session import GameSession
from agent_eval.benchmarks.games.working_scope import archive_level
from agent_eval.benchmarks.notes import Notes

NOT_STARTED = "NOT_STARTED"  # no observation yet (--initial-frame off, before the first play): ours, not VISTA's


class Turns:
    """A session's turns: turn N is the N-th play (its step), turn 0 the first observation when shown."""

    def __init__(self, session: GameSession):
        self.session = session
        self.first = session.first_turn()

    def all(self) -> list[Play]:
        return ([self.first] if self.first is not None else []) + self.session.plays

    def last(self) -> Play | None:
        every = self.all()
        return every[-1] if every else None


def available(turn: Play | None) -> list[str]:
    """The actions VISTA's play accepts after this turn (controller._available_actions): only RESET once the game is
    over, else the game's own (the toolkit lists no RESET there: VISTA refuses it then)."""
    if turn is None or turn.state == "GAME_OVER":
        return ["RESET"]
    return [name for name in ACTIONS if name in turn.available_actions]


def termination_reason(session: GameSession) -> str | None:
    """Why the game takes no more actions, in VISTA's words where VISTA has them, ours for our own bounds."""
    ended = session.ended()
    return ended[0] if ended else None


def metadata(
    turn: Play | None,
    display: int,
    *,
    reason: str | None,
    action_applied: bool,
    error: str | None = None,
    level_boundary: bool = False,
    invalid_action_limit: bool = False,
) -> dict:
    """VISTA's result metadata of a turn (controller._metadata), its keys in VISTA's order."""
    terminal = reason is not None
    shown: dict = {
        "turn": turn.step if turn is not None else 0,
        "state": turn.state if turn is not None else NOT_STARTED,
        "progress": {
            "completed": turn.levels_completed if turn is not None else None,
            "total": turn.win_levels if turn is not None else None,
        },
        "available_actions": [] if terminal else available(turn),
        "action_applied": action_applied,
        "terminal": terminal,
    }
    if reason:
        shown["termination_reason"] = reason
    if error:
        shown["error"] = error
    if level_boundary:
        shown["level_boundary"] = True
    if invalid_action_limit:
        shown["invalid_action_limit"] = True
    if turn is not None and turn.frames:
        count = len(turn.frames)
        shown["visual"] = {
            "turn": turn.step,
            "frame_count": count,
            "final_frame": count - 1,
            "width": display,
            "height": display,
        }
    return shown


def current_metadata(session: GameSession, ladder: Ladder, last: Play | None, display: int, **given) -> dict:
    """VISTA's metadata of the game's last turn, the frame as a grid on the text rung, our level budget when set."""
    shown = metadata(last, display, reason=termination_reason(session), **given)
    limit = session.level_limit()
    if limit is not None:
        shown["level_actions_left"] = max(0, limit - (session.actions_used - session.level_began_at))
    if ladder.observation in ("text", "both") and last is not None and last.frames:
        shown["grid"] = {"frames": [session.archive.load(last.frames[-1]).tolist()]}
    return shown


def initial_metadata(session: GameSession, ladder: Ladder, scale: int) -> dict:
    """Turn 0 as VISTA gives it with the task (harness.py build_initial_prompt: the controller's initial_metadata)."""
    shown = current_metadata(
        session, ladder, session.first_turn(), Coordinates(ladder.coordinates, scale).display_side,
        action_applied=False,
    )  # fmt: skip
    if "grid" in shown:
        session.observed(text_chars=len(json.dumps(shown["grid"], separators=(",", ":"))))
    return shown


def crossed_level(before: Play | None, turn: Play, terminal: bool) -> bool:
    """VISTA's _crossed_level_boundary: levels completed went up, the game goes on."""
    if terminal or before is None or before.levels_completed is None or turn.levels_completed is None:
        return False
    return turn.levels_completed > before.levels_completed


def public_action(turn: Play, given: dict[int, tuple[int, int]]) -> dict:
    """The action as VISTA's public record gives it (_public_event): ACTION6's x and y as the model gave them (in the
    run's coordinates)."""
    action: dict = {"action": turn.action}
    if turn.action == CLICK:
        action["x"], action["y"] = given.get(turn.step, (turn.x, turn.y))
    return action


def replayed(all_turns: list[Play], display: int, last_reason: str | None) -> list[tuple[Play, dict]]:
    """The turns already played (a restored game), each with its metadata as when played, the game ending only at
    its last turn (`last_reason`)."""
    out = []
    for before, turn in zip([None, *all_turns], all_turns):
        if not turn.action:  # turn 0
            continue
        reason = last_reason if turn is all_turns[-1] else None
        boundary = crossed_level(before, turn, reason is not None)
        out.append((turn, metadata(turn, display, reason=reason, action_applied=True, level_boundary=boundary)))
    return out


class Levels:
    """The level the game is on: the turn it began at (VISTA's _level_start_turn, kept with each note written) and,
    with --working-scope level, WORKING.md archived and cleared at each boundary. Called after each play."""

    def __init__(self, session: GameSession, turns: Turns, level_notes: Notes | None):
        self.session, self.turns, self.notes = session, turns, level_notes
        played = replayed(turns.all(), 0, termination_reason(session))
        self.start = max((turn.step for turn, shown in played if shown.get("level_boundary")), default=0)
        self._seen = len(session.plays)  # plays already checked (a restored game's were, before the restart)
        self._lock = threading.Lock()

    def where(self) -> dict:
        return self.session.where(self.start)

    def after_play(self) -> bool:
        with self._lock:
            every = self.turns.all()
            reason = termination_reason(self.session)
            crossed = False
            for index in range(len(every) - (len(self.session.plays) - self._seen), len(every)):
                before, turn = (every[index - 1] if index else None), every[index]
                crossed = crossed_level(before, turn, reason is not None and index == len(every) - 1)
                if crossed:
                    assert before is not None
                    self.start = turn.step
                    if self.notes is not None:
                        was = {"completed": before.levels_completed, "total": turn.win_levels}
                        now = {"completed": turn.levels_completed, "total": turn.win_levels}
                        archive_level(self.notes, turn.step, was, now, turn.actions_used)
            self._seen = len(self.session.plays)
            return crossed
