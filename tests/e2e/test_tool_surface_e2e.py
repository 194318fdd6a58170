"""The tool-surface check, both real CLIs, sandboxed, against the scripted model: what the CLI reports at start
(Claude Code's system/init event; Codex's first model request and its version) must be what the item's ToolSet
implies. It passes in every tool mode of two kinds (ActiveVision's image tools, ARC-AGI-3's game); a deliberate
mismatch (a tool server that does not come up, an extra tool, a CLI other than the pinned one) ends the item
`tool_surface_error` before anything reaches the model (so no tool call can happen), saying what was offered against
what was expected, and stops the run as an auth failure does: the next item is not run."""

from __future__ import annotations

import pytest

from agent_eval.agents.registry import agent_class
from agent_eval.datamodel.sessions import read_sessions
from agent_eval.scripted import ScriptedServer
from agent_eval.tools import mcp_http
from support.agentrun import AGENTS, run_agent
from support.arcgames import write_game

pytestmark = pytest.mark.e2e

ANSWER = {"turns": ["<answer>7</answer>"]}
# What each CLI offers on top of the mode's own tools (checked against the CLIs' real requests in tests/e2e/golden).
EXPECTED_COUNT = {
    ("claude-code", "activevision"): {"none": 0, "image": 4, "python": 5},
    ("codex", "activevision"): {"none": 0, "image": 7, "python": 9},
    ("claude-code", "arcgames"): {"none": 1, "image": 4, "python": 6},
    ("codex", "arcgames"): {"none": 4, "image": 7, "python": 10},
}


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    root = tmp_path_factory.mktemp("arcgames") / "environment_files"
    write_game(root, "tg01")
    return root


@pytest.mark.parametrize("kind", ["activevision", "arcgames"])
@pytest.mark.parametrize("agent", AGENTS)
def test_the_check_passes_in_every_tool_mode_of_two_kinds(agent, kind, sample_data, games, tmp_path):
    data, ids = (sample_data, "RC-0") if kind == "activevision" else (games, None)
    # The scripted model answers without playing: graded as it stands (continuing it, as by default, would start a
    # dozen more sessions of the same check).
    options = {"early_stop": "grade"} if kind == "arcgames" else None
    for mode in ("none", "image", "python"):
        with ScriptedServer(ANSWER) as server:
            outcome = run_agent(agent, mode, server, data, tmp_path / mode, ids=ids, kind_options=options)
        record = outcome.store.records()[0]
        assert record.status != "tool_surface_error" and outcome.stopped_for_auth is None, record.error
        version = agent_class(agent)().version()
        for session in read_sessions(outcome.store.sandbox_dir(record.id, 0)):
            assert session.tool_surface is not None and session.tool_surface.startswith("checked: ")
            assert f"{EXPECTED_COUNT[agent, kind][mode]} tool(s)" in session.tool_surface
            assert f"version {version}" in session.tool_surface
            if agent == "claude-code":
                assert "permission mode default" in session.tool_surface


def broken_tool_server(monkeypatch, agent: str) -> str:
    """Every MCP server the kind mounts fails to start (the host answers 500)."""
    mount = mcp_http.McpHost.mount

    def failing(self, build, name="mcp"):
        def build_fails():
            raise RuntimeError("deliberately broken tool server")

        return mount(self, build_fails, name)

    monkeypatch.setattr(mcp_http.McpHost, "mount", failing)
    return "imagetools failed" if agent == "claude-code" else "required MCP servers failed to initialize: imagetools"


def extra_tool(monkeypatch, agent: str) -> str:
    """The CLI is started with the shell on though the mode (image) has none: as a CLI release that adds a tool."""
    cls = agent_class(agent)
    prepare = cls.prepare

    def with_a_shell(self, ctx):
        invocation = prepare(self, ctx)
        swap = {"Read": "Read,Bash", "features.shell_tool=false": "features.shell_tool=true"}
        invocation.argv = [swap.get(arg, arg) for arg in invocation.argv]
        return invocation

    monkeypatch.setattr(cls, "prepare", with_a_shell)
    return "extra: Bash" if agent == "claude-code" else "extra: exec_command, write_stdin"


def other_version(monkeypatch, agent: str) -> str:
    """The run expects another pinned version than the CLI that starts."""
    monkeypatch.setattr(agent_class(agent), "version", lambda self, run=False: "0.0.1")
    return "its version is"


@pytest.mark.parametrize("mismatch", [broken_tool_server, extra_tool, other_version])
@pytest.mark.parametrize("agent", AGENTS)
def test_a_mismatch_stops_the_run_before_the_first_action(agent, mismatch, sample_data, tmp_path, monkeypatch):
    said = mismatch(monkeypatch, agent)
    with ScriptedServer({"turns": [{"call": "info", "input": {}}, "<answer>7</answer>"]}) as server:
        outcome = run_agent(agent, "image", server, sample_data, tmp_path, ids="RC-0,CCC-0", jobs=1)
        reached = server.main_requests() + [r for r in server.requests if r.kind == "side"]
    records = outcome.store.records()
    assert len(records) == 1  # the run stopped after the first item: the second would meet the same
    (record,) = records
    assert record.status == "tool_surface_error" and record.tool_calls == 0
    assert record.error.startswith("tool surface: ") and said in record.error
    assert outcome.stopped_for_auth and "before item" in outcome.stopped_for_auth and said in outcome.stopped_for_auth
    assert reached == []  # nothing went to the model: no answer, so no tool call, ever existed
    if mismatch is not broken_tool_server or agent == "claude-code":  # (Codex itself refuses to start then)
        (session,) = read_sessions(outcome.store.sandbox_dir(record.id, 0))
        assert session.tool_surface == record.error
