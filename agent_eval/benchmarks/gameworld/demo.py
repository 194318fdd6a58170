"""The project's own test game's known plays (90_beacon with the harness's seed): `agent-eval demo --kind gameworld`
and the tests play them through the real CLIs. With seed 42 the first board has beacons at columns 7 of rows 0,
1 and 4 (cells h1, h2, h5): lighting all three reaches task 90_01's target of 3."""

from __future__ import annotations

# (task, interface) -> the action tool's calls, in order
DEMO: dict[tuple[str, str], list[dict]] = {
    ("90_01", "computer-use"): [
        {"action": "click", "x": 450, "y": 30, "reasoning": "light the top-right beacon"},
        {"action": "click", "x": 450, "y": 90, "reasoning": "light the one below it"},
        {"action": "click", "x": 450, "y": 270, "reasoning": "light the last one"},
    ],
    ("90_01", "semantic"): [
        {"name": "light_cell", "cell": "h1", "reasoning": "light the top-right beacon"},
        {"name": "light_cell", "cell": "h2", "reasoning": "light the one below it"},
        {"name": "light_cell", "cell": "h5", "reasoning": "light the last one"},
    ],
}


def scenario(moves: list[dict], tool: str, protocol: str) -> list[dict] | dict:
    """The scripted model's play of `moves` through `tool`: VISTA's protocol as turns of one session; the official
    one as rules matched on each decision's number (every decision is a fresh session)."""
    done = "<answer>DONE</answer>"
    calls = [{"call": tool, "input": move} for move in moves]
    if protocol == "official":
        rules = [
            {"match": rf"This is decision {n}\.", "turns": [call, {"final": done}]} for n, call in enumerate(calls, 1)
        ]
        return {"rules": rules + [{"turns": [{"final": f"(no more scripted moves) {done}"}]}]}
    return calls + [{"final": f"The task has ended. {done}"}]
