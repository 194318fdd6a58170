"""The real CLIs inside the real sandbox: each reaches the (scripted) model, Claude Code accepts bypassPermissions,
Codex's login shell has the tools' Python."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from agent_eval.engine.sandbox import Sandbox
from support.sandboxes import BIN, spec, tools_python_bin

SHELL_SCENARIO = {
    "turns": [
        {
            "call": "shell",
            "input": {"command": "python3 -c 'import os, sys, PIL, numpy; print(sys.executable, os.getuid())'"},
        },
        {"final": "<answer>{last_tool_output}</answer>"},
    ]
}


@pytest.mark.e2e
def test_codex_in_the_sandbox_reaches_the_model_and_its_login_shell_has_the_tools_python(world):
    from agent_eval.scripted import ScriptedServer

    with ScriptedServer(SHELL_SCENARIO) as srv:
        codex_home = world["home"] / "codex"
        codex_home.mkdir()
        (codex_home / "config.toml").write_text(
            'model = "scripted"\nmodel_provider = "scripted"\n[model_providers.scripted]\n'
            f'name = "scripted"\nbase_url = "{srv.url}/v1"\nenv_key = "SCRIPTED_API_KEY"\nwire_api = "responses"\n'
        )
        env = {"CODEX_HOME": str(codex_home), "SCRIPTED_API_KEY": "x"}
        with Sandbox(spec(world, endpoints=[srv.url], env=env)) as sb:
            argv, env = sb.wrap(
                [
                    str(BIN / "codex"),
                    "exec",
                    "--json",
                    "--skip-git-repo-check",
                    "--dangerously-bypass-approvals-and-sandbox",
                    "go",
                ]
            )
            r = subprocess.run(
                argv,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                stdin=subprocess.DEVNULL,
                pass_fds=sb.pass_fds,
            )
    assert "/bin/bash -lc" in r.stdout  # Codex really used a login shell
    answer = re.findall(r"<answer>(.*?)</answer>", r.stdout)
    assert answer and answer[-1].endswith(" 1000"), r.stdout[-2000:] + r.stderr[-2000:]
    assert Path(answer[-1].split()[0]).parent == Path(tools_python_bin())


@pytest.mark.e2e
def test_claude_in_the_sandbox_accepts_bypass_permissions_and_reaches_the_model(world):
    from agent_eval.scripted import ScriptedServer

    with ScriptedServer(SHELL_SCENARIO) as srv:
        env = {
            "ANTHROPIC_BASE_URL": srv.url,
            "ANTHROPIC_API_KEY": "x",
            "CLAUDE_CONFIG_DIR": str(world["home"] / ".claude"),
        }
        with Sandbox(spec(world, endpoints=[srv.url], env=env)) as sb:
            argv, env = sb.wrap(
                [
                    str(BIN / "claude"),
                    "-p",
                    "go",
                    "--output-format",
                    "stream-json",
                    "--verbose",
                    "--permission-mode",
                    "bypassPermissions",
                    "--tools",
                    "Bash",
                ]
            )
            r = subprocess.run(
                argv,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                stdin=subprocess.DEVNULL,
                pass_fds=sb.pass_fds,
            )
    answer = re.findall(r"<answer>(.*?)</answer>", r.stdout)
    assert answer and answer[-1].endswith(" 1000"), r.stdout[-2000:] + r.stderr[-2000:]
