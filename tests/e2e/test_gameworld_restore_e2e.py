"""A GameWorld task survives the harness, through both real CLIs and both protocols: a runner killed with SIGKILL
mid-task leaves nothing running (the agent, its sandbox, the page host and its Chromium) and, run again with the
same command, goes on with the same task: a fresh page replays every recorded step, each screen checked against
its hash, and the evaluator's verdict covers the whole task once (agent_eval/benchmarks/gameworld/session.py)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_eval.agents.registry import scripted_environ
from agent_eval.datamodel.sessions import read_sessions
from agent_eval.scripted import ScriptedServer
from support.agentrun import AGENTS, MODELS
from support.gameworld import WIN, kill_after_steps, official, open_session, page_host, task, vista, write_checkout

pytestmark = pytest.mark.e2e

AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")
FRESH = "already in progress"  # words only the prompt of a fresh VISTA session on a restored task has


def scenario(protocol: str) -> dict:
    """Two clicks, then (after the kill) the third; every answer waits a moment, so the kill lands in a wait."""
    if protocol == "official":
        play = official([[move] for move in WIN])
    else:
        play = {"rules": [{"match": FRESH, "turns": vista(WIN[2:])["turns"]}, {"turns": vista(WIN)["turns"]}]}
    return play | {"faults": {"delay": 0.4}}


def command(agent: str, root: Path, out: Path, protocol: str) -> list[str]:
    return [
        AGENT_EVAL, "run", "--agent", agent, "--model", MODELS[agent], "--data", str(root), "--ids", "90_01",
        "--out-dir", str(out), "--run-name", "r", "--unpriced", "--tools", "image", "--protocol", protocol,
    ]  # fmt: skip


@pytest.fixture(scope="module")
def direct_hashes(tmp_path_factory) -> list[str]:
    """The screens the three clicks give played at once on a fresh page of the same game, no agent: once for every
    restored run (each run has its own checkout, so the processes left after a kill are those under its tmp_path)."""
    checkout = write_checkout(tmp_path_factory.mktemp("gameworld") / "checkout")
    with page_host(task(checkout), tmp_path_factory.mktemp("host")) as host:
        direct = open_session(host, task(checkout), tmp_path_factory.mktemp("direct"))
        for move in WIN:
            direct.act(0, move, "computer_use")
    return [step.frame_hash for step in direct.steps]


@pytest.mark.parametrize("protocol", ("official", "vista"))
@pytest.mark.parametrize("agent", AGENTS)
def test_a_task_killed_mid_play_is_replayed_and_goes_on(agent, protocol, direct_hashes, tmp_path):
    root = write_checkout(tmp_path / "checkout")
    out = tmp_path / "out"
    (tmp_path / "tmp").mkdir()
    item = out / "r" / "sandboxes" / "90_01"
    with ScriptedServer(scenario(protocol)) as server:
        env = {**os.environ, **scripted_environ(agent, server.url), "TMPDIR": str(tmp_path / "tmp")}
        argv = command(agent, root, out, protocol)
        assert kill_after_steps(argv, env, item / "game" / "timeline.jsonl", 2, tmp_path) == 2
        assert not list((out / "r").glob("*/items.jsonl"))  # nothing half done was recorded
        server.faults = {}
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stderr[-2000:]
    (record,) = [
        json.loads(line) for path in (out / "r").glob("*/items.jsonl") for line in path.read_text().splitlines()
    ]
    assert record["status"] == "ok" and record["correct"], (record["status"], record["error"])
    metrics = record["metrics"]
    assert (metrics["steps"], metrics["restores"], metrics["progress"]) == (3, 1, 1.0)
    timeline = [json.loads(line) for line in (item / "game" / "timeline.jsonl").read_text().splitlines()]
    assert [e["step"] for e in timeline] == [1, 2, 3] and timeline[-1]["evaluation"]["stop_reason"] == "target_reached"
    # one play-through: the same screens as the three clicks played at once on a fresh page
    assert [e["frame_hash"] for e in timeline] == direct_hashes
    starts = read_sessions(item)
    after = starts[-1]
    if protocol == "official":  # a decision is never continued: the next one starts afresh
        assert after.kind == "new" and "the kind asks a fresh session" in after.reason
    assert any("harness restarted" in s.reason for s in starts)
