"""VISTA's game tools on one item's session (`--game-tools vista`), answering as VISTA's harness answers
(arc3/claude/controller.py, core/dispatcher.py, backends/claude/mcp_bridge.py). They take their arguments raw, as
VISTA's controller does, so a call is checked by VISTA's rules and refused in VISTA's words, not by a schema
validator of ours. The clicks as the model gave them are kept beside the timeline (game/clicks.jsonl), for
`history`."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

from mcp_types import CallToolResult

from agent_eval.benchmarks.arcgames import turns as t
from agent_eval.benchmarks.arcgames.coordinates import Coordinates
from agent_eval.benchmarks.arcgames.game_process import ACTIONS, CLICK
from agent_eval.benchmarks.arcgames.game_record import Play
from agent_eval.benchmarks.arcgames.ladder import Ladder
from agent_eval.benchmarks.arcgames.session import GameSession, PlayRefused
from agent_eval.benchmarks.games.frames import ArchivedPngs
from agent_eval.benchmarks.games.protocol import BLIND, UNSEEN
from agent_eval.benchmarks.games.vista import turns as vt
from agent_eval.benchmarks.games.vista.events import Event
from agent_eval.benchmarks.games.vista.mcp import ACTS, note_definitions, note_functions, schema_object
from agent_eval.benchmarks.games.vista.mcp import answer as _answer
from agent_eval.benchmarks.notes import Notes
from agent_eval.datamodel.jsonl import append_line, log_lines

CLICKS = "clicks.jsonl"
MAX_INVALID_RETRIES = 15  # VISTA's DEFAULT_MAX_INVALID_RETRIES: the 16th refused play in a row is flagged


class Refused(ValueError):
    """A play VISTA's validation refuses: nothing was spent."""


def checked_action(arguments: object, legal: list[str], coordinates: Coordinates):
    """VISTA's validate_tool_action: (action, x, y on the game grid, x and y as given), or Refused."""
    if not isinstance(arguments, dict):
        raise Refused("Tool arguments must be an object.")
    if set(arguments) - {"action", "x", "y"}:
        raise Refused("Unexpected tool argument.")
    name = arguments.get("action")
    if not isinstance(name, str) or name not in ACTIONS:
        raise Refused("Unknown action.")
    if name not in legal:
        raise Refused(f"{name} is not currently available.")
    x, y = arguments.get("x"), arguments.get("y")
    if name != CLICK:
        if x is not None or y is not None:
            raise Refused("x and y are only used with ACTION6.")
        return name, None, None, None
    if type(x) is not int or type(y) is not int:
        raise Refused("ACTION6 requires integer x and y.")
    if not (0 <= x < coordinates.size and 0 <= y < coordinates.size):
        raise Refused(f"ACTION6 coordinates must be in 0..{coordinates.size - 1}.")
    gx, gy = coordinates.to_grid(x, y)
    return name, gx, gy, (x, y)


class VistaGame:
    def __init__(self, session: GameSession, ladder: Ladder, scale: int, notes: Notes | None = None):
        self.session, self.ladder, self.notes = session, ladder, notes
        self.coordinates = Coordinates(ladder.coordinates, scale)
        self.display = self.coordinates.display_side
        self.given = {e["step"]: (e["x"], e["y"]) for e in log_lines(session.directory / CLICKS)}
        self.turns = t.Turns(session)
        # the game's turns as the core's events, turn N event N (turn 0: the first observation, when shown)
        self.events = [self._event(self.turns.first, {})]
        played = t.replayed(self.turns.all(), self.display, t.termination_reason(session))
        self.events += [self._event(turn, shown) for turn, shown in played]
        self.levels = t.Levels(session, self.turns, notes if ladder.working_scope == "level" else None)
        self.looks = vt.TurnLooks(lambda: self.events, self.coordinates.size, self.display)
        self.invalid = 0  # refused plays in a row (VISTA's attempt_index)
        self._lock = threading.Lock()

    def _event(self, turn: Play | None, result: dict) -> Event:
        action = t.public_action(turn, self.given) if turn is not None and turn.action else None
        frames = ArchivedPngs(self.session.archive, turn.frames if turn is not None else ())
        return Event(action, {k: v for k, v in result.items() if k != "grid"}, True, frames)

    def _current(self, action_applied: bool = False, **given) -> dict:
        """VISTA's metadata of the game as it stands (turns.metadata's keywords)."""
        last = self.turns.last()
        return t.current_metadata(self.session, self.ladder, last, self.display, action_applied=action_applied, **given)

    def record(self) -> dict:
        """VISTA's environment record of the game as it stands (core/session.py's recoveries)."""
        with self._lock:
            current = self._current()
            return {
                "current_observation": current,
                "last_action_result": self.events[-1].result if len(self.events) > 1 else None,
                "current_level_history": vt.attempts(vt.records(self.events), current),
            }

    # -- play

    def play(self, arguments: dict) -> CallToolResult:
        with self._lock:
            if self.session.over:
                return _answer(True, self._current())
            before = self.turns.last()
            try:
                action, gx, gy, given = checked_action(arguments, t.available(before), self.coordinates)
            except Refused as why:
                retry, self.invalid = self.invalid, self.invalid + 1
                if retry >= MAX_INVALID_RETRIES:
                    self.invalid = 0
                return _answer(False, self._current(error=str(why), invalid_action_limit=retry >= MAX_INVALID_RETRIES))
            shows = 1 if self.ladder.observation in ("image", "both") else 0
            if (stop := self.session.image_room(shows)) is not None:  # --session-images: hand off first
                return _answer(False, stop)
            count = len(self.session.plays)
            try:
                shown, png = self.session.play(action, gx, gy)
            except PlayRefused as why:  # the session's own refusal: a play before the last result reached the model
                if str(why) == BLIND:  # VISTA's words for it (backends/claude/mcp_host.py), a sentence, not JSON
                    return _answer(False, UNSEEN)
                return _answer(False, self._current(error=str(why)))
            if len(self.session.plays) == count:  # not played: the session stopped it (a hand-off under way)
                return _answer(False, self._current(error=shown.get("stop")))
            self.invalid = 0
            play = self.session.plays[-1]
            if given is not None:
                self.given[play.step] = given
                append_line(self.session.directory / CLICKS, {"step": play.step, "x": given[0], "y": given[1]})
            return self._played(shown.get("stop"), png)

    def _played(self, stop: str | None, png: bytes | None) -> CallToolResult:
        turn = self.turns.last()
        assert turn is not None
        boundary = self.levels.after_play()  # (WORKING.md archived at a boundary, with --working-scope level)
        error = turn.error if turn.state == "ERROR" else None
        shown = self._current(True, error=error, level_boundary=boundary)
        self.events.append(self._event(turn, shown))
        if stop and not shown["terminal"]:  # our hand-off's request (the context policy), beside VISTA's fields
            shown["stop"] = stop
        if "grid" in shown:
            self.session.observed(text_chars=len(json.dumps(shown["grid"], separators=(",", ":"))))
        images = []
        if png is not None and self.ladder.observation in ("image", "both"):
            self.session.observed(images=1)
            v = shown["visual"]
            label = (
                f'<current_visual turn="{v["turn"]}" frame="{v["final_frame"]}" frame_count="{v["frame_count"]}" '
                f'size="{v["width"]}x{v["height"]}">Current game state after the action.</current_visual>'
            )
            images.append((label, png))
        return _answer(True, shown, images)

    # -- looking again

    def _visual(self, look: Callable[[], CallToolResult]) -> CallToolResult:
        if self.ladder.observation not in ("image", "both"):
            return _answer(False, {"error": "Visual observations are unavailable."})
        return look()

    def inspect(self, arguments: dict) -> CallToolResult:
        def look():
            wanted = arguments.get("views") if isinstance(arguments, dict) else None
            if (stop := self.session.image_room(len(wanted) if isinstance(wanted, list) else 0)) is not None:
                return _answer(False, stop)  # --session-images: nothing shown, the agent asked to hand off
            shown = self.looks.inspect(arguments)
            self.session.observed(images=(len(shown.content) - 1) // 2)  # the metadata, then a label and image a view
            return shown

        return self._visual(look)

    def read_pixels(self, arguments: dict) -> CallToolResult:
        return self._visual(lambda: self.looks.read_pixels(arguments))

    def history(self, arguments: dict) -> CallToolResult:
        with self._lock:
            ok, shown = vt.history_view(arguments, vt.records(self.events), self._current())
        return _answer(ok, shown)

    def functions(self) -> dict[str, Callable[[dict], CallToolResult]]:
        return {
            "play": self.play,
            "inspect": self.inspect,
            "read_pixels": self.read_pixels,
            "history": self.history,
            **note_functions(self.notes, self.levels.where, self._lock),
        }

    def definitions(self) -> dict[str, tuple[str, dict, dict]]:
        found = {"play": play_definition(self.coordinates.size), **self.looks.definitions()}
        return found | note_definitions(self.ladder.note_limits(), self.ladder.working_scope == "level")


def play_definition(size: int) -> tuple[str, dict, dict]:
    """VISTA's play (benchmarks/arc3/claude/tools.py), ACTION6's x and y in the run's coordinates (`size` a side)."""
    description = (
        "Execute exactly one game action. Each executed play call counts as one game action. The result contains "
        "the resulting final visual, the number of archived frames for the action, and the actions available "
        "afterward. The player observes this result before another action can execute. Use only currently "
        "available actions. RESET initializes or restarts the game or level. ACTION1 through ACTION4 are "
        "game-dependent simple actions usually associated with up, down, left, and right. ACTION5 is a "
        "game-dependent simple action, usually an interaction such as select, rotate, attach, detach, execute, "
        "etc. ACTION6 is a coordinate action. ACTION7 is Undo. UI bindings: ACTION1=W/Up Arrow, ACTION2=S/Down "
        "Arrow, ACTION3=A/Left Arrow, ACTION4=D/Right Arrow, ACTION5=Space/F, ACTION6=mouse click, and "
        f"ACTION7=Ctrl/Cmd+Z. For ACTION6, always provide x and y in the standard {size}x{size} coordinate "
        "system; x increases right and y increases down."
    )
    point = {"type": ["integer", "null"], "minimum": 0, "maximum": size - 1}
    schema = schema_object(
        {"action": {"type": "string", "enum": list(ACTIONS)}, "x": point, "y": dict(point)}, ["action"]
    )
    return description, schema, ACTS
