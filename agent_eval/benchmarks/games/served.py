"""The game's tools as the agent reaches them: the kind's MCP server mounted on the shared host for the item's
lifetime, offered in the mode's tool set (mode python adds the shell and the file viewer), and the frames a mode
python agent reads mirrored read-only into its working directory. Every game kind serves its game this way."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent_eval.benchmarks.games.frames import FRAMES_DIR
from agent_eval.tools.mcp_http import McpHost
from agent_eval.tools.toolset import McpServer, ToolSet

if TYPE_CHECKING:  # the SDK is slow to import: the host loads it
    from mcp.server.mcpserver import MCPServer

SERVER_NAME = "game"  # every game kind's MCP server: its tools are mcp__game__*


@dataclass(frozen=True)
class Served:
    """What the item's ItemSetup takes from the served game: its tool set and the host endpoints to allow."""

    tools: ToolSet
    endpoints: list[str] = field(default_factory=list)


def serve_game(
    stack: contextlib.ExitStack, name: str, offered: Sequence[str], build: Callable[[], MCPServer], mode: str
) -> Served:
    """The server `build()` makes, mounted as `name` until `stack` closes (nothing offered: nothing mounted)."""
    servers: tuple[McpServer, ...] = ()
    endpoints: list[str] = []
    if offered:
        mount = stack.enter_context(McpHost.shared().mount(build, name=name))
        servers, endpoints = (McpServer(name, tuple(offered), url=mount.url),), [mount.endpoint]
    toolset = ToolSet(shell=True, view_file=True, mcp=servers) if mode == "python" else ToolSet(mcp=servers)
    return Served(toolset, endpoints)


def frames_mirror(work: Path, mode: str) -> Path | None:
    """Where mode python's agent reads the frames (read-only, as they are archived); no mirror in other modes."""
    if mode != "python":
        return None
    mirror = work / FRAMES_DIR
    mirror.mkdir(exist_ok=True)
    return mirror
