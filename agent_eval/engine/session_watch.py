"""What the harness watches while one agent session runs, besides the adapter's own watcher: the session's id
recorded the moment the CLI names it (engine/sessions.py), the tool-surface check (engine/tool_surface.py), and the
silent-session lease (`run --silent-minutes`): a session in which no tool call completed for that long is stopped,
and the attempt goes on in a continued or fresh session (engine/sessions.py, `go_on_after_silence`)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

from agent_eval.agents.base import Agent
from agent_eval.benchmarks.base import ItemSetup
from agent_eval.datamodel.config import RunConfig
from agent_eval.datamodel.itemdir import ItemDir
from agent_eval.datamodel.process_result import SILENT, TURN_OVER, ProcessResult
from agent_eval.datamodel.sessions import append_session
from agent_eval.engine.gateway import Lease
from agent_eval.engine.sessions import SessionStart, watching
from agent_eval.engine.tool_surface import SurfaceGate, surface_gate


class SilentLease:
    """Expires when no tool call has completed for `minutes` (from the CLI's stream) while none is running (a call
    still running holds the clock, as VISTA's decision lease does), not counting the provider's waits at the gateway."""

    def __init__(self, agent: Agent, minutes: float, held: Callable[[], float], clock=time.monotonic):
        self.agent, self.minutes, self.held, self.clock = agent, minutes, held, clock
        self.completed = 0
        self.running = 0
        self._since: float | None = None  # the last completed call, or when the session could first act
        self._held_since = 0.0

    def start(self) -> None:
        """The clock starts once the CLI is up and its tool surface checked (its start-up is not silence)."""
        if self._since is None:
            self._since, self._held_since = self.clock(), self.held()

    def observe(self, event: dict) -> None:
        started, completed = self.agent.tool_activity(event)
        self.running = max(0, self.running + started - completed)
        if completed:
            self.completed += completed
            self._since, self._held_since = self.clock(), self.held()

    def silent_s(self) -> float:
        if self._since is None:
            return 0.0
        return self.clock() - self._since - (self.held() - self._held_since)

    def expired(self) -> bool:
        return self._since is not None and self.running == 0 and self.silent_s() >= self.minutes * 60

    def detail(self) -> str:
        return (
            f"silent for {self.minutes:g} min: no tool call completed in this session for {self.silent_s() / 60:.2f} "
            f"min (--silent-minutes {self.minutes:g}; {self.completed} completed before)"
        )


class SessionWatch:
    """The session's `watch` (each event) and `stop_when` (a few times a second) for run_process."""

    def __init__(
        self,
        agent: Agent,
        item_dir: ItemDir,
        start: SessionStart,
        gate: SurfaceGate,
        lease: SilentLease | None,
        turn_held: Callable[[], bool] = lambda: False,
    ):
        self.item_dir, self.start, self.gate, self.lease = item_dir, start, gate, lease
        self.turn_held = turn_held  # the gateway holds a request of a session whose turn is over
        self._inner = watching(agent, item_dir, start)

    def watch(self, event: dict) -> str | None:
        if self.lease is not None:
            self.lease.observe(event)
        return self.gate.on_event(event) or self._inner(event)

    def stop_when(self) -> str | None:
        if self.gate.stop_reason():  # decided at the gateway (a report in the first request)
            return self.gate.stop_reason()
        if self.turn_held():
            return TURN_OVER
        if self.lease is not None and self.gate.open:
            self.lease.start()
            if self.lease.expired():
                return SILENT
        return None

    def finish(self, result: ProcessResult) -> None:
        """The stop in words on the result; the check's verdict in the item's record of its sessions."""
        if result.stopped_because == self.gate.stop_reason() and self.gate.failure:
            result.stop_detail = self.gate.failure
        elif result.stopped_because == SILENT and self.lease is not None:
            result.stop_detail = self.lease.detail()
        append_session(self.item_dir.root, {"n": self.start.record.n, "tool_surface": self.gate.verdict()})


@contextlib.contextmanager
def watched_session(
    agent: Agent,
    item_dir: ItemDir,
    start: SessionStart,
    setup: ItemSetup,
    config: RunConfig,
    lease: Lease,
    held: Callable[[], float],
) -> Iterator[SessionWatch]:
    """In force while the session's process runs: its gate at the item's gateway lease and MCP mounts."""
    with surface_gate(agent, setup.tools, config.cli_version, lease) as gate:
        silent = SilentLease(agent, config.silent_minutes, held) if config.silent_minutes else None
        lease.ledger.turn_over, lease.ledger.turn_held = setup.turn_over, False  # a new session's turn begins
        yield SessionWatch(agent, item_dir, start, gate, silent, lambda: lease.ledger.turn_held)
