"""Agent adapters, one module per CLI."""
from __future__ import annotations

from agent_eval.agents.base import Agent


def get_agent(name: str) -> Agent:
    if name == "claude-code":
        from agent_eval.agents.claude_code.adapter import ClaudeCode
        return ClaudeCode()
    if name == "codex":
        from agent_eval.agents.codex.adapter import Codex
        return Codex()
    raise ValueError(f"unknown agent {name!r}")
