"""Both real CLIs reach the observe server over HTTP with the MCP config docs/kinds/activeobs.md recommends, plain
and in the bwrap sandbox (scripted model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_eval.benchmarks.activeobs.observe_server import ObservationServer
from support.activeobs import seam_scene

NODE_BIN = Path(__file__).resolve().parents[2] / "node_modules" / ".bin"


FINAL = '<answer>{"answer": 2, "evidence": {"frame": 10, "angle": 90, "bbox": [400, 300, 600, 900]}}</answer>'


def cli_command(agent: str, url: str, model_url: str, home: Path) -> tuple[list[str], dict, bytes]:
    """The MCP config docs/kinds/activeobs.md recommends, for each CLI."""
    env = {"HOME": str(home), "PATH": f"{NODE_BIN}:/usr/bin:/bin", "LANG": "C.UTF-8"}
    if agent == "claude-code":
        config = home / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"observe": {"type": "http", "url": url}}}))
        argv = [
            str(NODE_BIN / "claude"),
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--model",
            "claude-opus-4-8",
            "--tools",
            "",
            "--mcp-config",
            str(config),
            "--strict-mcp-config",
            "--allowedTools",
            "mcp__observe__observe",
        ]
        env |= {
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "ANTHROPIC_BASE_URL": model_url,
            "ANTHROPIC_API_KEY": "k",
            "MCP_CONNECTION_NONBLOCKING": "false",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        message = {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "Look."}]}}
        return argv, env, (json.dumps(message) + "\n").encode()
    codex_home = home / ".codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        f'model = "gpt-test"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\nname = "scripted"\n'
        f'base_url = "{model_url}/v1"\nenv_key = "SCRIPTED_API_KEY"\nwire_api = "responses"\n\n'
        f'[mcp_servers.observe]\nurl = "{url}"\nrequired = true\ndefault_tools_approval_mode = "approve"\n'
        f'http_headers = {{ Connection = "close" }}\n'
    )
    argv = [
        str(NODE_BIN / "codex"),
        "exec",
        "--json",
        "--skip-git-repo-check",
        "-s",
        "danger-full-access",
        "-c",
        "features.shell_tool=false",
        "-c",
        "features.view_image=false",
        "-",
    ]
    return argv, env | {"CODEX_HOME": str(codex_home), "SCRIPTED_API_KEY": "k"}, b"Look."


@pytest.mark.e2e
@pytest.mark.parametrize("sandboxed", [False, True], ids=["plain", "bwrap"])
@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_real_cli_observes_over_http(tmp_path, agent, sandboxed):
    import subprocess
    from urllib.parse import urlparse

    from agent_eval.engine.sandbox import Sandbox, SandboxSpec
    from agent_eval.scripted import ScriptedServer, has_image

    scene = seam_scene(60)
    scene.save(tmp_path / "scene.json")
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir(), home.mkdir()
    scenario = {
        "turns": [
            {"call": "observe", "input": {"frame_index": 10, "angle_deg": 355}},
            {"call": "observe", "input": {"frame_index": 99, "angle_deg": 0}},
            {"final": "seen: {last_tool_output} " + FINAL},
        ]
    }
    with (
        ObservationServer(tmp_path / "scene.json", tmp_path / "observations") as obs,
        ScriptedServer(scenario) as model,
    ):
        argv, env, stdin = cli_command(agent, obs.url, model.url, home)
        endpoints = [urlparse(model.url).netloc, obs.endpoint]
        with Sandbox(
            SandboxSpec(workdir=work, home=home, env=env, endpoints=endpoints), kind="bwrap" if sandboxed else "none"
        ) as sandbox:
            argv, env = sandbox.wrap(argv)
            done = subprocess.run(
                argv, input=stdin, cwd=work, env=env, capture_output=True, timeout=120, pass_fds=sandbox.pass_fds
            )
        requests = model.main_requests()
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert [r.outcome for r in requests][-1] == "final" and has_image(requests[1])
    assert "out of range" in done.stdout.decode() and FINAL.replace('"', '\\"') in done.stdout.decode()
    assert b"ERROR rmcp" not in done.stderr
    entries = [json.loads(line) for line in (tmp_path / "observations" / "observations.jsonl").read_text().splitlines()]
    assert [(e["ok"], e["request"]["frame_index"]) for e in entries] == [(True, 10), (False, 99)]
    assert (tmp_path / "observations" / "001-f0010-a355.0.png").is_file()
