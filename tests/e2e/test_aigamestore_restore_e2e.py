"""A browser game survives the harness, through the real CLIs: a runner killed with SIGKILL mid-game leaves no
browser running and, run again with the same command, goes on with the same game (its moves replayed in a fresh
browser, every frame checked against its hash), so the whole game's frames are those the sequence gives played
once with no agent; VISTA's protocol continues the CLI's session, the official protocol starts the next decision
in a fresh one; a game that does not replay identically (it reads a clock the harness does not hold) is started
over, and the record says so."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_eval.agents.registry import scripted_environ
from agent_eval.scripted import ScriptedServer
from support.agentrun import MODELS, wait_until_gone
from support.aigamestore import PLAYS, direct, official_scenario, recorded_hashes, write_games

pytestmark = pytest.mark.e2e

AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")
FRESH = "already in progress"


def command(agent: str, data: Path, out: Path, protocol: str) -> list[str]:
    return [
        AGENT_EVAL, "run", "--agent", agent, "--model", MODELS[agent], "--data", str(data), "--out-dir", str(out),
        "--run-name", "r", "--unpriced", "--tools", "image", "--tasks", "game1", "--decisions", "3",
        "--protocol", protocol, "--timeout", "600",
    ]  # fmt: skip


def vista_scenario() -> dict:
    plays = [{"call": "play", "input": {"segments": s}} for s in PLAYS]
    done = {"final": "<answer>DONE</answer>"}
    return {"rules": [{"match": FRESH, "turns": plays[2:] + [done]}, {"turns": plays + [done]}]}


@pytest.fixture(scope="module")
def direct_play(tmp_path_factory):
    """What the game gives for PLAYS played once with no agent (by VISTA's play tool or by official replies), each
    way played at most once for the module, on its own copy of the games (each run has its own, so the processes
    left after a kill are those under its tmp_path)."""
    games = write_games(tmp_path_factory.mktemp("games"))
    played: dict[str, tuple[list[str], float | None]] = {}

    def play(via: str) -> tuple[list[str], float | None]:
        if via not in played:
            played[via] = direct(games, "game1", tmp_path_factory.mktemp(f"direct-{via}"), via=via)
        return played[via]

    return play


def kill_after_moves(argv, env, timeline: Path, moves: int, tmp_path) -> None:
    runner = subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and runner.poll() is None:
        if timeline.exists() and len(timeline.read_text().splitlines()) >= moves:
            break
        time.sleep(0.02)
    assert runner.poll() is None, "the run ended before the kill"
    time.sleep(0.2)
    os.kill(runner.pid, signal.SIGKILL)
    runner.wait()
    assert wait_until_gone(str(tmp_path)) == []  # the agent, its sandbox, the page host and its browser


@pytest.mark.parametrize(
    "agent, protocol, unreplayable",
    [
        ("claude-code", "vista", False),
        ("codex", "vista", False),
        ("codex", "official", False),
        ("claude-code", "official", True),
    ],
)
def test_a_game_killed_mid_play_goes_on_from_where_it_stopped(agent, protocol, unreplayable, direct_play, tmp_path):
    data = write_games(tmp_path / "games")
    if (
        unreplayable
    ):  # a game that reads a clock the harness does not hold (the page's real origin time): not replayable
        script = data / "games" / "game1" / "game.js"
        script.write_text(
            script.read_text().replace("background(20, 24, 48);", "background(performance.timeOrigin % 256, 24, 48);")
        )
    out = tmp_path / "out"
    (tmp_path / "tmp").mkdir()
    item = out / "r" / "sandboxes" / "game1"
    scenario = vista_scenario() if protocol == "vista" else official_scenario()
    with ScriptedServer({**scenario, "faults": {"delay": 0.5}}) as server:
        env = {**os.environ, **scripted_environ(agent, server.url), "TMPDIR": str(tmp_path / "tmp")}
        argv = command(agent, data, out, protocol)
        kill_after_moves(argv, env, item / "game" / "timeline.jsonl", 3, tmp_path)  # the start and two decisions
        assert not list((out / "r").glob("*/items.jsonl"))
        server.faults = {}
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    (record,) = [
        json.loads(line) for path in (out / "r").glob("*/items.jsonl") for line in path.read_text().splitlines()
    ]
    assert record["status"] == "ok", (record["status"], record["error"])
    metrics = record["metrics"]
    sessions = [json.loads(line) for line in (item / "sessions.jsonl").read_text().splitlines() if '"kind"' in line]
    if unreplayable:  # the record does not replay: started over, said, the old game kept
        assert metrics["restores"] == 0 and "does not replay identically" in metrics["started_over"][0]
        assert (item / "game.abandoned-1" / "timeline.jsonl").exists()
        return
    assert metrics["restores"] == 1 and metrics["decisions"] == 3
    hashes, raw = direct_play("tool" if protocol == "vista" else "reply")
    assert recorded_hashes(item) == hashes and metrics["raw_score"] == raw  # one game, each move once
    if protocol == "vista":
        assert sessions[-1]["kind"] == "resume"  # the CLI's own session goes on
    else:
        # never the CLI's session continued (its reason says why: the kind asks a fresh one, or the killed session
        # had not yet named its id)
        assert sessions[-1]["kind"] == "new" and sessions[-1]["reason"].startswith("harness restarted")
