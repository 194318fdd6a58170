"""A scenario that plays a given action sequence through the `game` tool's `play`, one action per turn,
then ends with `<answer>DONE</answer>`: how the tests and the demo drive an ARC-AGI-3 game through the
real CLIs. The sequence comes from the caller (a test that knows the game it wrote); the server
itself never sees the game.

    play_scenario(["RESET", "ACTION4", ("ACTION6", 12, 30)])
    play_scenario(actions, between=[{"call": "recall", "input": {"step": 2}}])   # more calls after them

`--play RESET,ACTION4,ACTION6@12:30` on `python -m agent_eval.scripted` builds the same."""

from __future__ import annotations

from typing import Any, Iterable

from agent_eval.scripted.scenario import ScenarioError

DONE = "<answer>DONE</answer>"


def action_input(action) -> dict:
    """'ACTION1', ('ACTION6', x, y), 'ACTION6@x:y' or {"action": ..., "x": ..., "y": ...} -> play's input."""
    if isinstance(action, dict):
        return dict(action)
    if isinstance(action, (tuple, list)):
        name, x, y = action
        return {"action": name, "x": int(x), "y": int(y)}
    name, at, where = str(action).partition("@")
    if not at:
        return {"action": name}
    x, colon, y = where.partition(":")
    if not colon or not x.isdigit() or not y.isdigit():
        raise ScenarioError(f"a click is ACTION6@x:y with integers, got {action!r}")
    return {"action": name, "x": int(x), "y": int(y)}


def play_turns(actions: Iterable, after: Iterable[dict] = (), final: str = DONE) -> list[dict]:
    """The turns: one play call per action, then the calls of `after` (scenario turns), then the final text."""
    turns = [{"call": "play", "input": action_input(action)} for action in actions]
    return turns + list(after) + [{"final": final}]


def play_scenario(actions: Iterable, after: Iterable[dict] = (), final: str = DONE, match: str | None = None) -> dict:
    rule: dict[str, Any] = {"turns": play_turns(actions, after, final)}
    if match is not None:
        rule["match"] = match
    return {"rules": [rule]}


def parse_play(text: str) -> dict:
    """`--play RESET,ACTION4,ACTION6@12:30` -> a scenario."""
    actions = [part.strip() for part in text.split(",") if part.strip()]
    if not actions:
        raise ScenarioError("--play needs at least one action, e.g. RESET,ACTION1")
    return play_scenario(actions)
