"""The tool surface: what an agent CLI offers the model and how it runs its tools, as the CLI itself reports it at
start (Claude Code's `system/init` event; Codex's first model request), against what the item's ToolSet implies
(each adapter's `expected_surface`). A difference is a clear error before the first action (engine/tool_surface.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ToolSurface:
    """None in a field: the CLI does not report it (never compared)."""

    tools: tuple[str, ...]  # the tool names the model is offered, sorted (Codex namespace functions as ns__name)
    version: str | None = None
    permission_mode: str | None = None
    mcp_servers: tuple[tuple[str, str], ...] | None = None  # (name, status), sorted; expected: each "connected"

    def summary(self) -> str:
        """One line for the item's record of its sessions."""
        parts = [f"{len(self.tools)} tool(s)"]
        if self.mcp_servers is not None:
            parts.append("MCP " + (", ".join(f"{name} {status}" for name, status in self.mcp_servers) or "none"))
        if self.permission_mode is not None:
            parts.append(f"permission mode {self.permission_mode}")
        if self.version is not None:
            parts.append(f"version {self.version}")
        return ", ".join(parts)


def surface(tools, version: str | None = None, permission_mode: str | None = None, mcp_servers=None) -> ToolSurface:
    """A ToolSurface from any iterables (sorted, so two reports of the same surface are equal)."""
    servers = None if mcp_servers is None else tuple(sorted((str(n), str(s)) for n, s in mcp_servers))
    return ToolSurface(tuple(sorted(set(map(str, tools)))), version, permission_mode, servers)


def surface_mismatch(expected: ToolSurface, reported: ToolSurface, cli: str) -> str | None:
    """What differs, offered against expected, in words (None: the same)."""
    problems = []
    if reported.tools != expected.tools:
        extra = sorted(set(reported.tools) - set(expected.tools))
        missing = sorted(set(expected.tools) - set(reported.tools))
        diff = ([f"extra: {', '.join(extra)}"] if extra else []) + (
            [f"missing: {', '.join(missing)}"] if missing else []
        )
        problems.append(
            f"it offers the model {_names(reported.tools)} but the item's tool set implies {_names(expected.tools)} "
            f"({'; '.join(diff)})"
        )
    if expected.mcp_servers is not None and reported.mcp_servers is not None:
        if reported.mcp_servers != expected.mcp_servers:
            problems.append(
                f"its MCP servers are {_servers(reported.mcp_servers)}, expected {_servers(expected.mcp_servers)}"
            )
    for what, want, got in (
        ("permission mode", expected.permission_mode, reported.permission_mode),
        ("version", expected.version, reported.version),
    ):
        if want is not None and got != want:
            problems.append(f"its {what} is {got!r}, expected {want!r}" + (" (pinned)" if what == "version" else ""))
    if not problems:
        return None
    return f"tool surface: {cli} reported at start what the run did not ask for: " + "; ".join(problems)


def _names(tools: tuple[str, ...]) -> str:
    return "[" + ", ".join(tools) + "]" if tools else "no tools"


def _servers(servers: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{name} {status}" for name, status in servers) or "none"
