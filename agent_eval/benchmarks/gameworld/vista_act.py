"""`--act-schema vista`: the computer-use `act` tool exactly as VISTA offers it (joshhhhhan/VISTA, MIT; stored copy
agent-memory-atlas-archive/joshhhhhan--VISTA at c97c354: src/vista/benchmarks/gameworld/computer_use.py
action_schema and action_description; core/runtime.py TaskRuntime.execute): one role's tool, a `oneOf` of one
closed object per action of that role. Arguments outside the schema are refused with "Invalid tool arguments."
and nothing is taken; those within it are a step, checked as our executor checks every action (actions.py).
VISTA leaves those checks to GameWorld's runtime at its pinned commit f2883c3, which cannot be fetched; its
description forbids opposing key pairs, so a press_keys of one is an invalid step here."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from agent_eval.benchmarks.gameworld.actions import InvalidAction
from agent_eval.benchmarks.gameworld.catalog import GameDef

MAX_DURATION = 2
KEY_COUNT = 2
MAX_TEXT = 5
DRAG_STEPS = 10
TYPE_DURATION = 2
OPPOSING = (("ArrowLeft", "ArrowRight"), ("ArrowUp", "ArrowDown"), ("a", "d"), ("w", "s"))
INVALID_ARGUMENTS = "Invalid tool arguments."  # core/runtime.py TaskRuntime.execute's rejection


def _number(words: str, low: int, high: int) -> dict:
    range_words = f"{words} Inclusive range: {low} to {high}."
    return {"type": "number", "minimum": low, "maximum": high, "description": range_words}


def _closed(action: str, properties: dict, *required: str) -> dict:
    """One action's closed object: its name, its fields, the required ones."""
    fields = {"action": {"const": action}, **properties}
    return {"type": "object", "additionalProperties": False, "properties": fields, "required": ["action", *required]}


def schema(game: GameDef, role: int) -> dict:
    """The role's act schema as VISTA builds it (its keys as the catalog names them, sorted)."""
    controls = game.roles[role].controls
    keys = sorted(controls.allowed_keys)
    duration = _number("Duration in seconds.", 0, MAX_DURATION)
    x = _number("Horizontal pixels from the left edge.", 0, game.width - 1)
    y = _number("Vertical pixels from the top edge.", 0, game.height - 1)
    key = {"type": "string", "enum": keys}
    variants = [_closed("wait", {"duration": duration})]
    if keys:
        variants.append(_closed("press_key", {"key": key, "duration": duration}, "key"))
    if len(keys) > 1:
        held = f"Exactly {KEY_COUNT} distinct allowed keys, held simultaneously. Opposing directions are not allowed."
        pair = {"type": "array", "minItems": KEY_COUNT, "maxItems": KEY_COUNT, "uniqueItems": True}
        pair |= {"description": held, "items": key}
        variants.append(_closed("press_keys", {"keys": pair, "duration": duration}, "keys"))
    if any(len(k) == 1 for k in keys):
        words = f"Text of length 1 to {MAX_TEXT} characters inclusive. Each character must map to an allowed key."
        text = {"type": "string", "minLength": 1, "maxLength": MAX_TEXT, "description": words}
        typed = {"text": text, "press_enter": {"type": "boolean"}, "duration": duration}
        variants.append(_closed("type", typed, "text"))
    if controls.allow_clicks:
        button = {"type": "string", "enum": ["left", "right", "middle"]}
        steps_words = f"Drag interpolation steps, an integer at least 1; default {DRAG_STEPS}."
        steps = {"type": "integer", "minimum": 1, "description": steps_words}
        line = {"x1": x, "y1": y, "x2": x, "y2": y, "button": button, "duration": duration, "steps": steps}
        variants += [
            _closed("click", {"x": x, "y": y, "button": button}, "x", "y"),
            _closed("click_hold", {"x": x, "y": y, "button": button, "duration": duration}, "x", "y"),
            _closed("mouse_move", {"x": x, "y": y, "from_x": x, "from_y": y, "duration": duration}, "x", "y"),
            _closed("drag", line, "x1", "y1", "x2", "y2"),
            _closed("scroll", {"delta_x": {"type": "number"}, "delta_y": {"type": "number"}, "duration": duration}),
        ]
    return {"type": "object", "oneOf": variants}


def description(game: GameDef, role: int) -> str:
    """The role's act description, VISTA's text (computer_use.py action_description)."""
    spec = game.roles[role]
    controls = spec.controls
    keys = sorted(controls.allowed_keys)
    w, h = game.width, game.height
    lines = [
        "Execute exactly one GameWorld input for the current role, not an action list.",
        f"Role {role} ({spec.name}): keys [{', '.join(keys) or 'none'}], "
        f"mouse {'enabled' if controls.allow_clicks else 'disabled'}.",
        f"Coordinates use the {w}x{h} screenshot, with origin at the top-left: x from 0 to {w - 1}, y from 0 to "
        f"{h - 1}, both inclusive. These bounds also apply to from_x/from_y and drag endpoints.",
        f"duration is optional, in seconds from 0 to {MAX_DURATION} inclusive; fractions are allowed. An explicit "
        f"duration overrides the defaults. The role default hold/wait is {controls.hold_duration:g}s unless an "
        "action-specific default below applies.",
        "wait: Wait without input for duration.",
    ]
    if keys:
        lines.append("press_key: Hold one allowed key for duration, then release it.")
    if len(keys) > 1:
        lines.append(
            f"press_keys: Hold exactly {KEY_COUNT} distinct allowed keys simultaneously for duration, then release "
            "them."
        )
        opposing = [f"{a}+{b}" for a, b in OPPOSING if {a, b} <= set(keys)]
        if opposing:
            lines.append("Forbidden opposing key pairs: " + ", ".join(opposing) + ".")
    if keys and controls.key_durations:
        values = ", ".join(f"{k}={v:g}s" for k, v in sorted(controls.key_durations.items()))
        lines.append(
            f"When duration is omitted, per-key defaults are {values}. For press_keys, use the largest configured "
            "override among the selected keys, or the role default if none has an override."
        )
    if any(len(k) == 1 for k in keys):
        lines.append(
            f"type: Send text of length 1 to {MAX_TEXT} characters inclusive; every character must map to an allowed "
            "key. press_enter optionally adds Enter (default false), only if Enter is allowed. The total typing "
            f"duration defaults to {TYPE_DURATION}s."
        )
    if controls.allow_clicks:
        lines += [
            "Mouse button is left, right, or middle; default left.",
            "click: Click at (x, y), then wait the role default. This action has no duration parameter.",
            "click_hold: Hold the mouse button at (x, y) for duration, then release it.",
            "mouse_move: Move to (x, y), then wait for duration. Optionally supply both from_x and from_y to move "
            "from that point.",
            f"drag: Hold the mouse button from (x1, y1) to (x2, y2). steps is an integer at least 1, default "
            f"{DRAG_STEPS}; duration controls the interpolated drag time when steps is greater than 1.",
            "scroll: Scroll by delta_x and delta_y (each defaults to 0), then wait for duration.",
        ]
    return "\n".join(lines)


def admitted(arguments: Any, game: GameDef, role: int) -> dict | None:
    """The action to take, VISTA's defaults filled in, or None: outside the role's schema (answered
    INVALID_ARGUMENTS, nothing taken)."""
    if not isinstance(arguments, dict) or not Draft202012Validator(schema(game, role)).is_valid(arguments):
        return None
    action = dict(arguments)
    if action["action"] == "type" and "duration" not in action:
        action["duration"] = TYPE_DURATION
    return action


def refuse_opposing(action: dict) -> None:
    """InvalidAction for a press_keys of an opposing pair (VISTA's description forbids it): a step, nothing sent."""
    keys = set(action.get("keys") or []) if action.get("action") == "press_keys" else set()
    if any(set(pair) == keys for pair in OPPOSING):
        raise InvalidAction(f"press_keys {'+'.join(action['keys'])}: opposing keys may not be held together")
