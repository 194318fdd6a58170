"""The browser kinds' game tools VISTA's way (`--game-tools vista`): the kind's actions in VISTA's words, then its
task tools over the game's events (games/vista/events.py). Every image they give counts toward --session-images
as ours do: at the cap the tool does nothing and answers VISTA's way (an error) with the hand-off's request."""

from __future__ import annotations

import functools
from collections.abc import Callable

from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult

from agent_eval.benchmarks.games.handoff import HandoffState, within_image_cap
from agent_eval.benchmarks.games.vista.events import CHECKPOINT, Event, Recorded, VistaEvents
from agent_eval.benchmarks.games.vista.mcp import NOTE_TOOLS, answer, vista_tool
from agent_eval.benchmarks.notes import Notes

LOOKS = ("inspect", "read_pixels", "history")


def offered(actions: tuple[str, ...], mode: str, notes: bool, codex: bool = False) -> tuple[str, ...]:
    """VISTA's tools in a tool mode (the checkpoint tool for Codex only, as VISTA offers it)."""
    looks = LOOKS if mode in ("image", "python") else ()
    note_tools = (*NOTE_TOOLS, *((CHECKPOINT,) if codex else ())) if notes else ()
    return (*actions, *looks, *note_tools)


def vista_events(
    event: Callable[[int], Event], count: Callable[[], int], notes: Notes | None, handoff: HandoffState | None
) -> VistaEvents:
    """VISTA's task tools over the kind's events (`event(n)`, `count()`: made from its record, so a restored game has
    the same); a checkpoint is pending while the agent is asked to hand off."""
    return VistaEvents(Recorded(event, count), notes, lambda: handoff is not None and handoff.told)


refused = functools.partial(answer, False)  # the image cap's refusal as VISTA answers a tool that did nothing


def acted(
    events: VistaEvents,
    handoff: HandoffState | None,
    images: int,
    act: Callable[[], tuple[str, bool] | CallToolResult],
) -> CallToolResult:
    """A VISTA action's answer: `act()` takes the action and says (its words, whether an action was executed), or
    refuses it (VISTA's answer); the words, with the hand-off's request when one is due, then the latest event's
    frames after VISTA's labels. Not taken when its `images` would reach the session's image cap."""

    def answered() -> CallToolResult:
        said = act()
        if isinstance(said, CallToolResult):
            return said
        words, ok = said
        if handoff is not None and (due := handoff.stop_now()):
            words += " " + due
        return events.shown(words, ok=ok)

    return within_image_cap(handoff, images, answered, refused)


def task_tools(events: VistaEvents, names: tuple[str, ...], handoff: HandoffState | None) -> dict[str, Tool]:
    """VISTA's task tools among `names`, inspect's views counted toward the image cap (one image a view)."""
    definitions, functions = events.definitions(), events.functions()
    look = functions["inspect"]

    def inspect(arguments: dict) -> CallToolResult:
        views = arguments.get("views") if isinstance(arguments, dict) else None
        return within_image_cap(handoff, len(views) if isinstance(views, list) else 0, lambda: look(arguments), refused)

    functions["inspect"] = inspect
    return {n: vista_tool(n, *definitions[n], functions[n]) for n in names if n in functions}
