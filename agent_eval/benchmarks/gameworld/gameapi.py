"""A GameWorld page's `window.gameAPI` driven on the harness's clock: started, initialised and reset as GameWorld's
runtime does it (env/browser_manager.py, env/game_state_tracker.py: init at once, then getState() polled every
0.3 s until actionable, 60 s at most, then 0.1 s more), its waits counted in game time. One change: a page whose
game is made in its first animation frame (GameWorld's 2048) gives another start board when init runs before that
frame, so `start` runs the page's frames until getState() stops saying `loading` (and two more) before init."""

from __future__ import annotations

import json
from typing import Any, Protocol

from agent_eval.benchmarks.gameworld.actions import FRAME_MS, Input

READY_POLL_MS = 300.0  # GameWorld's readiness poll (DEFAULT_READINESS_POLL_S)
READY_LIMIT_MS = 60_000.0  # its readiness timeout
AFTER_READY_MS = 100.0  # its extra wait once actionable
LOADING_LIMIT_MS = 10_000.0  # the page's first frames: how long it may say `loading` before init
SETTLE_FRAMES = 2  # frames run after the page stops saying `loading`, before init
CALL_LIMIT_MS = 10_000.0  # how long init or reset may take, in game time
READY_STATUSES = ("ready", "playing")

# GameWorld's tracker reads getState() and takes a failure as no state: the same, in the page
GET_STATE = (
    "(() => { try { const api = window.gameAPI; "
    "return api && typeof api.getState === 'function' ? api.getState() : null; } catch (e) { return null; } })()"
)
HAS_API = "typeof window.gameAPI === 'object' && window.gameAPI !== null"
START_CALL = """(() => {{
  const api = window.gameAPI;
  window.__agentEvalCall = {{done: false}};
  if (!api || typeof api.{name} !== 'function') {{ window.__agentEvalCall = {{done: true, missing: true}}; return; }}
  Promise.resolve().then(() => api.{name}({{}})).then(
    (value) => {{ window.__agentEvalCall = {{done: true, value: value === undefined ? null : value}}; }},
    (error) => {{ window.__agentEvalCall = {{done: true, error: String(error && error.stack || error)}}; }});
}})()"""
CALL_STATE = "window.__agentEvalCall || null"
# a compiled input's kind (actions.py) -> the host's op and its arguments' names
HOST_OPS = {
    "key_down": ("key_down", "key"),
    "key_up": ("key_up", "key"),
    "move": ("mouse_move", "x", "y"),
    "mouse_down": ("mouse_down", "button"),
    "mouse_up": ("mouse_up", "button"),
    "wheel": ("wheel", "dx", "dy"),
}


class GamePage(Protocol):
    """One game page on the harness's clock (the browser host's page), driven in batches of steps, each a dict:
    {"op": "advance", "ms"}, {"op": "key_down"|"key_up", "key"}, {"op": "mouse_move", "x", "y"},
    {"op": "mouse_down"|"mouse_up", "button"}, {"op": "wheel", "dx", "dy"}, {"op": "eval", "js"} (its JSON value),
    {"op": "screenshot"} (a capture: .png, and .hash of its pixels). One result per step (None for inputs)."""

    def run(self, steps: list[dict]) -> list: ...


class GameApiError(RuntimeError):
    """The page's gameAPI did not do what GameWorld's runtime needs of it (said in words: what, and how long)."""


def host_steps(inputs: list[Input]) -> list[dict]:
    """Compiled inputs (actions.py) as the host's steps."""
    out: list[dict] = []
    for kind, *values in inputs:
        if kind == "advance":
            if values[0] > 0:
                out.append({"op": "advance", "ms": float(values[0])})
        elif kind in HOST_OPS:
            op, *names = HOST_OPS[kind]
            out.append({"op": op, **dict(zip(names, values))})
        else:
            raise ValueError(f"unknown input {(kind, *values)!r}")
    return out


def evaluate(page: GamePage, js: str):
    return page.run([{"op": "eval", "js": js}])[0]


def as_state(value) -> dict | None:
    """getState() as GameWorld's tracker reads it: a mapping, or None (no gameAPI, or it failed)."""
    return value if isinstance(value, dict) else None


def read_state(page: GamePage) -> dict | None:
    return as_state(evaluate(page, GET_STATE))


def state_after(page: GamePage, ms: float) -> dict | None:
    """The state once the page's clock has run `ms` more."""
    return as_state(page.run([{"op": "advance", "ms": ms}, {"op": "eval", "js": GET_STATE}])[1])


def is_ready(state: dict | None) -> bool:
    """GameWorld's readiness: `is_actionable` when the state has it, else a status of ready or playing."""
    if not isinstance(state, dict):
        return False
    if "is_actionable" in state:
        return state.get("is_actionable") is True
    status = state.get("status")
    return isinstance(status, str) and status.strip().lower() in READY_STATUSES


def call(page: GamePage, name: str, limit_ms: float = CALL_LIMIT_MS) -> Any:
    """gameAPI.<name>({}) (init or reset), its promise settled by running the page's frames; its value."""
    outcome = page.run([{"op": "eval", "js": START_CALL.format(name=name)}, {"op": "eval", "js": CALL_STATE}])[1] or {}
    waited = 0.0
    while True:
        if outcome.get("done"):
            if outcome.get("missing"):
                raise GameApiError(f"the page's gameAPI has no {name}()")
            if outcome.get("error"):
                first = str(outcome["error"]).strip().splitlines()[0]
                raise GameApiError(f"gameAPI.{name}() failed: {first}")
            return outcome.get("value")
        if waited >= limit_ms:
            raise GameApiError(f"gameAPI.{name}() did not finish within {limit_ms / 1000:g} s of game time")
        outcome = page.run([{"op": "advance", "ms": FRAME_MS}, {"op": "eval", "js": CALL_STATE}])[1] or {}
        waited += FRAME_MS


def wait_until_ready(page: GamePage, stage: str) -> dict:
    """Poll getState() every 0.3 s of game time until the game is actionable (60 s at most), then 0.1 s more."""
    waited = 0.0
    state = read_state(page)
    while True:
        if is_ready(state):
            page.run([{"op": "advance", "ms": AFTER_READY_MS}])
            return state or {}
        if waited >= READY_LIMIT_MS:
            shown = json.dumps({k: (state or {}).get(k) for k in ("status", "is_actionable")})
            raise GameApiError(
                f"the game was not actionable within {READY_LIMIT_MS / 1000:g} s after {stage} ({shown})"
            )
        state = state_after(page, READY_POLL_MS)
        waited += READY_POLL_MS


def start(page: GamePage) -> dict:
    """A freshly opened page made ready as GameWorld makes it, its first frames run before init (the 2048 race)."""
    waited = 0.0
    state = read_state(page)
    while state is None or str(state.get("status", "")).strip().lower() == "loading":
        if waited >= LOADING_LIMIT_MS:
            if not evaluate(page, HAS_API):
                raise GameApiError("the page defines no window.gameAPI (is this a GameWorld game?)")
            break  # still loading: init is what GameWorld calls next anyway
        state = state_after(page, FRAME_MS)
        waited += FRAME_MS
    page.run([{"op": "advance", "ms": SETTLE_FRAMES * FRAME_MS}])
    call(page, "init")
    return wait_until_ready(page, "init")


def reset(page: GamePage) -> dict:
    """GameWorld's reset after a failed terminal: gameAPI.reset({}) without reloading (what it returns is not read,
    as GameWorld does not), then the readiness wait. GameApiError when it cannot: GameWorld then ends the task."""
    call(page, "reset")
    return wait_until_ready(page, "reset")
