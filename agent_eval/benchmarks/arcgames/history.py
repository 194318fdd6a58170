"""VISTA's `history` tool (arc3/claude/controller.py: _public_event, _history, _attempt_history): each action's
public record (the action as given, its result's metadata), the `events` view (exact records by turn range, with a
limit) and the `attempts` view (RESET-to-GAME_OVER attempts in the current level, from the level's entry)."""

from __future__ import annotations

from agent_eval.benchmarks.arcgames.session import CLICK
from agent_eval.benchmarks.arcgames.turns import Turn, crossed_level, metadata

ENDED = ("GAME_OVER", "WIN", "TERMINAL")  # an attempt's end, as VISTA's _attempt_history reads a state
SOURCE = "environment action results"
MAX_TURN = 999_999
HISTORY_LIMIT, MAX_HISTORY_LIMIT = 64, 128


def event(turn: Turn, result: dict) -> dict:
    """VISTA's public record of one action (_public_event): the action as given, its result without the grid."""
    action: dict = {"action": turn.action}
    if turn.action == CLICK and turn.given is not None:
        action["x"], action["y"] = turn.given
    return {
        "step": turn.number - 1,
        "turn": turn.number,
        "action": action,
        "result": {k: v for k, v in result.items() if k != "grid"},
    }


def replayed_events(all_turns: list[Turn], display: int, last_reason: str | None) -> list[dict]:
    """The events of turns already played (a restored game): each turn's metadata as it was when played, the game
    ending only at its last turn (won, budget spent or failed: `last_reason`)."""
    out = []
    for before, turn in zip([None, *all_turns], all_turns):
        if turn.action is None:
            continue
        reason = last_reason if turn is all_turns[-1] else None
        boundary = crossed_level(before, turn, reason is not None)
        out.append(event(turn, metadata(turn, display, reason=reason, action_applied=True, level_boundary=boundary)))
    return out


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
    for e in (e for e in events if e["turn"] > start):
        if e["action"]["action"] == "RESET":
            number, kind, began, actions = number + 1, "reset", e["turn"], 0
            continue
        actions += 1
        if e["result"]["state"] in ENDED:
            found.append(
                {
                    "attempt": number,
                    "start": kind,
                    "start_turn": began,
                    "outcome": e["result"]["state"],
                    "game_actions": actions,
                    "end_turn": e["turn"],
                }
            )
    if current["state"] not in ENDED:
        found.append(
            {
                "attempt": number,
                "start": kind,
                "start_turn": began,
                "outcome": current["state"],
                "game_actions": actions,
                "end_turn": current["turn"],
            }
        )
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
        shown["attempts"] = every[-limit:]
        shown["total_attempts"] = len(every)
        shown["truncated"] = len(every) > limit
        return True, shown
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
