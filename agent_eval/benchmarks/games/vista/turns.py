"""VISTA's tools of ARC-AGI-3 (github.com/joshhhhhan/VISTA, MIT: src/vista/core/session.py, tools.py and
benchmarks/arc3/claude/controller.py, tools.py), turn-addressed over the core's events: turn N is event N (turn 0
the first observation), a turn's frames its moments. `inspect` and `read_pixels` (TurnLooks) take a region in the
run's coordinates, scaled onto the image as shown, and name exact colours by the game's one palette; `history`
(history_view) gives the actions' public records by turn range or the current level's attempts."""

from __future__ import annotations

import threading
from collections.abc import Callable

from mcp_types import CallToolResult

from agent_eval.benchmarks.games.vista import mcp
from agent_eval.benchmarks.games.vista.events import Event
from agent_eval.benchmarks.games.vista.looks import Colour, Looks, Picked, Refused, checked_question, checked_region
from agent_eval.benchmarks.games.vista.looks import checked_view as _checked_keys
from agent_eval.benchmarks.games.vista.mcp import LABEL, READ_ONLY, Definition, answer, schema_object, schema_question

MAX_TURN = 999_999
ENDED = ("GAME_OVER", "WIN", "TERMINAL")  # an attempt's end, as VISTA's _attempt_history reads a state
SOURCE = "environment action results"
HISTORY_LIMIT, MAX_HISTORY_LIMIT = 64, 128


class TurnLooks(Looks):
    """inspect and read_pixels over a game's turns (its events, read at each call), VISTA's ARC-AGI-3 way."""

    def __init__(self, events: Callable[[], list[Event]], size: int, display: int):
        self.events, self.size, self.display = events, size, display
        self.symbols: dict[Colour, str] = {}  # read_pixels' colour -> symbol, kept for the game
        self._lock = threading.Lock()

    def _check(self, selection: object, index: int, allowed: set[str], needed: set[str]) -> None:
        _checked_keys(selection, index, allowed | {"turn", "frame"}, needed | {"turn"})
        assert isinstance(selection, dict)
        turn, frame = selection.get("turn"), selection.get("frame")
        if type(turn) is not int or not 0 <= turn <= MAX_TURN:
            raise Refused(f"View {index}: invalid turn.")
        if "frame" in selection and (type(frame) is not int or not 0 <= frame <= MAX_TURN):
            raise Refused(f"View {index}: invalid frame.")
        if "region" in selection and selection["region"] is None and "region" not in needed:
            raise Refused(f"View {index}: invalid region.")  # inspect's; read_pixels reads a null region as all

    def _pick(self, selection: dict, index: int) -> Picked:
        region = checked_region(selection, index, self.size, self.size)
        turn, frame = selection["turn"], selection.get("frame")
        events = self.events()
        pngs = events[turn].frames if turn < len(events) else ()
        if not pngs:
            raise Refused(f"View {index}: no frames found for turn {turn}.")
        number = len(pngs) - 1 if frame is None else frame
        if not 0 <= number < len(pngs):
            raise Refused(f"View {index}: no frame {frame} found for turn {turn}.")
        address = {
            "turn": turn,
            "frame": number,
            "available_frames": len(pngs),
            "available_frame_range": [0, len(pngs) - 1],
        }
        scale = self.display // self.size
        box = (region[0] * scale, region[1] * scale, region[2] * scale, region[3] * scale)
        return Picked(address, region, box, pngs[number], (self.display, self.display))

    def inspect(self, arguments: object) -> CallToolResult:
        try:
            metadata, images = self._inspected(checked_question(arguments, mcp.MAX_INSPECTION_VIEWS))
        except Refused as why:
            return answer(False, {"error": str(why)})
        labels = [inspection_label(view, metadata["view_count"]) for view in metadata["views"]]
        return answer(True, metadata, list(zip(labels, images)))

    def read_pixels(self, arguments: object) -> CallToolResult:
        with self._lock:  # the symbol map is the game's
            try:
                views = checked_question(arguments, mcp.MAX_PIXEL_READOUT_VIEWS)
                return answer(True, self._sampled(views, self.symbols))
            except Refused as why:
                return answer(False, {"error": str(why)})

    def definitions(self) -> dict[str, Definition]:
        """core/tools.py's inspect and read_pixels, every coordinate in the run's `size` (VISTA: its display_size)."""
        size, display = self.size, self.display
        inspect = (
            "Inspect one or more supplied visuals without changing the current game state. Each view selects an "
            "archived turn; omit frame to use that turn's final frame. Omit region to see the full visual, or select "
            f"a rectangular region in the same standard {size}x{size} coordinates used by ACTION6. A selected region "
            f"is cropped exactly from that visual and enlarged proportionally to fit within {display}x{display} "
            "without smoothing. State the visual question these views should answer and give each view a short "
            "label. Include the evidence needed to answer that question in the same request. The selected views are "
            "returned in request order; your question and labels remain in the inspect call."
        )
        read_pixels = (
            "Read exact discrete color samples from one or more supplied visuals without changing the game state. "
            "Each view divides its selected rectangular region into equal rows and columns and samples the center "
            "pixel of every part from the archived supplied PNG. The result contains one RGB symbol palette and one "
            "compact row string per sampled row for each view in request order. At most "
            f"{mcp.MAX_PIXEL_READOUT_VIEWS} views may be selected, with at most {mcp.MAX_PIXEL_READOUT_SAMPLES} "
            "samples total per call. This tool only measures pixels; it does not align, transform, compare, or "
            "interpret them. State the visual question and give each view a short label; those remain in this call."
        )
        pixels_view = self._view_schema(mcp.schema_counts(display), ["label", "turn", "region", "rows", "columns"])
        return {
            "inspect": (
                inspect,
                schema_question(self._view_schema({}, ["label", "turn"]), mcp.MAX_INSPECTION_VIEWS),
                READ_ONLY,
            ),
            "read_pixels": (read_pixels, schema_question(pixels_view, mcp.MAX_PIXEL_READOUT_VIEWS), READ_ONLY),
            "history": HISTORY,
        }

    def _view_schema(self, extra: dict, required: list[str]) -> dict:
        frame = _HISTORY_TURN | {"description": "Exact archived frame; omit for the final frame."}
        turn = {"label": LABEL, "turn": dict(_HISTORY_TURN), "frame": frame, "region": mcp.schema_region(self.size)}
        return schema_object(turn | extra, required)


def inspection_label(view: dict, count: int) -> str:
    """The text VISTA puts before each inspected image (core/dispatcher.py, visual_result_label)."""
    r, size = view["region"], view["image_size"]
    return (
        f'<inspection_visual index="{view["index"]}" count="{count}" turn="{view["turn"]}" frame="{view["frame"]}" '
        f'region="{r["x"]},{r["y"]},{r["width"]},{r["height"]}" size="{size["width"]}x{size["height"]}">'
        "</inspection_visual>"
    )


_HISTORY_TURN = {"type": "integer", "minimum": 0, "maximum": MAX_TURN}
HISTORY: Definition = (
    "Read objective action and environment-result records from this run without changing the game. `attempts` "
    "summarizes RESET-to-GAME_OVER attempts in the current level. `events` returns exact public action/result "
    "records by turn; use start_turn, end_turn, and limit to select a range.",
    schema_object(
        {
            "view": {"type": "string", "enum": ["attempts", "events"]},
            "start_turn": _HISTORY_TURN,
            "end_turn": dict(_HISTORY_TURN),
            "limit": {"type": "integer", "minimum": 1, "maximum": 128, "default": 64},
        },
        ["view"],
    ),
    READ_ONLY,
)


def records(events: list[Event]) -> list[dict]:
    """Each action's public record (VISTA's _public_event); turn 0, the first observation, is no action's."""
    return [
        {"step": number - 1, "turn": number, "action": event.action, "result": event.result}
        for number, event in enumerate(events)
        if event.action is not None
    ]


def level_start_turn(events: list[dict]) -> int:
    """The turn at which the current level began (VISTA's _level_start_turn): the last level boundary's, else 0."""
    starts = [e["turn"] for e in events if e["result"].get("level_boundary")]
    return starts[-1] if starts else 0


def attempts(events: list[dict], current: dict) -> dict:
    """The `attempts` view (VISTA's _attempt_history): the current level's attempts, each from the level's entry or
    a RESET to a GAME_OVER or WIN, the open attempt last. `current`: the current turn's metadata."""
    start = level_start_turn(events)
    found: list[dict] = []
    number, kind, began, actions = 1, "level_entry", start, 0

    def ended(at: dict) -> None:
        found.append(
            {
                "attempt": number,
                "start": kind,
                "start_turn": began,
                "outcome": at["state"],
                "game_actions": actions,
                "end_turn": at["turn"],
            }
        )

    for e in (e for e in events if e["turn"] > start):
        if e["action"]["action"] == "RESET":
            number, kind, began, actions = number + 1, "reset", e["turn"], 0
            continue
        actions += 1
        if e["result"]["state"] in ENDED:
            ended({"state": e["result"]["state"], "turn": e["turn"]})
    if current["state"] not in ENDED:
        ended(current)
    return {
        "view": "attempts",
        "source": SOURCE,
        "level_start_turn": start,
        "progress": current["progress"],
        "attempts": found,
    }


def history_view(arguments: object, events: list[dict], current: dict) -> tuple[bool, dict]:
    """The `history` tool (VISTA's _history): (ok, the metadata answered), with VISTA's checks and messages."""
    if not isinstance(arguments, dict) or set(arguments) - {"view", "start_turn", "end_turn", "limit"}:
        return False, {"error": "Invalid arguments."}
    view = arguments.get("view")
    if view not in ("attempts", "events"):
        return False, {"error": "Invalid history view."}
    limit = arguments.get("limit", HISTORY_LIMIT)
    if type(limit) is not int or not 1 <= limit <= MAX_HISTORY_LIMIT:
        return False, {"error": "Invalid history limit."}
    if view == "attempts":
        if set(arguments) - {"view", "limit"}:
            return False, {"error": "start_turn and end_turn are only valid for events."}
        shown = attempts(events, current)
        every = shown["attempts"]
        return True, shown | {"attempts": every[-limit:], "total_attempts": len(every), "truncated": len(every) > limit}
    start, end = arguments.get("start_turn"), arguments.get("end_turn")
    for name, value in (("start_turn", start), ("end_turn", end)):
        if value is not None and (type(value) is not int or not 0 <= value <= MAX_TURN):
            return False, {"error": f"Invalid {name}."}
    if isinstance(start, int) and isinstance(end, int) and start > end:
        return False, {"error": "start_turn must not exceed end_turn."}
    matching = [e for e in events if (start is None or e["turn"] >= start) and (end is None or e["turn"] <= end)]
    selected = matching[-limit:] if start is None and end is None else matching[:limit]
    numbers = [e["turn"] for e in events]
    return True, {
        "view": "events",
        "source": SOURCE,
        "events": selected,
        "available_turn_range": [numbers[0], numbers[-1]] if numbers else None,
        "total_matching": len(matching),
        "truncated": len(matching) > len(selected),
    }
