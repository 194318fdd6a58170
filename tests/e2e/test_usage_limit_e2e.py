"""A subscription's usage limit mid-game, through both real CLIs against the scripted model server answering in
each CLI's own usage-limit shape (Claude Code: 429 with `anthropic-ratelimit-unified-status: rejected` and its
`-reset`; Codex: 429 `usage_limit_reached` with `resets_at`), on an ARC-AGI-3 game played offline:

- a reset RESET_S ahead (the issue asks 90 s; RESET_S keeps the suite's budget) is waited out at the gateway (both
  CLIs' runs side by side: one wait of the suite's time, not two): the run says until when, the game ends won and
  `ok` with each action played once, the wait is recorded on the item
  (`provider_wait_s`, `gateway.upstream.usage_wait_s`) and the run (run.json's `usage_limit_waits`, rollup.json),
  and every clock of the item stood still meanwhile: the wait is longer than --timeout, than the game's time
  budget (which follows --timeout) and than the silent-session lease, and none of them ran out;
- a reset past --quota-wait-hours: the answer reaches the CLI, the item ends `rate_limited`, and a resume once
  the window has reset goes on with the same game to its win.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_eval.agents.registry import scripted_environ
from agent_eval.benchmarks.arcgames.game_record import read_plays
from agent_eval.benchmarks.games.folder import GAME_DIR
from agent_eval.benchmarks.games.recovery import read_stops
from agent_eval.cli import main
from agent_eval.datamodel.results import RunStore
from agent_eval.engine.gateway.usage_limit import MARGIN_S
from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.game_play import play_scenario
from support.agentrun import AGENTS, MODELS
from support.arcgames import WIN, write_game

pytestmark = pytest.mark.e2e

RESET_S = 25  # the window resets this long after the first request it refused; the run waits that plus MARGIN_S
# Shorter than the wait: an item whose clock ran during it would time out (its game's budget too). The game itself
# takes ~7 s of it at load 20.
TIMEOUT_S = 30
SILENT_MINUTES = 0.5  # the silent-session lease (30 s), shorter than the wait too
# Past the bound the CLI gives up at once (`x-should-retry: false`); the game's session after it at load 20 has room.
BOUND_TIMEOUT_S = 180
AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")
SHAPES = {"claude-code": "anthropic", "codex": "codex"}
FRESH = "already in progress"  # words only the prompt of a fresh session on a restored game has


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    root = tmp_path_factory.mktemp("arcgames") / "environment_files"
    write_game(root, "tg01")
    return root


def run(agent: str, server: ScriptedServer, games, out, *extra: str):
    env = {**scripted_environ(agent, server.url), "COLUMNS": "250"}
    args = ["run", "--agent", agent, "--model", MODELS[agent], "--tools", "none", "--data", str(games)]
    args += ["--out-dir", str(out), "--run-name", "r", "--unpriced", "--timeout", str(BOUND_TIMEOUT_S), *extra]
    return CliRunner().invoke(main, args, env=env)


@pytest.fixture(scope="module")
def waited_out(games, tmp_path_factory) -> dict:
    """Each CLI's run meeting a usage limit after two actions, both at once (each its own process, server and
    out dir): {agent: (exit code, what it printed, each model request's outcome, out dir)}."""
    scenario = {**play_scenario(WIN), "faults": {"usage_limit": RESET_S, "after": 2}}  # after two actions
    with contextlib.ExitStack() as stack:
        started = {}
        for agent in AGENTS:
            server, out = stack.enter_context(ScriptedServer(scenario)), tmp_path_factory.mktemp(agent)
            args = ["run", "--agent", agent, "--model", MODELS[agent], "--tools", "none", "--data", str(games)]
            args += ["--out-dir", str(out), "--run-name", "r", "--unpriced", "--timeout", str(TIMEOUT_S)]
            args += ["--silent-minutes", str(SILENT_MINUTES)]
            env = {**os.environ, **scripted_environ(agent, server.url), "COLUMNS": "250"}
            said = stack.enter_context((out / "said.txt").open("w"))
            process = subprocess.Popen([AGENT_EVAL, *args], env=env, stdout=said, stderr=subprocess.STDOUT)
            stack.callback(process.kill)  # a no-op once it has ended
            started[agent] = process, server, out
        done = {}
        for agent, (process, server, out) in started.items():
            process.wait(timeout=600)
            output = (out / "said.txt").read_text()
            done[agent] = process.returncode, output, [r.outcome for r in server.main_requests()], out
    return done


@pytest.mark.parametrize("agent", AGENTS)
def test_a_usage_limit_mid_game_is_waited_out_with_every_clock_stopped(agent, waited_out):
    assert RESET_S + MARGIN_S > TIMEOUT_S and RESET_S + MARGIN_S > SILENT_MINUTES * 60
    exit_code, output, outcomes, out = waited_out[agent]
    assert exit_code == 0, output
    assert f"usage limit ({SHAPES[agent]}) reached: every request held until" in output, output
    assert "the items' clocks are stopped meanwhile" in output
    store = RunStore(out / "r")
    [record] = store.records()
    assert record.status == "ok" and record.correct, (record.status, record.error)
    # The CLI never saw the limit: the gateway held its request, so each action was played once, in one session.
    assert outcomes.count("usage_limit") >= 1, outcomes
    assert record.metrics["plays"] == len(WIN), record.metrics
    assert not record.metrics["budget_spent"] and record.metrics["restores"] == 0
    assert record.sessions == 1 and record.silent_restarts == 0 and record.attempts == 1
    upstream = record.gateway["upstream"]
    assert upstream["usage_limits"] >= 1 and upstream["refused"] == 0, upstream
    # The wait (the reset fixed RESET_S after the first refusal, and the margin) is the provider's, not the agent's.
    assert upstream["usage_wait_s"] >= RESET_S, upstream
    assert record.provider_wait_s >= upstream["usage_wait_s"]
    manifest = json.loads((store.root / "run.json").read_text())
    [wait] = manifest["usage_limit_waits"]
    assert wait["shape"] == SHAPES[agent] and wait["outcome"] == "waited" and wait["until"], wait
    assert manifest["options"]["quota_wait_hours"] == 6.0
    rollup = json.loads((store.root / "rollup.json").read_text())
    assert rollup["usage_limit_wait"]["items"] == 1 and rollup["usage_limit_wait"]["item_seconds"] >= RESET_S


@pytest.mark.parametrize("agent", AGENTS)
def test_a_reset_past_the_bound_ends_the_item_rate_limited_and_a_resume_goes_on_with_the_game(agent, games, tmp_path):
    # A fresh session on the resumed game (told it is in progress) plays the rest; the first plays it all.
    rules = play_scenario(WIN[2:], match=FRESH)["rules"] + play_scenario(WIN)["rules"]
    scenario = {"rules": rules, "faults": {"usage_limit": 3 * 3600, "after": 2}}
    with ScriptedServer(scenario) as server:
        stopped = run(agent, server, games, tmp_path, "--quota-wait-hours", "1", "--retry-wait", "0")
        game_dir = RunStore(tmp_path / "r").sandbox_dir("tg01") / GAME_DIR
        played_before, stops = [play.action for play in read_plays(game_dir)], read_stops(game_dir)
        outcomes = [request.outcome for request in server.main_requests()]
        server.faults = None  # the window reset
        resumed = run(agent, server, games, tmp_path, "--quota-wait-hours", "1")
    assert stopped.exit_code == 0, stopped.output
    assert "past --quota-wait-hours (1h00m): the answer goes to the CLI, its item ends rate_limited" in " ".join(
        stopped.output.split()
    ), stopped.output
    store = RunStore(tmp_path / "r")
    lines = [json.loads(line) for line in next(store.root.glob("*/items.jsonl")).read_text().splitlines()]
    first, last = lines[0], lines[-1]
    assert first["status"] == "rate_limited" and not first["correct"], first
    # The refused request was the item's last: no session of it went on (the game's continuations after an early
    # stop, the run's retries of a rate-limited item), none counted as the agent's stop; the resume goes on.
    assert outcomes.count("usage_limit") == 1 and outcomes[-1] == "usage_limit", outcomes
    assert first["sessions"] == 1 and first["attempts"] == 1 and stops == [], (first["sessions"], stops)
    assert first["gateway"]["upstream"]["usage_limits"] == first["gateway"]["upstream"]["usage_refused"] == 1
    assert played_before == ["RESET", "ACTION4"], played_before  # played before the limit, kept with the game
    manifest = json.loads((store.root / "run.json").read_text())
    assert manifest["usage_limit_waits"][0]["outcome"] == "refused", manifest["usage_limit_waits"]
    assert resumed.exit_code == 0, resumed.output
    assert last["status"] == "ok" and last["correct"], last
    # The same game went on (restored from its record, not played again): the toolkit counted each action once.
    assert last["metrics"]["plays"] == len(WIN) and last["metrics"]["restores"] >= 1, last["metrics"]
