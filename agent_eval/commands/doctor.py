"""`agent-eval doctor`: is this machine ready to run an agent? A line per check, a fix per failure."""

from __future__ import annotations

import os
import sys

import click
from rich.console import Console

from agent_eval.agents import get_agent
from agent_eval.agents import registry as agent_registry
from agent_eval.agents.base import AuthMissing
from agent_eval.engine.sandbox import DoctorCheck, check_sandbox


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
            from agent_eval.engine.gateway.credential_check import check_credential_hidden

            checks.append(check_credential_hidden(agent, auth))
    except AuthMissing as error:
        checks.append(
            DoctorCheck(f"{name}: credential found", False, str(error).split(". ", 1)[0], str(error).split(". ", 1)[-1])
        )
    return checks


def print_checks(console: Console, checks: list[DoctorCheck]) -> None:
    for check in checks:
        mark = "[green]ok  [/]" if check.ok else "[red]FAIL[/]"
        console.print(f"{mark} {check.name}: {check.detail}", highlight=False)
        if not check.ok and check.fix:
            console.print(f"     fix: {check.fix}", highlight=False)


@click.command("doctor")
@click.option(
    "--agent",
    "agents",
    type=click.Choice(agent_registry.names()),
    multiple=True,
    help="Only fail for what this agent needs (repeatable). Default: both.",
)
@click.option("--no-sandbox-check", is_flag=True, help="Skip the sandbox checks (for --sandbox none machines).")
def command(agents, no_sandbox_check):
    """Check the CLIs, credentials, the OS sandbox and the tools' Python; exit 1 if a needed check fails."""
    console = Console()
    wanted = list(agents) or list(agent_registry.names())
    checks = [check for name in wanted for check in agent_checks(name, sandbox=not no_sandbox_check)]
    if not no_sandbox_check:
        checks += check_sandbox()
    print_checks(console, checks)
    failed = [c for c in checks if not c.ok]
    console.print(f"\n{len(checks) - len(failed)} of {len(checks)} checks passed.")
    sys.exit(1 if failed else 0)
