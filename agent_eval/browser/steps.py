"""The steps a kind sends to a page (PageHost.run), as plain JSON-able dicts, so a batch can be recorded in a
timeline as it was sent and replayed exactly.

Keys are Playwright's key names ("ArrowUp", "Space", "Enter", "Escape", "Shift", "z", ...). Mouse positions are
page pixels (CSS pixels of the viewport). The game's time moves only in `advance`: 60 animation frames a game
second, timers at their times; `canvas` there reads that canvas at the end of the advance (in the same task:
a WebGL canvas still holds its drawing) and captures it as a frame."""

from __future__ import annotations

FRAME_MS = 1000 / 60  # one animation frame of the page's clock
DEFAULT_CANVAS = "#defaultCanvas0, canvas"  # p5's canvas, else the page's first canvas


def key_down(key: str) -> dict:
    return {"op": "key_down", "key": key}


def key_up(key: str) -> dict:
    return {"op": "key_up", "key": key}


def advance(ms: float, canvas: str | None = None) -> dict:
    """Let `ms` of game time pass; with `canvas` (a CSS selector), capture that canvas at the end."""
    step: dict = {"op": "advance", "ms": ms}
    if canvas is not None:
        step["canvas"] = canvas
    return step


def screenshot(selector: str | None = None) -> dict:
    """Capture the page as shown (the viewport, or one element), e.g. a game drawn in the DOM."""
    return {"op": "screenshot", "selector": selector}


def evaluate(js: str) -> dict:
    """Read the page: a JavaScript expression or function, evaluated in the page; its JSON value is the result.
    It runs between frames and moves no time (unless the page's own code does)."""
    return {"op": "eval", "js": js}


def mouse_move(x: float, y: float) -> dict:
    return {"op": "mouse_move", "x": x, "y": y}


def mouse_down(button: str = "left") -> dict:
    return {"op": "mouse_down", "button": button}


def mouse_up(button: str = "left") -> dict:
    return {"op": "mouse_up", "button": button}


def wheel(dx: float, dy: float) -> dict:
    return {"op": "wheel", "dx": dx, "dy": dy}


def type_text(text: str) -> dict:
    return {"op": "type", "text": text}


def keys_for(
    ms: float, taps: tuple[str, ...] = (), holds: tuple[str, ...] = (), canvas: str | None = None
) -> list[dict]:
    """A span of `ms` game time with keys tapped at its start and keys held throughout, then (with `canvas`)
    its last frame captured. A tap is held for one animation frame: on a clock that moves only between inputs,
    a key pressed and released at once is never seen by a game that polls which keys are down."""
    steps = [key_down(key) for key in (*holds, *taps)]
    if taps:
        tap_ms = min(FRAME_MS, ms)
        steps.append(advance(tap_ms))
        steps += [key_up(key) for key in taps]
        ms -= tap_ms
    steps.append(advance(ms, canvas))
    return steps + [key_up(key) for key in holds]
