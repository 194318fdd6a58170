"""What an agent may call, in CLI-neutral terms: the contract between the kinds (which offer tools) and
the agent adapters (which map them onto each CLI's switches)."""

from __future__ import annotations

from dataclasses import dataclass

# One request per connection: the sandbox's proxy (tinyproxy) serves one request on each client connection and then
# closes it without saying so (it drops the server's `Connection: close`), so a client that keeps the connection for
# its next request (Claude Code does, within milliseconds of an answer) sends it into a connection being closed: it
# never reaches the server, and the client reports ECONNRESET (docs/sandbox.md, "MCP over HTTP").
ONE_REQUEST_PER_CONNECTION = (("Connection", "close"),)


@dataclass(frozen=True)
class McpServer:
    """A tool server one agent session may use: stdio (`command`) inside the sandbox, or HTTP
    (`url`) served from outside it (then its host:port is allowlisted for that item only)."""

    name: str
    tools: tuple[str, ...]
    command: tuple[str, ...] | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ONE_REQUEST_PER_CONNECTION  # what a client sends with every request to `url`


@dataclass(frozen=True)
class ToolSet:
    """What the agent may call, in CLI-neutral terms; each adapter maps it onto its own switches."""

    shell: bool = False
    view_file: bool = False
    mcp: tuple[McpServer, ...] = ()
