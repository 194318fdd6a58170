"""The scripted model's game scenario: the given actions, one play call per turn, then DONE."""

import pytest

from agent_eval.scripted.game_play import parse_play, play_scenario
from agent_eval.scripted.scenario import ScenarioError, parse_scenario


def test_actions_become_play_turns_then_done():
    scenario = parse_scenario(
        play_scenario(["RESET", ("ACTION6", 3, 4), "ACTION6@5:6"], after=[{"call": "recall", "input": {"step": 1}}])
    )
    turns = scenario.rules[0].turns
    assert [t.calls[0].input for t in turns[:3]] == [
        {"action": "RESET"},
        {"action": "ACTION6", "x": 3, "y": 4},
        {"action": "ACTION6", "x": 5, "y": 6},
    ]
    assert turns[3].calls[0].tool == "recall" and turns[-1].final == "<answer>DONE</answer>"


def test_play_option_text():
    assert parse_play("RESET, ACTION1")["rules"][0]["turns"][1] == {"call": "play", "input": {"action": "ACTION1"}}
    with pytest.raises(ScenarioError):
        parse_play("ACTION6@3")


def test_the_command_line_serves_a_play_scenario():
    import json
    import subprocess
    import sys
    import urllib.request

    server = subprocess.Popen(
        [sys.executable, "-m", "agent_eval.scripted", "--play", "RESET,ACTION6@3:4"], stdout=subprocess.PIPE, text=True
    )
    try:
        url = server.stdout.readline().strip()
        body = {
            "model": "m",
            "max_tokens": 10,
            "stream": False,
            "messages": [{"role": "user", "content": "play"}],
            "tools": [{"name": "mcp__game__play", "description": "", "input_schema": {"type": "object"}}],
        }
        request = urllib.request.Request(
            f"{url}/v1/messages", json.dumps(body).encode(), {"content-type": "application/json"}
        )
        answer = urllib.request.urlopen(request, timeout=10).read().decode()
    finally:
        server.terminate()
        server.wait()
    assert "mcp__game__play" in answer and "RESET" in answer
