"""`agent-eval run --profile vista`, as a user types it, through both real CLIs, sandboxed, against the scripted model,
on one of the project's own games (ae02, won by clicks): every request offers exactly VISTA's eight tools and nothing
else, its system prompt is VISTA's published player instructions in the CLI's own prompt's place, the first message
is VISTA's (the current observation's metadata, the objective) with the initial frame attached, the run's identity
names the profile and `show` says it. An option given beside the profile wins (here --max-actions and --timeout)."""

import json

import pytest

from agent_eval.agents.codex.adapter import MCP_RESOURCE_TOOLS
from agent_eval.agents.registry import scripted_environ
from agent_eval.benchmarks.arcgames.games import WINNING
from agent_eval.benchmarks.profiles import vista_system_prompt
from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.inspect_requests import conversation, has_image, offered_tool_names
from support.agentrun import AGENTS, MODELS, system_texts
from support.arcgames import VISTA_TOOLS
from support.clirun import invoke

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    out = tmp_path_factory.mktemp("profile") / "games"
    assert invoke("sample-data", "--kind", "arcgames", out).exit_code == 0
    return out


def winning_clicks() -> list[dict]:
    """ae02's winning clicks in display pixels of VISTA's 512x512 image (turn 0 is shown up front: no RESET)."""
    return [
        {"call": "play", "input": {"action": "ACTION6", "x": x * 8 + 5, "y": y * 8 + 2}}
        for _, x, y in WINNING["ae02-v1"][1:]
    ]


@pytest.mark.parametrize("agent", AGENTS)
def test_profile_vista_offers_vistas_tools_prompt_and_first_message(agent, games, tmp_path):
    scenario = {"turns": [*winning_clicks(), {"final": "Won. <answer>DONE</answer>"}]}
    with ScriptedServer(scenario) as server:
        result = invoke(
            "run", "--agent", agent, "--model", MODELS[agent], "--profile", "vista", "--unpriced",
            "--data", games, "--ids", "ae02", "--out-dir", tmp_path, "--run-name", "v", "--jobs", "1",
            "--max-actions", "40", "--timeout", "150",
            env=scripted_environ(agent, server.url),
        )  # fmt: skip
        mains = server.main_requests()
    assert result.exit_code == 0, result.output
    # the run's header says the session image cap it used, and why: the CLI's own per-request cap for the model
    header = " ".join(result.output.split())
    kept = "claude-code keeps 600 images a request" if agent == "claude-code" else "codex keeps every image"
    assert "session images: a hand-off before 600" in header and kept in header, header
    run_dir = tmp_path / "v"
    (record,) = [json.loads(line) for path in run_dir.glob("*/items.jsonl") for line in path.read_text().splitlines()]
    assert record["status"] == "ok" and record["correct"], (record["status"], record.get("error"))

    # Claude Code offers nothing else. Codex adds its three MCP-resource tools beside any MCP server (no switch of
    # `codex exec` removes them; VISTA's Codex player gets its tools through app-server's dynamic tools instead).
    besides = set(MCP_RESOURCE_TOOLS) if agent == "codex" else set()
    for request in mains:
        offered = offered_tool_names(request)
        assert sorted(n for n in offered if n.startswith("mcp__game__")) == sorted(
            f"mcp__game__{t}" for t in VISTA_TOOLS
        )
        assert {n for n in offered if not n.startswith("mcp__game__")} == besides, offered

    player_instructions = vista_system_prompt("arcgames").read_text()
    for body in (r.body for r in mains):
        texts = system_texts(agent, body)
        assert player_instructions.strip() in [t.strip() for t in texts]
        assert max(len(t) for t in texts) == len(
            player_instructions.strip() if agent == "codex" else player_instructions
        )

    first = conversation(mains[0]).prompt
    assert has_image(mains[0]) and "Current observation:" in first and '"turn":0' in first
    assert "Complete the game with as few game actions as possible." in first

    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["config"]["profile"] == "vista"
    options = manifest["config"]["kind_options"]
    assert options["game_tools"] == "vista" and options["max_actions"] == 40  # the command line's value won
    assert manifest["system_prompt"]["file"] == str(vista_system_prompt("arcgames"))
    shown = " ".join(invoke("show", run_dir).output.split())
    assert "profile: vista" in shown
