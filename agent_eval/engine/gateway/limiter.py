"""One adaptive limiter per run for the requests the gateway sends upstream: concurrency, waits, a breaker.

Every item's model requests pass it. A rate limit (429, 529 overloaded, 503, or a success whose
`*-remaining` header reached 0) lowers the concurrency for everyone to what the provider was
accepting and pauses new requests for the wait the provider asked (`retry-after`, `retry-after-ms`,
`anthropic-ratelimit-*-reset`, `x-ratelimit-reset-*`); once no limit has been met for `CALM_S` (doubled
each time a raise met a limit at once: the provider's ceiling is probed ever more rarely), each
success at the full limit raises it by one again, up to the run's --jobs. Repeated provider failures
(5xx, cut streams) in a row across items trip a breaker: new requests are paused with a growing
backoff and one request at a time probes until one succeeds.

Hand-written, not a library: aiolimiter is a leaky bucket (a rate, not a concurrency that adapts)
and aiobreaker has no release since 2021; the rules here are small and need the provider's headers.
Everything runs on the gateway's event loop; `snapshot()` may be read from any thread.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Callable

LIMITED_STATUSES = (429, 503, 529)  # the provider asks us to slow down: wait, never counted as its failure
CALM_S = 10.0  # no rate limit met for this long before the limit is raised again
MAX_CALM_S = 300.0  # a raise that met a limit at once doubles the calm needed before the next one
RAISE_EVERY_S = 1.0  # at most one step up per second
DEFAULT_WAIT_S = 1.0  # the pause for everyone after a rate limit that asked no wait (each request backs off too)
MAX_WAIT_S = 60.0  # a header asking for longer is capped (the request's hold bound decides the rest)
TRIP_AFTER = 3  # failures in a row (any items) that pause the run's new requests
BREAKER_FIRST_S = 2.0  # the breaker's first pause; it doubles while the provider keeps failing
BREAKER_MAX_S = 60.0
POLL_S = 1.0  # a waiting request asks this often whether it has waited long enough


@dataclass(frozen=True)
class LimiterState:
    """What the progress line shows."""

    limit: int
    ceiling: int
    in_flight: int
    queued: int
    paused_s: float  # until new requests go upstream again (0: not paused)
    breaker_open: bool

    def describe(self) -> str:
        if self.breaker_open:
            return f"provider failing: paused {self.paused_s:.0f}s, queued {self.queued}"
        parts = [f"limit {self.limit}/{self.ceiling}"] if self.limit < self.ceiling or self.queued else []
        if self.queued:
            parts.append(f"queued {self.queued}")
        if self.paused_s > 0:
            parts.append(f"wait {self.paused_s:.0f}s")
        return " ".join(parts)


def wait_asked(headers, now_wall: float | None = None) -> float | None:
    """Seconds the provider asks us to wait, from its headers; None when it asks nothing.
    A success asks only when its remaining requests or tokens reached 0 (then: until the reset)."""
    h = {k.lower(): v for k, v in headers.items()}
    if "retry-after-ms" in h:
        try:
            return max(0.0, float(h["retry-after-ms"]) / 1000)
        except ValueError:
            pass
    if "retry-after" in h:
        value = h["retry-after"].strip()
        try:
            return max(0.0, float(value))
        except ValueError:
            try:
                return max(0.0, parsedate_to_datetime(value).timestamp() - (now_wall or time.time()))
            except (TypeError, ValueError):
                pass
    waits = []
    for name in h:
        exhausted = _remaining_zero(h, name)
        if exhausted is None:
            continue
        reset = h.get(exhausted)
        seconds = _reset_seconds(reset, now_wall) if reset else None
        waits.append(DEFAULT_WAIT_S if seconds is None else seconds)
    return max(waits) if waits else None


def _remaining_zero(h: dict, name: str) -> str | None:
    """For a `*-remaining*` header at 0: the name of its reset header."""
    value = h[name].strip()
    if value not in ("0", "0.0"):
        return None
    if name.startswith("anthropic-ratelimit-") and name.endswith("-remaining"):
        return name[: -len("-remaining")] + "-reset"  # RFC 3339 time
    if name.startswith("x-ratelimit-remaining-"):
        return "x-ratelimit-reset-" + name[len("x-ratelimit-remaining-") :]  # duration: 1s, 6m0s, 20ms
    return None


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_S = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def _reset_seconds(value: str, now_wall: float | None) -> float | None:
    value = value.strip()
    parts = _DURATION.findall(value)
    if parts and "".join(n + u for n, u in parts) == value:
        return sum(float(n) * _UNIT_S[u] for n, u in parts)
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
        if at.tzinfo is None:
            at = at.replace(tzinfo=timezone.utc)
        return max(0.0, at.timestamp() - (now_wall or time.time()))
    except ValueError:
        return None


class RateLimiter:
    def __init__(self, ceiling: int, clock=time.monotonic):
        self.ceiling = max(1, int(ceiling))
        self.limit = self.ceiling
        self.in_flight = 0
        self.clock = clock
        self.resume_at = 0.0  # no new request goes upstream before this
        self.last_limited = -math.inf
        self.last_raise = -math.inf
        self.calm_s = CALM_S
        self.failures_in_a_row = 0
        self.failure_codes: dict[str, int] = {}  # of the current run of failures: "500" / "cut" -> count
        self.breaker_pause = 0.0  # > 0 while tripped: the current pause
        self.limit_before_trip: int | None = None
        self.notices: deque[str] = deque()  # for the runner to print
        self._waiters: deque[asyncio.Future] = deque()
        self._timer: asyncio.TimerHandle | None = None

    # -- what the progress line reads (any thread)
    @property
    def breaker_open(self) -> bool:
        return self.limit_before_trip is not None

    def snapshot(self) -> LimiterState:
        return LimiterState(
            self.limit,
            self.ceiling,
            self.in_flight,
            len(self._waiters),
            max(0.0, self.resume_at - self.clock()),
            self.limit_before_trip is not None,
        )

    # -- a request's turn
    async def acquire(self, give_up: Callable[[], bool] | None = None) -> bool:
        """Waits for a free slot, in turn; False (no slot taken) when `give_up()`, asked every second
        of the wait, says the request has waited long enough."""
        if not self._waiters and self._free():
            self.in_flight += 1
            return True
        turn = asyncio.get_running_loop().create_future()
        self._waiters.append(turn)
        self._grant()
        try:
            while True:
                try:
                    await asyncio.wait_for(asyncio.shield(turn), POLL_S)
                    return True
                except asyncio.TimeoutError:
                    if give_up is not None and give_up():
                        self._leave(turn)
                        return False
        except asyncio.CancelledError:  # the CLI hung up while its request waited
            self._leave(turn)
            raise

    def _leave(self, turn: asyncio.Future) -> None:
        if turn.done() and not turn.cancelled():  # granted just now: give the slot back
            self.in_flight -= 1
            self._grant()
        else:
            turn.cancel()
            if turn in self._waiters:
                self._waiters.remove(turn)

    def release(self, outcome: str, status: int | None = None, wait_s: float | None = None) -> None:
        """outcome: "ok" (wait_s: a success that asked for a wait), "limited", "failed" (status None: a cut),
        or "unused" (the slot was never used upstream: nothing learnt)."""
        now = self.clock()
        if outcome == "unused":
            pass
        elif outcome == "limited":
            self._limited(now, wait_s)
        elif outcome == "failed":
            self._failed(now, status)
        else:
            self._succeeded(now, wait_s)
        self.in_flight -= 1
        self._grant()

    def _succeeded(self, now: float, wait_s: float | None) -> None:
        self.failures_in_a_row = 0
        self.failure_codes = {}
        if self.limit_before_trip is not None:
            self.limit, self.limit_before_trip, self.breaker_pause = self.limit_before_trip, None, 0.0
            self.notices.append("provider answering again: requests resumed")
        if wait_s:  # the provider's remaining budget reached 0: nothing new until it resets
            self.resume_at = max(self.resume_at, now + min(wait_s, MAX_WAIT_S))
        saturated = self.in_flight >= self.limit
        if (
            saturated
            and self.limit < self.ceiling
            and now - self.last_limited >= self.calm_s
            and now - self.last_raise >= RAISE_EVERY_S
        ):
            self.limit += 1
            self.last_raise = now

    def _limited(self, now: float, wait_s: float | None) -> None:
        # What the provider was accepting: the others still in flight (this one was one too many).
        self.limit = max(1, min(self.limit - 1, self.in_flight - 1))
        if now - self.last_raise < self.calm_s:  # the last raise went past what the provider takes
            self.calm_s = min(MAX_CALM_S, self.calm_s * 2)
            self.last_raise = -math.inf  # once per raise
        self.last_limited = now
        if wait_s is None:
            wait_s = DEFAULT_WAIT_S
        self.resume_at = max(self.resume_at, now + min(wait_s, MAX_WAIT_S))

    def _failed(self, now: float, status: int | None) -> None:
        self.failures_in_a_row += 1
        code = "cut" if status is None else str(status)
        self.failure_codes[code] = self.failure_codes.get(code, 0) + 1
        if self.failures_in_a_row < TRIP_AFTER:
            return
        self.breaker_pause = min(BREAKER_MAX_S, self.breaker_pause * 2 if self.breaker_pause else BREAKER_FIRST_S)
        if self.limit_before_trip is None:
            self.limit_before_trip = self.limit
        self.limit = 1  # half-open: one request at a time probes until one succeeds
        self.resume_at = max(self.resume_at, now + self.breaker_pause)
        seen = ", ".join(
            f"{'stream cut' if c == 'cut' else 'HTTP ' + c} x{n}" for c, n in sorted(self.failure_codes.items())
        )
        self.notices.append(
            f"provider failing: {self.failures_in_a_row} failed requests in a row ({seen}); "
            f"new requests paused for {self.breaker_pause:g}s"
        )

    # -- granting turns
    def _free(self) -> bool:
        return self.in_flight < self.limit and self.clock() >= self.resume_at

    def _grant(self) -> None:
        while self._waiters and self._free():
            turn = self._waiters.popleft()
            if turn.done():
                continue
            self.in_flight += 1
            turn.set_result(None)
        if self._waiters and self.clock() < self.resume_at and self._timer is None:
            loop = asyncio.get_running_loop() if _running() else None
            if loop is not None:
                self._timer = loop.call_later(self.resume_at - self.clock(), self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self._grant()


def _running() -> bool:
    try:
        asyncio.get_running_loop()
        return True
    except RuntimeError:
        return False
