"""`agent-eval doctor`: a sandboxed shell, set up exactly as a run sets up an item, cannot find the
user's credential (environment, every process's environment, the private home's files)."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from agent_eval.agents.base import Agent, Auth, ItemContext
from agent_eval.agents.registry import agent_class
from agent_eval.engine.gateway.credentials import secret_env, secret_values
from agent_eval.engine.gateway.server import Gateway
from agent_eval.engine.sandbox import DoctorCheck, Sandbox, SandboxError, SandboxSpec
from agent_eval.tools.toolset import ToolSet

# What an agent would try: its environment, every process's, and every file its home holds.
SEARCH = (
    "env; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; echo; done; "
    'find "$HOME" -type f -exec cat {} + 2>/dev/null'
)


def what_remains_inside(agent: str, auth: Auth) -> str:
    """In words, for doctor and docs: what of the credential the sandbox holds."""
    if any(auth.env.get(name) for name in secret_env()):
        return "nothing of the key: a per-item dummy (sk-agent-eval-gateway-...) and the gateway's loopback URL"
    return agent_class(agent).login_inside


def check_credential_hidden(agent: Agent, auth: Auth) -> DoctorCheck:
    name = f"{agent.name}: a sandboxed shell cannot find the credential"
    secrets = secret_values(auth)
    fix = "report this as a bug: sandbox/policy.yaml or agent_eval/engine/gateway/credentials.py lets it in"
    try:
        with (
            tempfile.TemporaryDirectory(prefix="agent-eval-doctor-", dir=Path.home()) as scratch,
            Gateway(agent.name, auth) as gateway,
            gateway.lease() as lease,
        ):
            work, home = Path(scratch) / "work", Path(scratch) / "home"
            work.mkdir()
            home.mkdir()
            agent.copy_credentials(lease.auth, home)
            ctx = ItemContext(
                item_id="doctor",
                model="doctor",
                effort=None,
                max_turns=None,
                prompt="",
                workdir=work,
                home=home,
                tools=ToolSet(shell=True),
                inline_images=[],
                auth=lease.auth,
            )
            invocation = agent.prepare(ctx)
            spec = SandboxSpec(work, home, endpoints=lease.auth.endpoints, env=invocation.env)
            with Sandbox(spec) as sandbox:
                argv, env = sandbox.wrap(["/bin/bash", "-lc", SEARCH])
                found = subprocess.run(argv, env=env, capture_output=True, timeout=60, pass_fds=sandbox.pass_fds).stdout
    except (SandboxError, OSError, subprocess.SubprocessError, RuntimeError) as e:
        return DoctorCheck(name, False, f"could not look: {e}", "fix the sandbox checks above first")
    leaked = [s for s in secrets if s.encode() in found]
    looked = lease.token.encode() in found  # the dump really covered the agent's environment and home
    detail = what_remains_inside(agent.name, auth)
    if leaked:
        return DoctorCheck(name, False, f"{len(leaked)} secret value(s) visible inside", fix)
    if not looked:
        return DoctorCheck(name, False, "the search inside saw no part of the agent's environment", fix)
    return DoctorCheck(name, True, f"inside: {detail}")
