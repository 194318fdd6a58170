"""What an agent may call, in CLI-neutral terms: the contract between the kinds (which offer tools) and
the agent adapters (which map them onto each CLI's switches)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class McpServer:
    """A tool server one agent session may use: stdio (`command`) inside the sandbox, or HTTP
    (`url`) served from outside it (then its host:port is allowlisted for that item only)."""

    name: str
    tools: tuple[str, ...]
    command: tuple[str, ...] | None = None
    url: str | None = None


@dataclass(frozen=True)
class ToolSet:
    """What the agent may call, in CLI-neutral terms; each adapter maps it onto its own switches."""

    shell: bool = False
    view_file: bool = False
    mcp: tuple[McpServer, ...] = ()
