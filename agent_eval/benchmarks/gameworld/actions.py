"""GameWorld's two action interfaces, checked against a role's controls and compiled into timed inputs: computer
use (its env/action_executor.py: its actions, key aliases and defaults) and semantic controls (its
agents/harness/semantic_controls.py: a role's named control bound to one of those actions, a `cell` picked from
its cell bindings). Where this differs from its executor, on purpose (docs/kinds/gameworld.md's table): a role
with no allowed keys has none; `type` sends only allowed keys; coordinates lie on the screen and durations are
bounded; a click and a typed key are held one frame, since on the paused clock a press released in the same
instant is never seen by a game that polls its keys."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agent_eval.benchmarks.gameworld.catalog import MOUSE_BUTTONS, GameDef, Role, RoleControls

ACTIONS = ("press_key", "press_keys", "click", "click_hold", "mouse_move", "drag", "scroll", "type", "wait")
MOUSE_ACTIONS = ("click", "click_hold", "drag", "scroll")  # refused where a role allows no clicks
MAX_DURATION_S = 5.0
TYPE_DURATION_S = 1.0
DRAG_STEPS = 10
FRAME_MS = 1000 / 60  # one animation frame: what a click or typed key is held for
KEY_SPLIT = re.compile(r"[,+\s]+")
KEY_NAMES = {  # each key as GameWorld's executor names it: the names it is also given (lower-cased)
    "ArrowLeft": "arrowleft left",
    "ArrowRight": "arrowright right",
    "ArrowUp": "arrowup up",
    "ArrowDown": "arrowdown down",
    "Space": "space spacebar",
    "Enter": "enter return",
    "Escape": "esc escape",
    "Tab": "tab",
    "Backspace": "backspace",
    "Delete": "delete del",
    "Shift": "shift shiftleft",
    "ShiftRight": "shiftright",
    "Control": "control ctrl controlleft",
    "ControlRight": "controlright",
    "Alt": "alt altleft",
    "AltRight": "altright",
}
PUNCTUATION = "slash period comma quote apostrophe semicolon backslash bracketleft bracketright minus equal"
KEY_ALIASES = {alias: key for key, aliases in KEY_NAMES.items() for alias in aliases.split()}
KEY_ALIASES |= dict(zip(PUNCTUATION.split(), "/.,'';\\[]-="))  # each name's character
# an input on the game's clock: ("key_down", key), ("key_up", key), ("move", x, y), ("mouse_down", button),
# ("mouse_up", button), ("wheel", dx, dy), ("advance", ms)
Input = tuple


class InvalidAction(ValueError):
    """An action outside the role's action space or malformed (GameWorld's `out_of_space` or `no_function_call`):
    nothing is sent to the game; the official harness still counts the step."""

    def __init__(self, reason: str, kind: str = "out_of_space"):
        super().__init__(reason)
        self.kind = kind


def key_name(key: object) -> str | None:
    """A key as GameWorld's executor names it (its aliases; one character lower-cased)."""
    if not isinstance(key, str) or not key.strip():
        return None
    text = key.strip()
    return text.lower() if len(text) == 1 else KEY_ALIASES.get(text.lower(), text)


def allowed_keys(controls: RoleControls) -> tuple[str, ...]:
    return tuple(dict.fromkeys(k for k in (key_name(key) for key in controls.allowed_keys) if k))


def _seconds(raw: Mapping, name: str, default: float) -> float:
    value = raw.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidAction(f"{name} must be a number of seconds, got {value!r}", "no_function_call")
    if value > MAX_DURATION_S:
        raise InvalidAction(f"{name} {value:g} s is longer than the {MAX_DURATION_S:g} s an action may take")
    return max(0.0, float(value))


def _point(raw: Mapping, xname: str, yname: str, screen: GameDef) -> tuple[float, float]:
    x, y = raw.get(xname), raw.get(yname)
    for name, value, size in ((xname, x, screen.width), (yname, y, screen.height)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidAction(f"{name} must be a number (pixels), got {value!r}", "no_function_call")
        if not 0 <= value < size:
            raise InvalidAction(f"{name} {value:g} is off the {screen.width}x{screen.height} screen")
    return float(x), float(y)  # type: ignore[arg-type]


def _button(raw: Mapping) -> str:
    button = str(raw.get("button") or "left").strip().lower()
    if button not in MOUSE_BUTTONS:
        raise InvalidAction(f"button must be one of {', '.join(MOUSE_BUTTONS)}, got {raw.get('button')!r}")
    return button


def _key_hold(controls: RoleControls, keys: list[str], raw: Mapping) -> float:
    if raw.get("duration") is not None:
        return _seconds(raw, "duration", controls.hold_duration)
    durations = {key_name(k): v for k, v in controls.key_durations.items()}
    own = [durations[k] for k in keys if k in durations]
    return max(own) if own else controls.hold_duration


def check_action(raw: Any, role: Role, screen: GameDef) -> dict[str, Any]:
    """The action as GameWorld's executor normalizes it (every default filled in), or InvalidAction."""
    if not isinstance(raw, Mapping):
        raise InvalidAction("an action must be an object with an `action` field", "no_function_call")
    name = str(raw.get("action") or "").strip().lower()
    if not name:
        raise InvalidAction("no `action` given", "no_function_call")
    if name not in ACTIONS:
        raise InvalidAction(f"unknown action {raw.get('action')!r}; the actions are {', '.join(ACTIONS)}")
    controls = role.controls
    if name in MOUSE_ACTIONS and not controls.allow_clicks:
        raise InvalidAction(f"{name}: this role ({role.name}) may not use the mouse")
    allowed = allowed_keys(controls)
    hold = controls.hold_duration
    if name in ("press_key", "press_keys"):
        given = raw.get("key") if name == "press_key" else raw.get("keys")
        if isinstance(given, str):
            parts = [p for p in KEY_SPLIT.split(given.strip()) if p]
        elif isinstance(given, (list, tuple)) and name == "press_keys":
            parts = [str(p) for p in given]
        else:
            raise InvalidAction(f"{name} needs {'key' if name == 'press_key' else 'keys'}", "no_function_call")
        keys = [key_name(p) for p in parts]
        if not keys or any(k is None or k not in allowed for k in keys):
            bad = [p for p, k in zip(parts, keys) if k is None or k not in allowed] or parts
            offered = ", ".join(allowed) if allowed else "none"
            raise InvalidAction(
                f"key {', '.join(map(str, bad)) or '(none)'} is not allowed; this role's keys: {offered}"
            )
        checked = [k for k in keys if k is not None]
        kind = "press_key" if len(checked) == 1 else "press_keys"
        out: dict[str, Any] = {"action": kind, "duration": _key_hold(controls, checked, raw)}
        return out | ({"key": checked[0]} if kind == "press_key" else {"keys": checked})
    if name in ("click", "click_hold", "mouse_move"):
        x, y = _point(raw, "x", "y", screen)
        out = {"action": name, "x": x, "y": y} | ({"button": _button(raw)} if name != "mouse_move" else {})
        out["duration"] = _seconds(raw, "duration", hold)
        if name == "mouse_move" and raw.get("from_x") is not None and raw.get("from_y") is not None:
            out["from_x"], out["from_y"] = _point(raw, "from_x", "from_y", screen)
        return out
    if name == "drag":
        x1, y1 = _point(raw, "x1", "y1", screen)
        x2, y2 = _point(raw, "x2", "y2", screen)
        steps = raw.get("steps", DRAG_STEPS)
        if isinstance(steps, bool) or not isinstance(steps, (int, float)) or steps != int(steps):
            raise InvalidAction(f"steps must be a whole number, got {steps!r}", "no_function_call")
        out = {"action": name, "x1": x1, "y1": y1, "x2": x2, "y2": y2, "button": _button(raw)}
        return out | {"duration": _seconds(raw, "duration", hold), "steps": max(1, int(steps))}
    if name == "scroll":
        deltas = [raw.get("delta_x", 0) or 0, raw.get("delta_y", 0) or 0]
        if any(isinstance(d, bool) or not isinstance(d, (int, float)) for d in deltas):
            raise InvalidAction("delta_x and delta_y must be numbers (pixels)", "no_function_call")
        out = {"action": name, "delta_x": float(deltas[0]), "delta_y": float(deltas[1])}
        return out | {"duration": _seconds(raw, "duration", hold)}
    if name == "type":
        text = raw.get("text")
        if not isinstance(text, str) or not text:
            raise InvalidAction("type needs text", "no_function_call")
        enter = bool(raw.get("press_enter"))
        wanted = [key_name(c) for c in text if c not in "\n\r"] + (["Enter"] if enter or "\n" in text else [])
        refused = list(dict.fromkeys(k or "?" for k in wanted if k not in allowed))
        if refused:
            offered = ", ".join(allowed) if allowed else "none"
            raise InvalidAction(f"type: {', '.join(refused)} not among this role's keys ({offered})")
        return {
            "action": name,
            "text": text,
            "press_enter": enter,
            "duration": _seconds(raw, "duration", TYPE_DURATION_S),
        }
    return {"action": "wait", "duration": _seconds(raw, "duration", hold)}


def semantic_action(control_id: Any, arguments: Mapping[str, Any] | None, role: Role) -> dict[str, Any]:
    """A semantic control's bound action, as GameWorld's mapper makes it: the binding, the call's arguments that
    the binding does not set, and a `cell` looked up in the binding's cell_bindings. InvalidAction when the role
    has no such control."""
    name = str(control_id or "").strip()
    if not name:
        raise InvalidAction("no control named", "no_function_call")
    control = next((c for c in role.semantic_controls if c.id == name), None)
    if control is None:
        offered = ", ".join(c.id for c in role.semantic_controls)
        raise InvalidAction(f"no control {name!r}; this role's controls: {offered}")
    mapped = dict(control.binding)
    for key, value in (arguments or {}).items():
        if key not in ("tool_name", "arguments", "reasoning") and key not in mapped and value is not None:
            mapped[key] = value
    cells = mapped.get("cell_bindings")
    cell = str((arguments or {}).get("cell") or "").strip().lower()
    if isinstance(cells, Mapping) and cell:
        where = cells.get(cell)
        if isinstance(where, Mapping):
            mapped["x"], mapped["y"] = where.get("x"), where.get("y")
            mapped.pop("cell_bindings", None)
    if isinstance(mapped.get("cell_bindings"), Mapping):
        raise InvalidAction(f"{name} needs a cell, one of {', '.join(sorted(map(str, cells or {}))[:12])}, ...")
    for key in ("cell_param", "cell", "semantic_controls"):
        mapped.pop(key, None)
    return mapped


def compile_action(action: Mapping[str, Any]) -> list[Input]:
    """A checked action as inputs on the game's clock, in the order GameWorld's executor sends them."""
    name, seconds = action["action"], float(action.get("duration", 0.0))
    ms = seconds * 1000
    if name == "press_key":
        return [("key_down", action["key"]), ("advance", ms), ("key_up", action["key"])]
    if name == "press_keys":
        keys = list(action["keys"])
        return [*(("key_down", k) for k in keys), ("advance", ms), *(("key_up", k) for k in reversed(keys))]
    if name == "click":
        press = [("move", action["x"], action["y"]), ("mouse_down", action["button"]), ("advance", FRAME_MS)]
        return press + [("mouse_up", action["button"]), ("advance", max(0.0, ms - FRAME_MS))]
    if name == "click_hold":
        held = [("move", action["x"], action["y"]), ("mouse_down", action["button"]), ("advance", ms)]
        return held + [("mouse_up", action["button"])]
    if name == "mouse_move":
        start = [("move", action["from_x"], action["from_y"])] if "from_x" in action else []
        return start + [("move", action["x"], action["y"]), ("advance", ms)]
    if name == "drag":
        steps = int(action["steps"])
        x1, y1, x2, y2 = action["x1"], action["y1"], action["x2"], action["y2"]
        out: list[Input] = [("move", x1, y1), ("mouse_down", action["button"])]
        for step in range(1, steps + 1):
            out.append(("move", x1 + (x2 - x1) * step / steps, y1 + (y2 - y1) * step / steps))
            if ms > 0 and steps > 1:
                out.append(("advance", ms / steps))
        return out + [("mouse_up", action["button"])]
    if name == "scroll":
        return [("wheel", action["delta_x"], action["delta_y"]), ("advance", ms)]
    if name == "type":
        keys = [key_name(c) if c not in "\n\r" else "Enter" for c in action["text"]]
        keys += ["Enter"] if action.get("press_enter") else []
        each = ms / len(keys) if keys else 0.0
        out = []
        for key in keys:  # held a frame (the paused clock), then the rest of its share of the duration
            out += [("key_down", key), ("advance", min(FRAME_MS, each)), ("key_up", key)]
            out += [("advance", each - FRAME_MS)] if each > FRAME_MS else []
        return out
    return [("advance", ms)]


def describe_action(action: Mapping[str, Any]) -> str:
    """One short line for timelines: `press_key ArrowUp 0.2s`, `click (120, 88) left`."""
    name = action.get("action")
    if name == "press_key":
        return f"press_key {action['key']} {action['duration']:g}s"
    if name == "press_keys":
        return f"press_keys {'+'.join(action['keys'])} {action['duration']:g}s"
    if name in ("click", "click_hold", "mouse_move"):
        extra = f" {action['button']}" if "button" in action else ""
        return f"{name} ({action['x']:g}, {action['y']:g}){extra}" + (
            f" {action['duration']:g}s" if name != "click" else ""
        )
    if name == "drag":
        return f"drag ({action['x1']:g}, {action['y1']:g})→({action['x2']:g}, {action['y2']:g})"
    if name == "scroll":
        return f"scroll ({action['delta_x']:g}, {action['delta_y']:g})"
    if name == "type":
        return f"type {action['text']!r}" + (" ⏎" if action.get("press_enter") else "")
    return f"wait {action.get('duration', 0):g}s"
