"""The silent-session lease and the tool-surface gate on their own (both CLIs' real sessions:
tests/e2e/test_silent_lease_e2e.py, tests/e2e/test_tool_surface_e2e.py)."""

import asyncio
import json

from agent_eval.agents.claude_code.adapter import ClaudeCode
from agent_eval.agents.codex.adapter import Codex
from agent_eval.benchmarks.base import ItemSetup
from agent_eval.datamodel.itemdir import ItemDir
from agent_eval.datamodel.sessions import read_sessions
from agent_eval.engine.session_watch import SilentLease
from agent_eval.engine.sessions import go_on_after_silence, start_session
from agent_eval.engine.tool_surface import SurfaceGate
from agent_eval.tools.toolset import ToolSet

CALL = {"type": "assistant", "message": {"content": [{"type": "tool_use"}]}}
RESULT = {"type": "user", "message": {"content": [{"type": "tool_result"}]}}


class Clock:
    def __init__(self):
        self.now, self.held = 100.0, 0.0

    def __call__(self) -> float:
        return self.now


def lease(clock: Clock, minutes: float = 1.0) -> SilentLease:
    return SilentLease(ClaudeCode(), minutes, lambda: clock.held, clock=clock)


def test_the_clock_starts_when_the_session_can_act_and_a_completed_call_restarts_it():
    clock = Clock()
    silent = lease(clock)
    clock.now += 600  # the CLI starting up: not silence
    assert not silent.expired()
    silent.start()
    clock.now += 59
    assert not silent.expired()
    silent.observe(CALL)
    silent.observe(RESULT)
    clock.now += 59
    assert not silent.expired() and silent.completed == 1
    clock.now += 2
    assert silent.expired() and "silent for 1 min" in silent.detail() and "1 completed before" in silent.detail()


def test_a_running_call_and_the_providers_waits_hold_the_clock():
    clock = Clock()
    silent = lease(clock)
    silent.start()
    silent.observe(CALL)
    clock.now += 300
    assert not silent.expired()  # a call still running
    silent.observe(RESULT)
    clock.now += 90
    clock.held += 40  # 40 s of it the gateway held a request for the provider
    assert silent.silent_s() == 50 and not silent.expired()
    clock.now += 10
    assert silent.expired()


def test_after_silence_a_session_without_a_record_goes_on_fresh_told_the_task_again(tmp_path):
    item_dir = ItemDir(tmp_path / "item")
    item_dir.fresh()
    setup = ItemSetup(prompt="THE TASK\n", tools=ToolSet(), inline_images=[])
    start_session(ClaudeCode(), item_dir, setup)  # its CLI never wrote its own record
    start = go_on_after_silence(ClaudeCode(), item_dir, setup, 120)
    first, second = read_sessions(item_dir.root)
    assert start.plan.kind == "new" and start.plan.session_id != first.session_id
    assert second.reason == "silent for 120 min" and second.kind == "new"  # as a hand-off goes on: the same records
    assert start.prompt.startswith("THE TASK\n\nAn earlier session of yours") and "after 120 minutes" in start.prompt


def test_the_gate_decides_once_from_the_stream_or_the_first_request():
    claude = SurfaceGate(ClaudeCode(), ClaudeCode().expected_surface(ToolSet(shell=True), "2.1.332"))
    assert claude.pending and not claude.open
    init = {"type": "system", "subtype": "init", "tools": ["Bash"], "permissionMode": "default"}
    assert claude.on_event({**init, "claude_code_version": "2.1.332", "mcp_servers": []}) is None
    assert claude.open and claude.verdict().startswith("checked: 1 tool(s)")
    assert claude.on_event({**init, "tools": []}) is None  # decided: a later init (a resume) changes nothing

    codex = SurfaceGate(Codex(), Codex().expected_surface(ToolSet(), "0.171.0"))
    body = json.dumps({"tools": [{"type": "function", "name": "view_image"}]}).encode()
    refusal = asyncio.run(codex.admit(body, None, "codex_exec/0.171.0"))
    assert refusal is not None and "(extra: view_image)" in refusal and codex.stop_reason() == "tool_surface_error"
    assert codex.wait(0) == refusal  # the MCP host's answer to a held call, too

    unreadable = SurfaceGate(Codex(), Codex().expected_surface(ToolSet(), "0.171.0"))
    assert "cannot read" in asyncio.run(unreadable.admit(b"\x28\xb5\x2f\xfd", "zstd-unknown", ""))


def test_a_stream_report_that_comes_late_lets_requests_go_but_holds_tool_calls(monkeypatch):
    from agent_eval.engine import tool_surface

    monkeypatch.setattr(tool_surface, "STREAM_REPORT_WAIT_S", 0.1)
    gate = SurfaceGate(ClaudeCode(), ClaudeCode().expected_surface(ToolSet(), "2.1.332"))
    assert asyncio.run(gate.admit(b"{}", None, "")) is None  # no init yet (a stream held back): the request goes
    assert not gate.pending and not gate.open  # later requests pass unread; tool calls still wait for the check
    init = {"type": "system", "subtype": "init", "tools": [], "permissionMode": "default"}
    gate.on_event({**init, "claude_code_version": "2.1.332", "mcp_servers": []})
    assert gate.open and gate.wait(0) is None

    late = SurfaceGate(ClaudeCode(), ClaudeCode().expected_surface(ToolSet(), "2.1.332"))
    assert asyncio.run(late.admit(b"{}", None, "")) is None and not late.pending  # (a title request, say)
    late.on_event({**init, "tools": ["Bash"], "claude_code_version": "2.1.332", "mcp_servers": []})
    assert late.pending  # failed: every later request is refused again, let go or not
    assert "extra: Bash" in asyncio.run(late.admit(b"{}", None, ""))


def test_a_session_of_a_context_continues_that_contexts_last_session_with_its_own_words(tmp_path, monkeypatch):
    """An item of several contexts (a game's roles): a continuation naming a context resumes that context's last
    session (not the item's last), its note with the images given for it and its own system prompt's words; one
    without a context (after a silence) goes on in the last session's; a context never played starts fresh."""
    from agent_eval.benchmarks.base import Continuation

    item_dir = ItemDir(tmp_path / "item")
    item_dir.fresh()
    monkeypatch.setattr(ClaudeCode, "can_resume", lambda self, home, work, session_id: True)
    setup = ItemSetup(prompt="FIRST\n", tools=ToolSet(), context="role-0", system_fields={"objective": "zero"})
    first = start_session(ClaudeCode(), item_dir, setup)
    screen = tmp_path / "screen.png"
    screen.write_bytes(b"png")

    def turn(role: int) -> Continuation:
        going_on = Continuation("Game screen:\n", "Game screen:\n", [screen], f"turn of role {role}", resume=True)
        going_on.context, going_on.note_images = f"role-{role}", [screen]
        going_on.system_fields = {"objective": str(role)}
        return going_on

    second = start_session(ClaudeCode(), item_dir, setup, turn(1))
    third = start_session(ClaudeCode(), item_dir, setup, turn(0))
    silent = go_on_after_silence(ClaudeCode(), item_dir, setup, 5)
    assert second.plan.kind == "new" and second.system_fields == {"objective": "1"} and second.images
    assert third.plan.kind == "resume" and third.plan.session_id == first.plan.session_id and third.images
    assert third.prompt == "Game screen:\n" and third.system_fields == {"objective": "0"}
    assert silent.plan.session_id == first.plan.session_id  # the last session's context: role 0's
    contexts = [s.context for s in read_sessions(item_dir.root)]
    assert contexts == ["role-0", "role-1", "role-0", "role-0"]
