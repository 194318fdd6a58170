"""When a game's agent session hands its game on to a fresh session (VISTA's context policy, rung iii/iv): its
context past `--context handoff:N` tokens (the gateway's count), the CLI at its own compaction point (`--context
handoff:cli`), or a tool about to give the N-th image of the session (`--session-images N`: every image the model is
given counts, and the gateway's count of the images a request carries). The first two let the play in flight
happen, then ask the agent to update its notes and stop; at the image cap the tool does nothing and asks the same.
What the next session is told is the kind's. Thread-safe: the gateway reports from its thread, the tools theirs."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

MIN_TOKENS = 1000
CLI_POINT = "handoff:cli"  # --context: the hand-off where the CLI itself would compact

HANDOFF = (
    "Bring your notes up to date now (write_note: GUIDE.md, WORKING.md), then stop and reply with "
    "<answer>HANDOFF</answer>: a fresh session goes on with this game from your notes."
)
# With VISTA's tools (--game-tools vista) the request is VISTA's own checkpoint prompt and names its tools (write_note
# does not exist there). VISTA's backends/claude/mcp_host.py COMPACT_CHECKPOINT_PROMPT:
CHECKPOINT = (
    "Review and update WORKING.md so it preserves relevant existing information and contains the complete "
    "continuation state needed after compaction."
)
HANDOFF_VISTA_TOOLS = (
    f"{CHECKPOINT} Write it with write_working (GUIDE.md with write_guide), then stop and reply with "
    "<answer>HANDOFF</answer>: a fresh player continues from the unchanged game state."
)


def handoff_request(game_tools: str) -> str:
    """What the agent is asked before its session is handed on, in the words of the run's tool style."""
    return HANDOFF_VISTA_TOOLS if game_tools == "vista" else HANDOFF


def parse_context(value: str | None, at_cli: bool = False) -> tuple[int | None, bool]:
    """--context: `native` (None, False: the CLI compacts on its own), `handoff:TOKENS`, or (a kind that hands off
    at the CLI's own compaction point, `at_cli`) `handoff:cli` (None, True); ValueError naming the flag otherwise."""
    context = str(value or "native")
    if context == "native" or (at_cli and context == CLI_POINT):
        return None, context == CLI_POINT
    if context == CLI_POINT:
        raise ValueError("--context handoff:cli is ARC-AGI-3's only; give native or handoff:TOKENS")
    kind, _, tokens = context.partition(":")
    if kind != "handoff" or not tokens.isdigit() or int(tokens) < MIN_TOKENS:
        allowed = f"native, {CLI_POINT} or handoff:TOKENS" if at_cli else "native or handoff:TOKENS"
        raise ValueError(f"--context must be {allowed} (at least {MIN_TOKENS}), got {context!r}")
    return int(tokens), False


def parse_session_images(value) -> int | None:
    """--session-images: None (no cap), or N >= 2 (the hand-off's frame is one); ValueError naming the flag."""
    if value is None:
        return None
    if isinstance(value, bool) or int(value) < 2:
        raise ValueError(f"--session-images must be at least 2 (the hand-off's frame is one), got {value}")
    return int(value)


def within_image_cap(
    handoff: "HandoffState | None",
    images: int,
    answer: Callable[[], Any],
    refused: Callable[[str], Any] | None = None,
) -> Any:
    """A tool's answer that gives about `images` images, unless the session's --session-images cap would be reached:
    then the hand-off's stop instead (`refused(stop)`: the tool's own form; ours a JSON stop), the tool doing
    nothing. What it gave is counted for the session (images_in)."""
    if handoff is not None and (stop := handoff.image_room(images)) is not None:
        return refused(stop) if refused is not None else [json.dumps({"stop": stop})]
    out = answer()
    if handoff is not None:
        handoff.shown(images_in(out))
    return out


def images_in(answer: Any) -> int:
    """The images in our tools' list of parts, or in an MCP result's blocks (VISTA's tools)."""
    parts = getattr(answer, "content", answer)
    if isinstance(parts, str):
        return 0
    return sum(not isinstance(part, str) and getattr(part, "type", "image") == "image" for part in parts)


class HandoffState:
    """One agent session's way to its hand-off. tokens: --context handoff:N; at_cli: --context handoff:cli;
    images_cap: --session-images N; ask: what the agent is asked to do (handoff_request())."""

    def __init__(
        self, tokens: int | None = None, at_cli: bool = False, images_cap: int | None = None, ask: str = HANDOFF
    ):
        self.tokens, self.at_cli, self.images_cap, self.ask = tokens, at_cli, images_cap, ask
        self._lock = threading.RLock()
        self.begin()

    def begin(self) -> None:
        """A session begins (the attempt's first, or a fresh one after a hand-off): nothing asked, nothing shown."""
        with self._lock:
            self.why: str | None = None  # pending: play's next answer asks the agent to stop (the sentence says why)
            self.reason: str | None = None  # the same for the record of sessions
            self.told = False  # the agent has been asked to update its notes and stop
            self.context_at: int | None = None  # the largest context seen past --context handoff:N
            self.images = 0  # images given to the model in this session: tools' answers and attachments
            self.carried = 0  # the most images one model request of this session carried (the gateway's count)
            self.began = time.monotonic()

    # -- the triggers

    def context_seen(self, tokens: int) -> None:
        """The model's context at one answer (the gateway's usage, as it streams by)."""
        with self._lock:
            if self.tokens is not None and tokens >= self.tokens and not self.told:
                self.context_at = max(self.context_at or 0, tokens)
                self.why = f"Your context reached {self.context_at} tokens"
                self.reason = f"the context reached {self.context_at} tokens (--context handoff:{self.tokens})"

    def compaction_point(self, what: str) -> None:
        """The CLI reached its own compaction point (and did not compact): `what` says how it was seen."""
        with self._lock:
            if self.at_cli and not self.told and self.why is None:
                self.why = "Your context is full: it reached the point where your CLI would compact it"
                self.reason = f"the CLI reached its compaction point: {what} (--context handoff:cli)"

    def request_carried(self, images: int, began: float) -> None:
        """A model request that began at `began` (monotonic) carried this many image blocks; one from an
        earlier session (its body read late) does not count for this one."""
        with self._lock:
            if began >= self.began:
                self.carried = max(self.carried, images)

    def shown(self, images: int) -> None:
        with self._lock:
            self.images += images

    def image_room(self, images: int) -> str | None:
        """None when `images` more may be given in this session; else the refusal (the tool gives nothing)."""
        with self._lock:
            if self.images_cap is None or images <= 0:
                return None
            given = max(self.images, self.carried)
            if given + images < self.images_cap:
                return None
            if not self.told:
                self.told = True
                self.reason = f"the session's images reached {given} (--session-images {self.images_cap})"
            return (
                f"No action taken: this session has been given {given} images, and no more than "
                f"{self.images_cap - 1} are given in one session (--session-images {self.images_cap}). {self.ask}"
            )

    # -- what play says

    def stop_now(self) -> str | None:
        """The stop play's answer carries, once a trigger is pending (then the agent counts as told)."""
        with self._lock:
            if self.why is None or self.told:
                return None
            self.told = True
            return f"{self.why}. {self.ask}"

    def next_reason(self, ran_out_of_context: bool) -> str | None:
        """Why a fresh session goes on (the agent was asked to stop, or its CLI ran out of context), or None."""
        with self._lock:
            if self.told:
                return f"hand-off: {self.reason or 'the agent was asked to stop'}"
            return "hand-off: the CLI ran out of context" if ran_out_of_context else None
