"""Online mode when the harness stops mid-game, through the real CLIs and the ARC API's stand-in. A game in flight
is never restored online (a replay would count its actions again on the remote card, and the toolkit's client
cannot re-attach to a play): it stands on the card as played, its item says "interrupted", and it is never made
again. Killed (SIGKILL), the run leaves its card open and the resumed run goes on with it; stopped (SIGTERM), the
run closes its card on the way out and the resumed run puts its remaining games on a new one, and says so."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agent_eval.agents.registry import scripted_environ
from agent_eval.benchmarks.arcgames.games import WINNING
from agent_eval.scripted import ScriptedServer
from support.agentrun import MODELS, wait_until_gone
from support.arcapi import ApiStandIn, players, project_games, stop_mid_game
from support.arcgames import toolkit_scorecard

pytestmark = pytest.mark.e2e

AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")


def command(agent: str, data: Path, out: Path) -> list[str]:
    return [AGENT_EVAL, "run", "--agent", agent, "--model", MODELS[agent], "--data", str(data), "--out-dir", str(out)]


def records(run: Path) -> dict[str, dict]:
    lines = [json.loads(line) for path in run.glob("*/items.jsonl") for line in path.read_text().splitlines()]
    return {r["id"]: r for r in lines}


def made(calls: list[dict]) -> list[tuple[str, str]]:
    """(game, card) of every game made at the API (the RESET that carries a card)."""
    return [
        (c["body"]["game_id"], c["body"]["card_id"])
        for c in calls
        if c["path"] == "/api/cmd/RESET" and "card_id" in c["body"]
    ]


@pytest.mark.timeout(600)  # two runs of the real CLI, two games each, every action an HTTP round trip
@pytest.mark.parametrize("agent, how", [("claude-code", signal.SIGKILL), ("codex", signal.SIGTERM)])
def test_a_game_in_flight_stands_as_played_and_is_never_made_again(agent, how, tmp_path):
    games = project_games(tmp_path)
    out, run = tmp_path / "out", tmp_path / "out" / "r"
    (tmp_path / "tmp").mkdir()
    argv = command(agent, games, out) + ["--run-name", "r", "--unpriced", "--tools", "none", "--jobs", "1"]
    argv += ["--arc-mode", "online", "--timeout", "180", "--tasks", "ae01,ae02"]
    timeline = run / "sandboxes" / "ae01" / "game" / "timeline.jsonl"
    scenario = {**players(), "faults": {"delay": 0.4}}  # the stop comes while the model thinks
    with ApiStandIn(games, tmp_path / "api.jsonl") as api, ScriptedServer(scenario) as model:
        env = {**os.environ, **scripted_environ(agent, model.url), **api.environ(), "TMPDIR": str(tmp_path / "tmp")}
        stopped = stop_mid_game(argv, env, timeline, 4, how)
        assert wait_until_gone(str(out)) == []  # the agent, its sandbox, the game's and the card's processes
        before = [json.loads(line) for line in timeline.read_text().splitlines()]
        first_card = json.loads((run / "run.json").read_text())["kind_run"]["scorecards"][0]
        if how == signal.SIGTERM:
            assert stopped.returncode != 0 and "Terminated (SIGTERM)" in stopped.stdout
            assert first_card["state"] == "closed" and first_card["summary"]["total_environments"] == 1
            assert len(api.calls("/api/scorecard/close")) == 1  # closed on the way out
        else:
            assert first_card["state"] == "open" and api.calls("/api/scorecard/close", None) == []
        model.faults = {}
        resumed = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        calls = api.requests()
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    said = " ".join(resumed.stdout.split())
    found = records(run)
    assert sorted(found) == ["ae01", "ae02"]
    assert found["ae01"]["status"] == "benchmark_error" and "interrupted" in found["ae01"]["error"]
    assert found["ae02"]["status"] == "ok" and found["ae02"]["correct"]
    assert [g for g, _ in made(calls)].count("ae01-v1") == 1  # never made a second time
    cards = json.loads((run / "run.json").read_text())["kind_run"]["scorecards"]
    assert all(c["state"] == "closed" for c in cards) and len(api.calls("/api/scorecard/close")) == len(cards)
    # ae01 stands on the first card exactly as it was played before the stop: the toolkit's score of those actions
    ae01 = next(e for e in cards[0]["summary"]["environments"] if e["id"] == "ae01-v1")
    actions = [(p["action"], p["x"], p["y"]) if p["x"] is not None else p["action"] for p in before]
    direct = toolkit_scorecard(games, "ae01", actions, tmp_path)
    assert (ae01["actions"], ae01["levels_completed"], ae01["resets"]) == (
        direct["actions"],
        direct["levels_completed"],
        direct["resets"],
    )
    assert len(before) >= 4 and not ae01["completed"]
    if how == signal.SIGKILL:  # the card was still open: the resumed run went on with it
        assert "resuming on scorecard" in said and len(cards) == 1
        assert {card for _, card in made(calls)} == {cards[0]["card_id"]}
    else:  # closed on the way out: the remaining games went on a new card, and run.json lists both
        assert "the run's earlier scorecard is closed" in said and len(cards) == 2
        assert {g for g, card in made(calls) if card == cards[1]["card_id"]} == {"ae02-v1"}
    total = sum(c["summary"]["total_actions"] for c in cards)
    expected = direct["actions"] + toolkit_scorecard(games, "ae02", WINNING["ae02-v1"], tmp_path)["actions"]
    assert total == expected  # every action counted once, over the run's card(s)
    shown = subprocess.run([AGENT_EVAL, "show", str(run)], capture_output=True, text=True, env=env, timeout=60)
    assert cards[-1]["url"] in " ".join(shown.stdout.split()).replace(" ", "") or cards[-1]["card_id"] in shown.stdout
