"""What one agent CLI process left: its events, exit, timing and why it stopped."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SILENT = "silent"  # `stopped_because` of a session the silent-session lease stopped (the attempt goes on)
TURN_OVER = "turn over"  # `stopped_because` of a session whose turn the kind ended (ItemSetup.turn_over): no failure


@dataclass
class ProcessResult:
    exit_code: int | None
    # the last events (the whole stream is in transcript.jsonl)
    events: list[dict[str, Any]] = field(default_factory=list)
    malformed_lines: int = 0
    timed_out: bool = False
    stopped_because: str | None = None  # set when `watch` or `stop_when` asked to stop early: a status, or SILENT
    stop_detail: str | None = None  # that stop in words (the item's error when it ends the item)
    interrupted: bool = False
    elapsed_s: float = 0.0
    stderr_tail: str = ""
    proxy_refused: list[str] = field(default_factory=list)  # what the sandbox's proxy refused meanwhile
    upstream_failure: str | None = None  # the gateway's verdict when the provider failed the item
    held_s: float = 0.0  # time its requests waited at the gateway for the provider (rate limits, outages)
    context_full: bool = False  # the session ended because the model's context window was full (the agent's say)
