"""GameWorld tests' helpers: the project's own test game written as a GameWorld checkout, a task session on a real
page (the shared browser host, headless Chromium), and scripted-model scenarios for both protocols.

The test game (agent_eval/benchmarks/gameworld/samples, 90_beacon): with the harness's seed its first board has
beacons at h1, h2 and h5 (screen (450, 30), (450, 90), (450, 270)); the guard starts at a3 and walks right.
Two steps down from the start walk into the guard: a failed terminal (the game is reset)."""

from __future__ import annotations

import contextlib
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from agent_eval.benchmarks.gameworld.benchmark import GameWorld
from agent_eval.benchmarks.gameworld.catalog import append_url_suffix
from agent_eval.benchmarks.gameworld.loader import PAGE, TaskItem, load_gameworld
from agent_eval.benchmarks.gameworld.session import SEED, HostPage, TaskSession
from agent_eval.browser.host import PageHost
from support.agentrun import wait_until_gone

WIN = [
    {"action": "click", "x": 450, "y": 30},
    {"action": "click", "x": 450, "y": 90},
    {"action": "click", "x": 450, "y": 270},
]
WIN_SEMANTIC = [
    {"name": "light_cell", "cell": "h1"},
    {"name": "light_cell", "cell": "h2"},
    {"name": "light_cell", "cell": "h5"},
]
CAUGHT = [{"action": "press_key", "key": "ArrowDown"}, {"action": "press_key", "key": "ArrowDown"}]
DONE = {"final": "<answer>DONE</answer>"}


RELAY = Path(__file__).resolve().parent / "gameworld_relay"  # a test game of two roles (91_relay, 91_01)
# 91_01 won: amber (role 0, a/d) walks right twice to its gem, teal (role 1, arrows) left twice to its own; the
# evaluator, which reads role 0's steps, sees both gems at role 0's third step
RELAY_WIN = {
    0: [{"action": "press_key", "key": "d"}, {"action": "press_key", "key": "d"}, {"action": "wait"}],
    1: [{"action": "press_key", "key": "ArrowLeft"}, {"action": "press_key", "key": "ArrowLeft"}],
}


def write_checkout(root: Path) -> Path:
    GameWorld().write_samples(root, 0, 1, "normal")
    return root


def write_relay_checkout(root: Path) -> Path:
    shutil.copytree(RELAY, root)
    return root


def task(root: Path, task_id: str = "90_01") -> TaskItem:
    return next(item for item in load_gameworld(root).items if item.id == task_id)


@contextlib.contextmanager
def page_host(item: TaskItem, scratch: Path):
    with PageHost(item.game_dir, seed=SEED, viewport=(item.game.width, item.game.height), scratch=scratch) as host:
        yield host


def open_session(host: PageHost, item: TaskItem, directory: Path, max_steps: int = 100, **options) -> TaskSession:
    """A fresh page of the task (its clock at 0) and a session over `directory`."""
    opened = host.open(append_url_suffix(PAGE, item.task_def.url_suffix))
    return TaskSession(item, HostPage(host, opened), directory, max_steps, **options)


def official(decisions: list[list[dict]], tool: str = "act") -> dict:
    """A scenario of the official protocol: decision n plays decisions[n-1] (scenario turns whose calls use
    `tool`'s moves given as dicts are wrapped), then DONE; rules matched on the decision's number."""
    rules = []
    for n, turns in enumerate(decisions, 1):
        rules.append({"match": rf"This is decision {n}\.", "turns": [_turn(t, tool) for t in turns] + [DONE]})
    return {"rules": rules + [{"turns": [{"final": "(no scripted decision) <answer>DONE</answer>"}]}]}


def vista(turns: list, tool: str = "act") -> dict:
    return {"turns": [_turn(t, tool) for t in turns] + [DONE]}


def _turn(move: dict, tool: str) -> dict:
    """A move of the action tool ({"action": ...} or {"name": ...}) or a scenario turn as is ({"call": ...})."""
    return move if "call" in move or "final" in move else {"call": tool, "input": move}


@pytest.fixture(scope="module", name="checkout")
def checkout_fixture(tmp_path_factory) -> Path:
    """The test game written as a GameWorld checkout, once per module (import it: `from support.gameworld import
    checkout_fixture, host_fixture  # noqa: F401`)."""
    return write_checkout(tmp_path_factory.mktemp("gameworld") / "checkout")


@pytest.fixture(scope="module", name="host")
def host_fixture(checkout, tmp_path_factory):
    """One page host for the module's tests: each opens the task's page afresh (its clock at 0)."""
    with page_host(task(checkout), tmp_path_factory.mktemp("host")) as host:
        yield host


def lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def kill_after_steps(argv, env, timeline: Path, steps: int, tmp_path) -> int:
    """Start the run, SIGKILL it once `steps` steps are in the timeline (while the model's next answer waits)."""
    runner = subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    waited = 0.0
    while lines(timeline) < steps and runner.poll() is None and waited < 240:
        time.sleep(0.02)
        waited += 0.02
    assert runner.poll() is None, "the run ended before the kill"
    time.sleep(0.15)
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    assert wait_until_gone(str(tmp_path)) == []  # the agent, its sandbox, the page host and Chromium
    return lines(timeline)
