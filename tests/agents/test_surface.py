"""What each adapter expects its CLI to report offering for a ToolSet, and how it reads the report (events and
request bodies shaped as the pinned CLIs send them: tests/e2e/test_tool_surface_e2e.py checks them live)."""

from agent_eval.agents.claude_code.adapter import ClaudeCode
from agent_eval.agents.codex.adapter import Codex
from agent_eval.agents.surface import surface, surface_mismatch
from agent_eval.tools.toolset import McpServer, ToolSet

IMAGE = ToolSet(view_file=True, mcp=(McpServer("imagetools", ("info", "inspect"), url="http://127.0.0.1:1/t/mcp"),))


def test_claude_code_reads_its_init_event_and_expects_the_switches_it_set():
    init = {
        "type": "system",
        "subtype": "init",
        "tools": ["Read", "mcp__imagetools__inspect", "mcp__imagetools__info"],
        "permissionMode": "default",
        "claude_code_version": "2.1.332",
        "mcp_servers": [{"name": "imagetools", "status": "connected", "source": "dynamic"}],
        "skills": ["debug"],  # not part of the surface: no Skill tool is offered
    }
    agent = ClaudeCode()
    reported = agent.surface_from_event(init)
    assert reported == agent.expected_surface(IMAGE, "2.1.332")
    assert agent.surface_from_event({"type": "assistant"}) is None
    failed = agent.surface_from_event(
        {**init, "tools": ["Read"], "mcp_servers": [{"name": "imagetools", "status": "failed"}]}
    )
    why = surface_mismatch(agent.expected_surface(IMAGE, "2.1.332"), failed, "claude-code")
    assert why is not None and "missing: mcp__imagetools__info, mcp__imagetools__inspect" in why
    assert "its MCP servers are imagetools failed, expected imagetools connected" in why


def test_codex_reads_its_first_request_and_user_agent():
    body = {
        "tools": [
            {"type": "function", "name": "list_mcp_resources"},
            {"type": "function", "name": "list_mcp_resource_templates"},
            {"type": "function", "name": "read_mcp_resource"},
            {"type": "function", "name": "view_image"},
            {"type": "namespace", "name": "mcp__imagetools", "tools": [{"name": "info"}, {"name": "inspect"}]},
        ]
    }
    agent = Codex()
    user_agent = "codex_exec/0.171.0 (Debian 12.0.0; x86_64) dumb (codex_exec; 0.171.0)"
    assert agent.surface_from_request(body, user_agent) == agent.expected_surface(IMAGE, "0.171.0")
    shell = {"tools": body["tools"] + [{"type": "function", "name": "exec_command"}, {"type": "web_search"}]}
    why = surface_mismatch(agent.expected_surface(IMAGE, "0.171.0"), agent.surface_from_request(shell, ""), "codex")
    assert why is not None and "(extra: exec_command, web_search)" in why and "its version is None" in why


def test_a_running_call_and_a_completed_one_as_each_stream_says():
    claude, codex = ClaudeCode(), Codex()
    two_calls = {
        "type": "assistant",
        "message": {"content": [{"type": "tool_use"}, {"type": "text"}, {"type": "tool_use"}]},
    }
    assert claude.tool_activity(two_calls) == (2, 0)
    assert claude.tool_activity({"type": "user", "message": {"content": [{"type": "tool_result"}]}}) == (0, 1)
    assert claude.tool_activity({"type": "user", "message": {"content": "a prompt"}}) == (0, 0)
    command = {"type": "command_execution", "command": "ls"}
    assert codex.tool_activity({"type": "item.started", "item": command}) == (1, 0)
    assert codex.tool_activity({"type": "item.completed", "item": command}) == (0, 1)
    assert codex.tool_activity({"type": "item.completed", "item": {"type": "agent_message"}}) == (0, 0)


def test_the_same_surface_reported_in_another_order_is_the_same():
    assert surface(["b", "a", "a"], "1") == surface(("a", "b"), "1")
    assert surface_mismatch(surface(["a"], "1"), surface(["a"], "1"), "x") is None
