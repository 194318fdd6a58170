"""The hand-off (VISTA's context policy, `--context handoff:N`), offered to any kind whose agent keeps notes: the
CLI's own compaction is off; once the model's context reaches N tokens (as the gateway sees each request), the
kind's next tool answer asks the agent to bring its notes up to date and stop, and a fresh session goes on from
the notes. Thread-safe: the gateway reports from its thread, the tools answer from theirs."""

from __future__ import annotations

import threading

MIN_TOKENS = 1000


def parse_context(value: str | None) -> int | None:
    """`native` (None: the CLI compacts on its own) or `handoff:TOKENS`; ValueError naming the flag otherwise."""
    context = str(value or "native")
    if context == "native":
        return None
    kind, _, tokens = context.partition(":")
    if context == "handoff:cli":
        raise ValueError("--context handoff:cli is ARC-AGI-3's only; give native or handoff:TOKENS")
    if kind != "handoff" or not tokens.isdigit() or int(tokens) < MIN_TOKENS:
        raise ValueError(f"--context must be native or handoff:TOKENS (at least {MIN_TOKENS}), got {context!r}")
    return int(tokens)


class Handoff:
    def __init__(self, tokens: int, message: str):
        self.tokens = tokens
        self.message = message  # what the agent is asked: update the notes, stop (the kind's words)
        self.reached: int | None = None  # the context when it passed the threshold (this session)
        self.told = False  # a tool answer has asked the agent to stop
        self._lock = threading.Lock()

    def seen(self, tokens: int) -> None:
        """The model's context at one of its requests."""
        with self._lock:
            if tokens >= self.tokens and not self.told:
                self.reached = max(self.reached or 0, tokens)

    def due(self) -> str | None:
        """The stop request for the next tool answer, once, when the threshold was passed; else None."""
        with self._lock:
            if self.reached is None or self.told:
                return None
            self.told = True
            return f"Your context reached {self.reached} tokens. {self.message}"

    def reason(self, ran_out_of_context: bool) -> str | None:
        """Why a fresh session goes on (the agent was asked to stop, or its CLI ran out of context), or None."""
        if self.told:
            return f"hand-off: the context reached {self.reached} tokens (--context handoff:{self.tokens})"
        return "hand-off: the CLI ran out of context" if ran_out_of_context else None

    def begin_session(self) -> None:
        with self._lock:
            self.reached, self.told = None, False
