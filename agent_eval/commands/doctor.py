"""`agent-eval doctor`: is this machine ready to run an agent? A line per check, a fix per failure."""

from __future__ import annotations

import os
import sys

import click
from rich.console import Console

from agent_eval.agents import registry as agent_registry
from agent_eval.commands.usererrors import user_errors
from agent_eval.engine.machine_check import machine_checks
from agent_eval.engine.sandbox import DoctorCheck


def print_checks(console: Console, checks: list[DoctorCheck]) -> None:
    for check in checks:
        mark = "[green]ok  [/]" if check.ok else "[red]FAIL[/]"
        console.print(f"{mark} {check.name}: {check.detail}", highlight=False, soft_wrap=True)
        if not check.ok and check.fix:
            console.print(f"     fix: {check.fix}", highlight=False, soft_wrap=True)


@click.command("doctor")
@click.option(
    "--agent",
    "agents",
    type=click.Choice(agent_registry.names()),
    multiple=True,
    help="Only fail for what this agent needs (repeatable). Default: both. With --live: the one to try.",
)
@click.option("--no-sandbox-check", is_flag=True, help="Skip the sandbox checks (for --sandbox none machines).")
@click.option(
    "--live",
    is_flag=True,
    help="Instead of the checks above, run one tiny real item end to end (sandbox, gateway, your credential; a few "
    "cents at most): credential, model, effort, image at the API, usage and cost, latency, CLI version. Run it "
    "before a long sweep (with --no-sandbox-check: unsandboxed, as `run --sandbox none`).",
)
@click.option("--model", default=None, help="With --live: the model to try (e.g. claude-opus-4-8, gpt-5.5).")
@click.option("--effort", default=None, help="With --live: the effort to try (as `run --effort`).")
@click.option(
    "--judge-model",
    default=None,
    help="With --live: also check this judge model (as `run --judge-model`) with one call: credential, model, "
    "an answer with text, usage and cost, latency. Alone (no --agent), only the judge.",
)
@user_errors
def command(agents, no_sandbox_check, live, model, effort, judge_model):
    """Check the CLIs, credentials, the OS sandbox and the tools' Python; exit 1 if a needed check fails.
    With --live, one real model call through everything a run uses, and the exact fix for what fails."""
    console = Console()
    if judge_model and not live:
        raise click.UsageError("--judge-model is checked by a real call: add --live")
    if live:
        from agent_eval.engine.live_check import judge_live_check, live_check

        if (len(agents) != 1 or not model) and not (judge_model and not agents and not model):
            raise click.UsageError("--live needs one --agent and a --model (and takes --effort), or a --judge-model")
        results = []
        if agents:
            results.append(
                live_check(agents[0], model, effort, dict(os.environ), "none" if no_sandbox_check else "bwrap")
            )
        if judge_model:
            results.append(judge_live_check(judge_model, dict(os.environ)))
        checks = []
        for result in results:
            console.print(result.headline, highlight=False, soft_wrap=True)
            print_checks(console, result.checks)
            checks += result.checks
    else:
        checks = machine_checks(list(agents) or list(agent_registry.names()), sandbox=not no_sandbox_check)
        print_checks(console, checks)
    failed = [c for c in checks if not c.ok]
    ready = " Ready for a long run." if live and not failed else ""
    console.print(f"\n{len(checks) - len(failed)} of {len(checks)} checks passed.{ready}")
    sys.exit(1 if failed else 0)
