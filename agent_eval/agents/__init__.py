"""Agent adapters, one module per CLI."""
from __future__ import annotations

from .base import Agent


def get_agent(name: str) -> Agent:
    if name == "claude-code":
        from .claude_code import ClaudeCode
        return ClaudeCode()
    if name == "codex":
        from .codex import Codex
        return Codex()
    raise ValueError(f"unknown agent {name!r}")
