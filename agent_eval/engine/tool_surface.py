"""The tool-surface check of one agent session, before its first action: the tools, permission mode, MCP servers and
version the CLI reports at start (agents/surface.py) must be what the item's ToolSet implies; otherwise the session
is stopped with `tool_surface_error`, which stops the run (every item would meet the same).

Until the check has passed nothing can act: the item's model requests wait at the run's gateway (so no answer, and
with it no tool call, exists yet), and calls to the item's MCP tools wait at the MCP host (VISTA's `calls_enabled`).
Claude Code reports its surface in its stream (`system/init`), Codex only in its first model request, which the
gateway hands to `admit` before it goes on."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator

from agent_eval.agents.base import Agent
from agent_eval.agents.surface import ToolSurface, surface_mismatch
from agent_eval.engine.gateway import Lease
from agent_eval.engine.gateway.traffic import decode
from agent_eval.tools.mcp_http import McpHost
from agent_eval.tools.toolset import ToolSet

TOOL_SURFACE_ERROR = "tool_surface_error"  # the item's status (datamodel/records.py)
REPORT_WAIT_S = 60.0  # how long a tool call waits for the CLI's report before it is refused
# How long the model requests of a CLI that reports in its stream wait for that report at the gateway. It comes
# before the first request (Claude Code's init); a stream that arrives late (a wrapper holding a line back) lets
# them go after this, and the check still runs when the report comes, its MCP calls held till then.
STREAM_REPORT_WAIT_S = 30.0  # Claude Code's init waits for its MCP servers: 8-16 s seen on a busy machine


class SurfaceGate:
    """One session's check; the gateway's `RequestGate` and the MCP host's `CallGate`."""

    def __init__(self, agent: Agent, expected: ToolSurface):
        self.agent, self.expected = agent, expected
        self.reported: ToolSurface | None = None
        self.failure: str | None = None
        self._decided = threading.Event()
        self._lock = threading.Lock()
        self._requests_let_go = False  # a stream report did not come in time: the gateway stopped waiting for it

    @property
    def pending(self) -> bool:
        """For the gateway: its requests are to be read and decided on (or waited on, or refused) before they go on."""
        return (not self._decided.is_set() and not self._requests_let_go) or self.failure is not None

    @property
    def open(self) -> bool:
        return self._decided.is_set() and self.failure is None

    def decide(self, reported: ToolSurface | None, failure: str | None = None) -> None:
        with self._lock:
            if self._decided.is_set():
                return
            self.reported = reported
            self.failure = failure or (
                surface_mismatch(self.expected, reported, self.agent.name) if reported is not None else None
            )
            self._decided.set()

    def verdict(self) -> str:
        """For the item's record of its sessions."""
        if self.failure:
            return self.failure
        if self.reported is not None:
            return f"checked: {self.reported.summary()}"
        return "not checked: the CLI reported nothing before it ended"

    # -- from the session's stream (the watcher) and the process loop

    def on_event(self, event: dict) -> str | None:
        if not self._decided.is_set() and self.agent.surface_reported_in == "stream":
            reported = self.agent.surface_from_event(event)
            if reported is not None:
                self.decide(reported)
        return self.stop_reason()

    def stop_reason(self) -> str | None:
        return TOOL_SURFACE_ERROR if self.failure else None

    # -- the gateway: an item's model request, before it goes upstream

    async def admit(self, body: bytes, encoding: str | None, user_agent: str) -> str | None:
        """None: send it on. Else why not (the gateway refuses it). Waits for a report the stream brings."""
        if self._decided.is_set():
            return self.failure
        if self.agent.surface_reported_in == "request":
            reported, failure = await asyncio.to_thread(self._read_request, body, encoding, user_agent)
            self.decide(reported, failure)
        elif not self._requests_let_go and not await asyncio.to_thread(self._decided.wait, STREAM_REPORT_WAIT_S):
            self._requests_let_go = True  # no report yet: requests go on; the MCP calls stay held until it comes
            return None
        return self.failure

    def _read_request(
        self, body: bytes, encoding: str | None, user_agent: str
    ) -> tuple[ToolSurface | None, str | None]:
        try:
            data = json.loads(decode(body, encoding))
        except Exception as error:  # any codec's or JSON's error
            return None, (
                f"tool surface: cannot read {self.agent.name}'s first model request to see the tools it offers "
                f"({encoding or 'plain'}: {type(error).__name__}: {error})"
            )
        reported = self.agent.surface_from_request(data if isinstance(data, dict) else {}, user_agent)
        return reported, None

    # -- the MCP host: a tool call, before it runs

    def wait(self, timeout: float) -> str | None:
        """None once the check has passed; else why the call (or request) is refused."""
        if not self._decided.wait(timeout):
            self.decide(None, f"tool surface: {self.agent.name} reported none before its first action was due")
        return self.failure


@contextlib.contextmanager
def surface_gate(agent: Agent, tools: ToolSet, version: str | None, lease: Lease) -> Iterator[SurfaceGate]:
    """A session's gate, in force at the item's gateway lease and its MCP mounts while the session runs."""
    gate = SurfaceGate(agent, agent.expected_surface(tools, version))
    mounts = [m for m in (McpHost.mount_at(s.url) for s in tools.mcp if s.url) if m is not None]
    lease.gate = gate
    for mount in mounts:
        mount.gate = gate
    try:
        yield gate
    finally:
        lease.gate = None
        for mount in mounts:
            mount.gate = None
