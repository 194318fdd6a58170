"""A runner SIGKILLed at any moment, sandbox start-up included, leaves no process behind: the agents,
their sandboxes' init and relay, the proxy jails, the tool servers all go (the sandbox lifeline)."""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_eval.agents.registry import scripted_environ
from agent_eval.scripted import ScriptedServer
from support.agentrun import MODELS, processes_mentioning, wait_until_gone

pytestmark = pytest.mark.e2e

AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")
KILLS = 20


def bwrap_started(marker: str) -> bool:
    return any("bwrap" in line for line in processes_mentioning(marker))


def test_sigkill_at_random_moments_leaves_nothing_running(sample_data, tmp_path):
    rng = random.Random(9)
    scenario = {"turns": [{"call": "shell", "input": {"command": "sleep 0.3; echo looked"}}, "<answer>3</answer>"]}
    leftovers = []
    with ScriptedServer(scenario) as server:
        for n in range(KILLS):
            agent = ("codex", "claude-code")[n % 2]
            root = tmp_path / f"k{n}"
            (root / "tmp").mkdir(parents=True)
            # Sandbox temp dirs (proxy jails) land under this run's own TMPDIR, so every process of
            # this run mentions `root` in its argv or environment.
            env = {**os.environ, **scripted_environ(agent, server.url), "TMPDIR": str(root / "tmp")}
            command = [
                AGENT_EVAL,
                "run",
                "--agent",
                agent,
                "--model",
                MODELS[agent],
                "--data",
                str(sample_data),
                "--out-dir",
                str(root),
                "--run-name",
                "r",
                "--jobs",
                "3",
                "--unpriced",
                "--tools",
                "python",
            ]
            runner = subprocess.Popen(
                command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
            )
            if n % 3 == 0:
                # During sandbox start-up: as soon as the first bwrap appears, within a few milliseconds.
                deadline = time.monotonic() + 30
                while not bwrap_started(str(root)) and time.monotonic() < deadline and runner.poll() is None:
                    time.sleep(0.002)
                time.sleep(rng.uniform(0, 0.03))
            else:
                time.sleep(rng.uniform(0.2, 3.0))
            os.kill(runner.pid, signal.SIGKILL)  # the runner alone, as the OOM killer or a scheduler would
            runner.wait()
            left = wait_until_gone(str(root))
            if left:
                leftovers.append((n, agent, left))
    assert leftovers == [], leftovers
