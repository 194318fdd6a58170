"""A CLI session survives the harness: the real Claude Code and Codex, sandboxed, against the scripted
model server. The first session is killed with SIGKILL while its second tool call runs (a minute's wait); the adapter's
resume continues the SAME session (the server receives the earlier turns and the harness's note), a
second resume after a clean end too; the three sessions parse as one transcript whose usage is what the
server reported, counted once. Without the CLI's own record of the session, can_resume says no and the
CLI indeed refuses to continue it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from agent_eval.agents.base import Agent, ItemContext, SessionPlan
from agent_eval.agents.claude_code.session_file import session_file
from agent_eval.agents.codex.events import rollout_of
from agent_eval.agents.registry import agent_class, scripted_environ
from agent_eval.agents.sessions import SESSION_MARKER
from agent_eval.datamodel.transcript import saved_events
from agent_eval.engine.sandbox import Sandbox, SandboxSpec
from agent_eval.scripted import ScriptedServer, offered_tool_names, prompt_text
from agent_eval.tools.toolset import ToolSet
from support.agentrun import AGENTS, MODELS, wait_until_gone

pytestmark = pytest.mark.e2e

SLEEP = "time.sleep(60)"
PROMPT = "GAME-PROMPT: play the game with the shell."
NOTE = "RESUME-NOTE: the harness restarted; go on with the game."
AGAIN = "RESUME-NOTE-AGAIN: the harness restarted once more."
SCENARIO = {
    "rules": [
        {"match": "RESUME-NOTE-AGAIN", "turns": ["<answer>again</answer>"]},
        {"match": "RESUME-NOTE", "turns": ["<answer>resumed</answer>"]},
        {
            "turns": [
                {"say": "first", "call": "shell", "input": {"command": "echo MARK-$((6*7))"}},
                # killed while this runs (not `sleep 60`: Claude Code refuses a standalone sleep at once)
                {"call": "shell", "input": {"command": f'python3 -c "import time; {SLEEP}"'}},
                "<answer>never</answer>",
            ]
        },
    ]
}
SHELL = {"claude-code": "Bash", "codex": "exec_command"}
GUARD_S = 90  # a session that outlives this is killed and fails the test


def first_turn_logged(agent: str, home: Path) -> bool:
    """Both CLIs write their own record a little after the stream (a SIGKILL can lose its last entries):
    the cut waits until the first turn's tool result is in it, and for Codex the usage records of both
    responses, so what the resume gets and what the test counts do not depend on when the kill lands."""
    if agent == "codex":
        paths = list((home / ".codex" / "sessions").glob("**/rollout-*.jsonl"))
        text = paths[0].read_text() if paths else ""
        return "MARK-42" in text and text.count('"token_usage_record"') >= 2
    paths = list((home / ".claude" / "projects").glob("*/*.jsonl"))
    return bool(paths) and "MARK-42" in paths[0].read_text()


def run_session(agent: Agent, ctx: ItemContext, transcript: Path, n: int, reason: str, cut_at: str | None = None):
    """One session as the engine runs it: a marker line, then the CLI's events appended to the transcript.
    `cut_at`: SIGKILL the whole process tree once a tool call with this command has started."""
    invocation = agent.prepare(ctx)
    spec = SandboxSpec(workdir=ctx.workdir, home=ctx.home, endpoints=ctx.auth.endpoints, env=invocation.env)
    plan = ctx.session
    events: list[dict] = []
    with Sandbox(spec) as sandbox, transcript.open("a") as out:
        out.write(json.dumps({"type": SESSION_MARKER, "n": n, "kind": plan.kind, "reason": reason,
                              "session_id": plan.session_id, "at": f"t{n}"}) + "\n")  # fmt: skip
        argv, env = sandbox.wrap(invocation.argv)
        with (ctx.home.parent / f"stderr-{n}.txt").open("wb") as stderr:
            proc = subprocess.Popen(
                argv,
                env=env,
                cwd=ctx.workdir,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                start_new_session=True,
                pass_fds=sandbox.pass_fds,
            )
            guard = threading.Timer(GUARD_S, lambda: os.killpg(proc.pid, signal.SIGKILL))
            guard.start()
            proc.stdin.write(invocation.stdin or b"")
            proc.stdin.close()
            started = time.monotonic()
            for line in proc.stdout:
                event = json.loads(line)
                events.append(event)
                out.write(json.dumps({"t": round(time.monotonic() - started, 3), "event": event}) + "\n")
                out.flush()
                if cut_at and event.get("type") in ("assistant", "item.started") and cut_at in json.dumps(event):
                    while not first_turn_logged(agent.name, ctx.home) and time.monotonic() - started < GUARD_S:
                        time.sleep(0.02)
                    os.killpg(proc.pid, signal.SIGKILL)  # the harness's node is lost: no clean stop
                    break
            proc.wait()
            guard.cancel()
    return events, proc.returncode


def reported_input(server: ScriptedServer) -> tuple[int, int]:
    """(input tokens, cached) that the server's answers reported, every request counted once."""
    total = cached = 0
    for request in server.requests:
        usage = request.usage or {}
        cache_read = usage.get("cache_read_input_tokens") or (usage.get("input_tokens_details") or {}).get(
            "cached_tokens", 0
        )
        fresh = usage.get("input_tokens") or 0
        if request.api == "anthropic":  # Anthropic's input_tokens leave the cache out; Responses' include it
            fresh += (usage.get("cache_creation_input_tokens") or 0) + cache_read
        total, cached = total + fresh, cached + (cache_read or 0)
    return total, cached


@pytest.mark.parametrize("name", AGENTS)
def test_a_session_killed_mid_game_is_continued_then_refused_without_its_record(name, tmp_path):
    agent = agent_class(name)()
    home, work, transcript = tmp_path / "home", tmp_path / "work", tmp_path / "transcript.jsonl"
    home.mkdir()
    work.mkdir()
    with ScriptedServer(SCENARIO) as server:
        auth = agent.find_auth(scripted_environ(name, server.url))

        def context(prompt: str, plan: SessionPlan) -> ItemContext:
            return ItemContext("g", MODELS[name], None, None, prompt, work, home, ToolSet(shell=True), [], auth, plan)

        chosen = agent.new_session_id()
        new = context(PROMPT, SessionPlan("new", chosen))
        first, code = run_session(agent, new, transcript, 1, "start", cut_at=SLEEP)
        session_id = agent.session_id_of(first)
        assert code == -signal.SIGKILL and session_id and (chosen is None or session_id == chosen)
        assert not any(e.get("type") in ("result", "turn.completed") for e in first)  # cut mid-turn
        assert wait_until_gone(str(home)) == []
        assert agent.can_resume(home, work, session_id)
        cut_requests = len(server.main_requests())
        # the kill ended it: its two calls, never the answer it would have given next
        assert [r.outcome for r in server.main_requests()] == [f"call:{SHELL[name]}"] * 2

        second, code = run_session(agent, context(NOTE, SessionPlan("resume", session_id)), transcript, 2, "restarted")
        assert code == 0 and agent.session_id_of(second) == session_id  # the SAME session, continued
        resumed = server.main_requests()[cut_requests]
        said = prompt_text(resumed)
        assert PROMPT in said and NOTE in said and said.index(PROMPT) < said.index(NOTE)
        assert "MARK-42" in json.dumps(resumed.body)  # the tool result of the killed session's first turn
        assert SHELL[name] in offered_tool_names(resumed) and resumed.body["model"] == MODELS[name]  # as before

        third, code = run_session(agent, context(AGAIN, SessionPlan("resume", session_id)), transcript, 3, "restarted")
        assert code == 0 and agent.session_id_of(third) == session_id
        assert NOTE in prompt_text(server.main_requests()[-1]) and AGAIN in prompt_text(server.main_requests()[-1])
        reported = reported_input(server)

        parsed = agent.parse(saved_events(transcript), tmp_path, MODELS[name])
        assert [(s["n"], s["kind"], s["session_id"]) for s in parsed.sessions] == [
            (1, "new", session_id),
            (2, "resume", session_id),
            (3, "resume", session_id),
        ]
        assert parsed.final_text == "<answer>again</answer>" and parsed.error is None
        calls = [s for s in parsed.steps if s.kind == "tool_call"]
        assert "MARK" in json.dumps(calls[0].input) and any(
            s.kind == "tool_result" and "MARK-42" in s.text for s in parsed.steps
        )
        answers = [parsed.steps[s["first_step"]].text for s in parsed.sessions[1:]]
        assert answers == ["<answer>resumed</answer>", "<answer>again</answer>"]
        # Every request's input counted once across the three sessions: not the CLIs' running totals.
        assert (parsed.usage.input_tokens, parsed.usage.cached_input_tokens) == reported

        record = session_file(home, work, session_id) if name == "claude-code" else rollout_of(home, session_id)
        record.unlink()
        assert not agent.can_resume(home, work, session_id)
        refused, code = run_session(agent, context(NOTE, SessionPlan("resume", session_id)), transcript, 4, "check")
        assert code != 0 and not any(e.get("type") in ("assistant", "item.completed") for e in refused)
        stderr = (tmp_path / "stderr-4.txt").read_text()
        assert "No conversation found" in stderr or "no rollout found" in stderr
