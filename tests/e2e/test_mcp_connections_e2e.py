"""The dropped MCP call, reproduced and fixed, with both real CLIs.

Cause (seen under load through the real sandbox: docs/sandbox.md, "MCP over HTTP"): the sandbox's proxy serves one
request per client connection and closes it without telling the client; Claude Code keeps the connection for its next
request and, when that leaves before the close arrives, the request never reaches the MCP host and the model is told
ECONNRESET (the action not taken). Here a stand-in proxy does exactly that, with the close held back (as on a loaded
machine), in front of the item's MCP host: the pre-fix configuration loses requests every time; with every MCP
server's `Connection: close` (tools/toolset.py, written by both adapters) none is lost and each tool call reaches the
host exactly once."""

from __future__ import annotations

import dataclasses
import json

import pytest

from agent_eval.agents.claude_code import adapter as claude_adapter
from agent_eval.datamodel.transcript import Transcript
from agent_eval.scripted import ScriptedServer
from agent_eval.tools.mcp_http import McpHost
from support.agentrun import AGENTS, run_agent
from support.oneshot_proxy import OneShotProxy

pytestmark = pytest.mark.e2e

PAIRS = 3  # turns of two tool calls each: the second goes out right after the first's answer
SCENARIO = {"turns": [{"calls": [{"call": "info", "input": {}}] * 2}] * PAIRS + ["<answer>7</answer>"]}
LOST = "ECONNRESET"


@pytest.fixture
def proxy(monkeypatch):
    """Every MCP URL an item gets points at the stand-in, which forwards to this process's MCP host."""
    host = McpHost.shared()
    assert host.wait_ready(timeout=60), host.error  # the SDK loads in its thread: slow on a busy machine
    stand_in = OneShotProxy(host.port, linger_s=0.5)
    monkeypatch.setattr(McpHost, "host_port", property(lambda self: stand_in.host_port))
    yield stand_in
    stand_in.close()


def tool_results(outcome) -> list:
    record = outcome.store.records()[0]
    steps = Transcript.load(outcome.store.sandbox_dir(record.id, 0) / "steps.json").steps
    return [step for step in steps if step.kind == "tool_result"]


def test_without_connection_close_claude_code_loses_calls(proxy, sample_data, tmp_path, monkeypatch):
    """The reproduction (what the fix changes): the MCP config as it was, no header."""
    entry = claude_adapter._mcp_entry
    monkeypatch.setattr(claude_adapter, "_mcp_entry", lambda server: entry(dataclasses.replace(server, headers=())))
    with ScriptedServer(SCENARIO) as server:
        outcome = run_agent("claude-code", "image", server, sample_data, tmp_path, ids="RC-0", sandbox="none")
    results = tool_results(outcome)
    lost = [r for r in results if r.is_error and LOST in r.text]
    assert proxy.dropped and lost  # requests that never reached the host, and the model was told ECONNRESET
    config = json.loads((outcome.store.sandbox_dir("RC-0", 0) / "home" / "mcp.json").read_text())
    assert "headers" not in config["mcpServers"]["imagetools"]


@pytest.mark.parametrize("agent", AGENTS)
def test_every_call_reaches_the_host_once(agent, proxy, sample_data, tmp_path):
    with ScriptedServer(SCENARIO) as server:
        outcome = run_agent(agent, "image", server, sample_data, tmp_path, ids="RC-0", sandbox="none")
    record = outcome.store.records()[0]
    results = tool_results(outcome)
    assert record.status == "ok" and len(results) == 2 * PAIRS, record.error
    assert not [r.text for r in results if r.is_error]
    assert proxy.dropped == []  # no request was sent on a connection the proxy had answered on
    assert proxy.requests == proxy.connections  # one request per connection
    assert proxy.tool_calls == 2 * PAIRS  # each call reached the host exactly once
    # The image tools hold no prompts or resources and say so (tools/mcp_http.py): neither CLI asks for them.
    assert not {"prompts/list", "resources/list", "resources/templates/list"} & set(proxy.methods), proxy.methods
