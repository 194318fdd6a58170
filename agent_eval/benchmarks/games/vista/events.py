"""VISTA's tools of a task played through events, as its AI GameStore and GameWorld profiles offer them beside the
game's own action (github.com/joshhhhhan/VISTA, MIT: src/vista/core/support.py TaskContext, core/runtime.py,
core/tools.py): every environment result is an event (its action, its result's words, whether it succeeded, the
moments of its one view `screen`), event 0 the initial input, made from the kind's record (so a restored game has
the same). The tools: inspect and read_pixels (looks.StillLooks), history, the notes (mcp.py), and Codex's
save_compact_checkpoint (core/session.py _save_compact_checkpoint: pending while the agent is asked to hand off)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult

from agent_eval.benchmarks.games.vista.looks import StillLooks, Supplied, canonical
from agent_eval.benchmarks.games.vista.mcp import (
    READ_ONLY,
    WRITES,
    Definition,
    answer,
    note_definitions,
    note_functions,
    schema_object,
    tools_of,
)
from agent_eval.benchmarks.notes import NoteRefused, Notes

VIEW = "screen"
CHECKPOINT = "save_compact_checkpoint"
CHECKPOINT_TEXT = (  # core/tools.py, "turn/frame" made "event/moment/view" as support.py TaskContext makes it
    "Atomically save the pre-compaction game checkpoint. Set guide to a complete replacement GUIDE.md only when the "
    "durable game model materially changed; otherwise set it to null. Store in working_memory only the current "
    "continuation state that cannot be recovered from GUIDE.md and the current visual: the active plan, its next "
    "visible prediction, unresolved contradictions, and any necessary event/moment/view references."
)
HISTORY = (
    "Read this role's public interaction records and visual references without changing the task. Event numbers "
    "start at 0 and follow this role's record order, including the initial input and supplied observations. Ranges "
    "include start and exclude end. Bounds may be one past the latest event. A bounded range returns its first limit "
    "records; omit both bounds for the most recent records."
)


@dataclass(frozen=True)
class Event:
    action: dict | None  # {"name": tool, "arguments": ...}; None: the initial input, or a final reply's step
    result: str | dict  # the result's words (VISTA's event text), or its metadata (a game's turn: games/vista/turns.py)
    success: bool
    frames: Sequence[bytes]  # the PNGs of its moments, in order


class Recorded:
    """A kind's events made once each, as its record grows (an event never changes once made): `make(n)` the n-th
    (0: the initial input), `count()` how many there are now."""

    def __init__(self, make: Callable[[int], Event], count: Callable[[], int]):
        self.make, self.count = make, count
        self.made: list[Event] = []
        self._lock = threading.Lock()

    def __call__(self) -> list[Event]:
        with self._lock:
            while len(self.made) < self.count():
                self.made.append(self.make(len(self.made)))
            return list(self.made)


class VistaEvents:
    """One item's VISTA tools over the events its kind supplies (`events()`, read at each call)."""

    def __init__(
        self, events: Callable[[], list[Event]], notes: Notes | None = None, pending: Callable[[], bool] | None = None
    ):
        self.events = events
        self.notes = notes
        self.pending = pending  # is a checkpoint pending (the agent asked to hand off)?
        self._saved = False  # the pending checkpoint has been saved
        self._lock = threading.Lock()
        self._supplied: dict[int, list[Supplied]] = {}  # an event's visuals, read once (its size from the PNG)

    def _of(self, number: int, event: Event) -> list[Supplied]:
        if number not in self._supplied:
            self._supplied[number] = [
                replace(Supplied.of_file(png, VIEW, number, moment), kind="historical")
                for moment, png in enumerate(event.frames)
            ]
        return self._supplied[number]

    def visuals(self, events: list[Event] | None = None) -> list[Supplied]:
        """Every visual supplied so far; the latest moment is the current one."""
        found = [v for number, event in enumerate(events or self.events()) for v in self._of(number, event)]
        if found:
            found[-1] = replace(found[-1], kind="current")
        return found

    def shown(self, words: str, ok: bool = True) -> CallToolResult:
        """An action's answer: its words, then the latest event's frames, each after its label."""
        events = self.events()
        latest = self.visuals(events)[-len(events[-1].frames) :] if events[-1].frames else []
        return answer(ok, words, [(v.label(), v.data) for v in latest])

    def history(self, arguments: dict) -> CallToolResult:
        events = [self._public(n, e) for n, e in enumerate(self.events())]
        if not isinstance(arguments, dict) or set(arguments) - {"start", "end", "limit"}:
            return answer(False, "Invalid tool arguments.")
        start, end = arguments.get("start"), arguments.get("end")
        for name, value in (("start", start), ("end", end)):
            if value is not None and (type(value) is not int or not 0 <= value <= len(events)):
                return answer(False, f"Invalid history {name} event number.")
        first, stop = start if start is not None else 0, end if end is not None else len(events)
        if stop < first:
            return answer(False, "History end must not precede its start.")
        limit = arguments.get("limit", 64)
        if type(limit) is not int:
            return answer(False, "History limit must be an integer.")
        selected = events[first:stop]
        bounded = start is not None or end is not None
        chosen = selected[:limit] if bounded else selected[-limit:]
        return answer(True, canonical({"events": chosen, "truncated": len(selected) > limit}))

    def _public(self, number: int, event: Event) -> dict:
        latest = number == len(self.events()) - 1
        observations = []
        for moment, visual in enumerate(self._of(number, event)):
            kind = "current" if latest and moment == len(event.frames) - 1 else "historical"
            views = [{"view": VIEW, "width": visual.width, "height": visual.height}]
            observations.append({"moment": moment, "kind": kind, "views": views})
        return {
            "event": number,
            "action": event.action,
            "success": event.success,
            "result": event.result,
            "observations": observations,
        }

    def definitions(self) -> dict[str, Definition]:
        looks = StillLooks(self.visuals()).definitions()
        limits = self.notes.limits if self.notes is not None else {"GUIDE.md": 65536, "WORKING.md": 16384}
        history = schema_object(
            {
                "start": {"type": "integer", "minimum": 0},
                "end": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1, "maximum": 128, "default": 64},
            }
        )
        checkpoint = schema_object(
            {
                "guide": {"type": ["string", "null"], "minLength": 1, "maxLength": limits["GUIDE.md"]},
                "working_memory": {"type": "string", "minLength": 1, "maxLength": limits["WORKING.md"]},
            },
            ["guide", "working_memory"],
        )
        return {
            **looks,
            "history": (HISTORY, history, READ_ONLY),
            **note_definitions(limits, level_scope=False),
            CHECKPOINT: (CHECKPOINT_TEXT, checkpoint, WRITES),
        }

    def checkpoint(self, arguments: dict) -> CallToolResult:
        """GUIDE.md (unless null) and WORKING.md saved at once, while a checkpoint is pending."""
        with self._lock:
            if self.notes is None or self.pending is None or not self.pending():
                self._saved = False
                return answer(False, canonical({"error": "No compact checkpoint is pending."}))
            if self._saved:
                return answer(True, canonical({"checkpoint_saved": True, "already_saved": True}))
            if not isinstance(arguments, dict) or set(arguments) != {"guide", "working_memory"}:
                return answer(False, canonical({"error": "Invalid arguments."}))
            guide, working = arguments["guide"], arguments["working_memory"]
            limits = self.notes.limits
            if guide is not None and (
                not isinstance(guide, str) or not guide.strip() or len(guide) > limits["GUIDE.md"]
            ):
                return answer(False, canonical({"error": "Invalid GUIDE.md content."}))
            if not isinstance(working, str) or not working.strip() or len(working) > limits["WORKING.md"]:
                return answer(False, canonical({"error": "Invalid WORKING.md content."}))
            where = {"event": len(self.events()) - 1}
            try:
                if guide is not None:
                    self.notes.write("GUIDE.md", guide.strip() + "\n", where)
                self.notes.write("WORKING.md", working.strip() + "\n", where)
            except NoteRefused:
                return answer(False, canonical({"error": "Compact checkpoint could not be saved."}))
            self._saved = True
            guide_chars = len(guide.strip()) if guide is not None else 0
            saved = {"checkpoint_saved": True, "guide_updated": guide is not None, "guide_chars": guide_chars}
            return answer(True, canonical(saved | {"working_chars": len(working.strip())}))  # keys sorted

    def functions(self) -> dict[str, Callable[[dict], CallToolResult]]:
        def look(name: str) -> Callable[[dict], CallToolResult]:
            return lambda arguments: getattr(StillLooks(self.visuals()), name)(arguments)

        return {
            "inspect": look("inspect"),
            "read_pixels": look("read_pixels"),
            "history": self.history,
            **note_functions(self.notes, lambda: {"event": len(self.events()) - 1}, self._lock),
            CHECKPOINT: self.checkpoint,
        }

    def tools(self, names: tuple[str, ...]) -> list[Tool]:
        """The named tools, in the order given (a look's display size is the game's, read at the start)."""
        return tools_of(self.definitions(), self.functions(), names)
