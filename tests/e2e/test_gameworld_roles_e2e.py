"""A game of two roles under `run --profile vista` (its --roles isolated), through both real CLIs, sandboxed,
against the scripted model, on the project's own two-role test game (tests/support/gameworld_relay, 91_01): each
role has its own CLI session, continued at each of its turns, with its own system prompt (the task's objective for
that role), its own act (its keys) and only its own results; the roles take turns, one action a turn (the session
stopped as the action's result reaches the model, VISTA's interrupt), each turn begun with "Game screen:" and the
screen; the timeline and the sessions say which role did what; the task is won and scored by GameWorld's evaluator."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_eval.agents.registry import scripted_environ
from agent_eval.benchmarks.games.folder import read_timeline
from agent_eval.benchmarks.gameworld.protocol import RECOVERY_WORDS, SCREEN_WORDS, vista_objective
from agent_eval.datamodel.sessions import read_sessions
from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.inspect_requests import conversation, has_image
from support.agentrun import AGENTS, MODELS, system_texts
from support.gameworld import RELAY_WIN, kill_after_steps, task, write_relay_checkout
from support.vista_browser import own_words, run_profile

pytestmark = pytest.mark.e2e
AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    return write_relay_checkout(tmp_path_factory.mktemp("gameworld-roles") / "checkout")


def plays(moves: list[dict]) -> list[dict]:
    """A role's turns: its moves in order (one a turn, each turn's request holding one more result), then DONE."""
    return [{"call": "act", "input": move} for move in moves] + [{"final": "<answer>DONE</answer>"}]


@pytest.mark.parametrize("agent", AGENTS)
def test_each_role_its_own_session_one_action_a_turn(agent, checkout, tmp_path):
    scenario = {
        "rules": [
            {"system": "Role 0: amber", "turns": plays(RELAY_WIN[0])},
            {"system": "Role 1: teal", "turns": plays(RELAY_WIN[1])},
        ]
    }
    result, mains, record = run_profile(agent, checkout, "91_01", tmp_path, "r", scenario)
    assert result.exit_code == 0, result.output
    assert record["status"] == "ok" and record["correct"], (record["status"], record.get("error"))

    item_dir = tmp_path / "r" / "sandboxes" / "91_01"
    steps = read_timeline(item_dir) or []
    assert [s["role"] for s in steps] == [0, 1, 0, 1, 0]  # the roles in turn, one step each
    order = [RELAY_WIN[0][0], RELAY_WIN[1][0], RELAY_WIN[0][1], RELAY_WIN[1][1], RELAY_WIN[0][2]]
    assert [s["given"] for s in steps] == order
    assert all(s["action"] is not None for s in steps)
    assert record["metrics"]["status"] == "success"

    # one session a role, continued at each of its turns: a turn is one session's run
    sessions = read_sessions(item_dir)
    assert [s.context for s in sessions] == ["role-0", "role-1", "role-0", "role-1", "role-0"]
    assert [s.kind for s in sessions] == ["new", "new", "resume", "resume", "resume"]
    for role in ("role-0", "role-1"):
        assert len({s.session_id for s in sessions if s.context == role}) == 1
    assert sessions[0].session_id != sessions[1].session_id
    assert [s.ended for s in sessions[:4]] == ["stopped: turn over"] * 4  # stopped as its action's result went

    # each role's requests: its own objective as the system prompt, its own act, its own results only
    item = task(checkout, "91_01")
    for rule, role, other in ((0, 0, 1), (1, 1, 0)):
        own = [r for r in mains if r.rule == rule]
        assert own, f"no request of role {role}"
        system = vista_objective(item.game, item.task_def.prompt, role)
        for request in own:
            texts = [t.strip() for t in system_texts(agent, request.body)]
            assert any(system.strip() in t for t in texts) and not any(f"Role {other}: " in t for t in texts)
            body = json.dumps(request.body)
            assert f"Role {role} ({item.game.roles[role].name})" in body and f"Role {other} (" not in body
        firsts = [r for r in own if conversation(r).n_results == 0]
        assert own_words(conversation(firsts[0]).prompt).strip() == SCREEN_WORDS.strip() and has_image(firsts[0])
    # one action a turn: the request carrying a turn's action result is held, never reaching the model; the next
    # one the role's session makes is at its next turn (one more result). Role 0's last act ended the task: its
    # answer reached the model, which replied.
    assert sorted(conversation(r).n_results for r in mains if r.rule == 0) == [0, 1, 2, 3]
    assert sorted(conversation(r).n_results for r in mains if r.rule == 1) == [0, 1]


@pytest.mark.parametrize("agent", AGENTS)
def test_a_roles_hand_off_is_its_own(agent, checkout, tmp_path):
    """--context handoff:N under isolated roles: amber's context passes N in its first turn; its session is continued
    once more for VISTA's checkpoint (its notes saved, no action), teal plays, and amber's next turn is a fresh
    session of amber told VISTA's recovery words, amber's notes and the screen; teal's session goes on untouched."""
    checkpoint = "Review and update WORKING.md|Save the compact checkpoint"
    saved = {"call": "write_working", "input": {"content": "amber: one cell right done, one to go"}}
    first = {"call": "act", "input": RELAY_WIN[0][0]}
    scenario = {
        "rules": [
            {"system": "Role 0: amber", "match": "Continue this same role and task", "turns": plays(RELAY_WIN[0][1:])},
            {
                "system": "Role 0: amber",
                "match": checkpoint,
                "turns": [first, saved, {"final": "<answer>HANDOFF</answer>"}],
            },
            {
                "system": "Role 0: amber",
                "turns": [first],
                "usage": {w: [{"input_tokens": 60_000, "output_tokens": 10}] for w in ("anthropic", "responses")},
            },
            {"system": "Role 1: teal", "turns": plays(RELAY_WIN[1])},
        ]
    }
    result, mains, record = run_profile(agent, checkout, "91_01", tmp_path, "h", scenario, "--context", "handoff:50000")
    assert result.exit_code == 0, result.output
    assert record["status"] == "ok" and record["correct"] and record["handoffs"] == 1, record.get("error")
    item_dir = tmp_path / "h" / "sandboxes" / "91_01"
    assert [s["role"] for s in read_timeline(item_dir) or []] == [0, 1, 0, 1, 0]  # no step in the checkpoint
    sessions = read_sessions(item_dir)
    assert [(s.context, s.kind) for s in sessions] == [
        ("role-0", "new"),
        ("role-0", "resume"),  # amber's checkpoint
        ("role-1", "new"),
        ("role-0", "new"),  # amber afresh
        ("role-1", "resume"),
        ("role-0", "resume"),
    ]
    assert sessions[1].reason.startswith("checkpoint of role 0") and sessions[3].reason.startswith("hand-off")
    assert sessions[4].session_id == sessions[2].session_id and sessions[5].session_id == sessions[3].session_id
    fresh = [r for r in mains if r.rule == 0]
    prompt = conversation(fresh[0]).prompt
    assert RECOVERY_WORDS in prompt and "amber: one cell right done, one to go" in prompt and has_image(fresh[0])
    teal = [r for r in mains if r.rule == 3]
    assert all("one cell right done" not in json.dumps(r.body) for r in teal)  # amber's notes are amber's


@pytest.mark.parametrize("agent", AGENTS)
def test_isolated_roles_survive_the_harness(agent, checkout, tmp_path):
    """The runner SIGKILLed once both roles have acted; run again, the task is replayed and the role on turn (amber)
    goes on in its own session, continued and told VISTA's recovery words, then the turns go on to the win."""
    out = tmp_path / "out"
    (tmp_path / "tmp").mkdir()
    item_dir = out / "r" / "sandboxes" / "91_01"
    rules = [
        {"system": "Role 0: amber", "turns": plays(RELAY_WIN[0])},
        {"system": "Role 1: teal", "turns": plays(RELAY_WIN[1])},
    ]
    argv = [
        AGENT_EVAL, "run", "--agent", agent, "--model", MODELS[agent], "--data", str(checkout), "--ids", "91_01",
        "--out-dir", str(out), "--run-name", "r", "--unpriced", "--profile", "vista",
    ]  # fmt: skip
    with ScriptedServer({"rules": rules, "faults": {"delay": 0.4}}) as server:
        env = {**os.environ, **scripted_environ(agent, server.url), "TMPDIR": str(tmp_path / "tmp")}
        assert kill_after_steps(argv, env, item_dir / "game" / "timeline.jsonl", 2, tmp_path) == 2
        server.faults = {}
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stderr[-2000:]
    (record,) = [json.loads(line) for p in (out / "r").glob("*/items.jsonl") for line in p.read_text().splitlines()]
    assert record["status"] == "ok" and record["correct"], (record["status"], record["error"])
    assert [s["role"] for s in read_timeline(item_dir) or []] == [0, 1, 0, 1, 0]
    sessions = read_sessions(item_dir)
    restarted = [s for s in sessions if "harness restarted" in s.reason]
    assert [(s.context, s.kind) for s in restarted] == [("role-0", "resume")]
    assert restarted[0].session_id == sessions[0].session_id  # amber's own session
