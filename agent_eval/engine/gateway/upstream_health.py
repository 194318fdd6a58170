"""One item's dealings with the provider, as the gateway keeps them: failures in a row, when to give up,
the time its requests were held for rate limits, and the verdict when the provider failed it.

The gateway retries a rate-limited request itself (holding it, so the CLI sees a slower answer, not an
error) up to `MAX_HOLD_S`, and a 5xx up to `GATEWAY_RETRIES` times. After `ITEM_FAILURES` failed
upstream requests in a row (5xx, overloaded past the hold, a cut stream, an unreachable endpoint) it
sends none of the item's requests upstream again: each is answered at once with an error the CLI does
not retry, and the item ends `upstream_error` (`verdict()`), rerun by a resume.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field

# A request is held for rate limits at most this long, then the 429 is passed on; after that the item's
# next 429s pass at once (the CLI's own retries are not held again) until one of its requests succeeds.
MAX_HOLD_S = 120.0
OUTAGE_HOLD_S = 30.0  # held this long while the breaker is open (the provider failing for the whole run): give up
GATEWAY_RETRIES = 2  # a 5xx the gateway retries itself before the CLI sees it
ITEM_FAILURES = 4  # failed upstream requests in a row after which the item's requests stay here


def failure_name(code: int | str) -> str:
    return "stream cut" if code == "cut" else "unreachable" if code == "unreachable" else f"HTTP {code}"


@dataclass
class ItemUpstream:
    """Thread-safe: updated on the gateway's loop, read by the item's thread."""

    failures_in_a_row: int = 0
    failures: Counter = field(default_factory=Counter)  # "500" / "529" / "cut" / "unreachable" -> count
    rate_limited: int = 0  # upstream answers that asked to slow down
    upstream_requests: int = 0
    refused: int = 0  # requests answered here after giving up
    gave_up: bool = False
    hold_spent: bool = False  # a request was held its whole bound for a rate limit: later ones are not held
    held_in_outage: bool = False  # gave up waiting while the provider failed everyone
    _holds: list[tuple[float, float]] = field(default_factory=list)
    _open: dict[int, float] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- the gateway's side
    def sent(self) -> None:
        with self._lock:
            self.upstream_requests += 1

    def succeeded(self) -> None:
        with self._lock:
            self.failures_in_a_row = 0
            self.hold_spent = False

    def limited(self) -> None:
        with self._lock:
            self.rate_limited += 1

    def failed(self, code: int | str) -> None:
        with self._lock:
            self.failures_in_a_row += 1
            self.failures[str(code)] += 1
            if self.failures_in_a_row >= ITEM_FAILURES:
                self.gave_up = True

    def outage(self) -> None:
        """A request of this item waited OUTAGE_HOLD_S while the provider failed the whole run."""
        with self._lock:
            self.gave_up = self.held_in_outage = True

    def refuse(self) -> None:
        with self._lock:
            self.refused += 1

    def hold_started(self, key: int, at: float) -> None:
        with self._lock:
            self._open[key] = at

    def hold_ended(self, key: int, at: float) -> None:
        with self._lock:
            start = self._open.pop(key, None)
            if start is not None and at > start:
                self._holds.append((start, at))

    # -- the item's side
    def held_s(self, now: float | None = None) -> float:
        """Seconds during which at least one of the item's requests was held (overlaps counted once);
        `now` counts holds still open up to then."""
        with self._lock:
            spans = sorted(self._holds + ([(s, now) for s in self._open.values() if now > s] if now else []))
        total, end = 0.0, None
        for start, stop in spans:
            if end is None or start > end:
                total += stop - start
                end = stop
            elif stop > end:
                total += stop - end
                end = stop
        return total

    def verdict(self) -> str | None:
        """Why the provider, not the agent, is to blame: its last answers to this item were failures, or the
        item's request waited out a pause of the whole run while the provider failed the others."""
        with self._lock:
            if not self.failures_in_a_row and not self.gave_up:
                return None
            parts = []
            if self.failures:
                seen = ", ".join(f"{failure_name(c)} x{n}" for c, n in sorted(self.failures.items()))
                parts.append(f"the provider failed: {seen} in {self.upstream_requests} upstream request(s)")
            if self.held_in_outage:
                parts.append(
                    f"the provider failed the run's other requests while this item's waited {OUTAGE_HOLD_S:g}s "
                    f"(the run paused new requests)"
                )
            if self.gave_up and self.failures_in_a_row >= ITEM_FAILURES:
                parts.append(f"after {self.failures_in_a_row} failures in a row the gateway sent none of its requests")
            if self.gave_up:
                parts.append(f"{self.refused} request(s) refused at the gateway")
            return "; ".join(parts) + ". Not the agent's doing: a resume runs the item again"

    def to_json(self) -> dict:
        with self._lock:
            return {
                "upstream_requests": self.upstream_requests,
                "failures": dict(self.failures),
                "rate_limited": self.rate_limited,
                "refused": self.refused,
                "gave_up": self.gave_up,
                "outage": self.held_in_outage,
            }
