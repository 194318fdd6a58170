"""Which agent CLIs exist: name -> "module:Class". Adding a CLI is one package under agents/ and one line here.

Everything an adapter knows about its CLI (efforts, provider, scripted-model env, sandbox policy
key = its name) is an attribute of the adapter class, read through get_agent().
"""

from __future__ import annotations

import importlib

from agent_eval.agents.base import Agent

AGENTS: dict[str, str] = {
    "claude-code": "agent_eval.agents.claude_code.adapter:ClaudeCode",
    "codex": "agent_eval.agents.codex.adapter:Codex",
}


def names() -> tuple[str, ...]:
    """For --agent choices: no adapter is imported to list them."""
    return tuple(sorted(AGENTS))


def agent_class(name: str) -> type[Agent]:
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}")
    module, _, attr = AGENTS[name].partition(":")
    return getattr(importlib.import_module(module), attr)


def get_agent(name: str) -> Agent:
    return agent_class(name)()


def efforts(name: str) -> tuple[str, ...]:
    return agent_class(name).efforts


def efforts_by_agent() -> dict[str, tuple[str, ...]]:
    """Every agent CLI's effort values, for RunConfig.validate()."""
    return {name: efforts(name) for name in AGENTS}


def scripted_environ(agent: str, url: str, key: str = "scripted-key") -> dict[str, str]:
    """A custom endpoint as a user would set it; HOME points nowhere so no real login leaks in."""
    return agent_class(agent).scripted_environ(url, key)
