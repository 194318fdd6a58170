"""Agent adapters, one package per CLI (claude_code/, codex/: adapter + event parser); registry.py names them."""

from __future__ import annotations

from agent_eval.agents.registry import get_agent

__all__ = ["get_agent"]
