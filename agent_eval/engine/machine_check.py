"""`agent-eval doctor`'s checks (without --live): is this machine ready to run an agent? Per agent CLI:
installed, its credential found and hidden from the sandbox; then the sandbox itself (sandbox_check.py)."""

from __future__ import annotations

import os

from agent_eval.agents import get_agent
from agent_eval.agents.base import AuthMissing
from agent_eval.engine.gateway.credential_check import check_credential_hidden
from agent_eval.engine.sandbox import DoctorCheck
from agent_eval.engine.sandbox_check import check_sandbox


def machine_checks(agents: list[str], sandbox: bool = True) -> list[DoctorCheck]:
    """The checks for these agents, and the sandbox's unless `sandbox` is False (a --sandbox none machine)."""
    checks = [check for name in agents for check in agent_checks(name, sandbox)]
    return checks + (check_sandbox() if sandbox else [])


def agent_checks(name: str, sandbox: bool = True) -> list[DoctorCheck]:
    agent = get_agent(name)
    version = agent.version(run=True)
    checks = [
        DoctorCheck(
            f"{name}: CLI installed",
            version not in ("not installed", "unknown"),
            f"{agent.executable}: {version}",
            "run `make setup` (npm ci installs the pinned CLIs)",
        )
    ]
    try:
        auth = agent.find_auth(dict(os.environ))
        detail = f"{auth.kind} via {', '.join(auth.describe()['credential'])}; endpoint {auth.endpoint_host}"
        checks.append(DoctorCheck(f"{name}: credential found", True, detail))
        if sandbox:
            checks.append(check_credential_hidden(agent, auth))
    except AuthMissing as error:
        checks.append(
            DoctorCheck(f"{name}: credential found", False, str(error).split(". ", 1)[0], str(error).split(". ", 1)[-1])
        )
    return checks
