"""One item's dealings with the provider, as the gateway keeps them: its failures, which of them count
against it, when to give up, the time its requests were held, and the verdict when the provider failed it.

Whose failure is it? A failure (a 5xx, overloaded past the hold, a cut stream, an unreachable endpoint)
counts against the item only when the provider answered a request of the run that was sent after the
item's current run of failures began: the provider was answering others meanwhile, so the trouble is this
item's. When nothing was answered since, the failure looks like the provider's (an outage for everyone): it
is not counted, the gateway holds the request (the CLI sees a slow answer) for the run's outage bound
(`--outage-hold-minutes`), and it asks the provider itself with a small probe to the same model
(health_probe.py). An answered probe counts as an answer: the item's next failures count against it, even
with no other item running (an item the provider always fails, resumed alone, is not held as an outage).
After `ITEM_FAILURES` counted failures in a row the gateway sends none of the item's requests upstream
again: each is answered at once with an error the CLI does not retry, and the item ends `upstream_error`
(`verdict()`), rerun by a resume. A request held its whole outage bound ends its item the same way.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field

# A request is held for rate limits (429) at most this long, then the 429 is passed on; after that the item's
# next 429s pass at once (the CLI's own retries are not held again) until one of its requests succeeds.
MAX_HOLD_S = 120.0
OUTAGE_HOLD_S = 30 * 60.0  # the default outage bound: a request held this long while nothing is answered
GATEWAY_RETRIES = 2  # a failure counted against the item that the gateway retries itself before the CLI sees it
ITEM_FAILURES = 4  # failures counted against the item, in a row, after which its requests stay here


def failure_name(code: int | str) -> str:
    return "stream cut" if code == "cut" else "unreachable" if code == "unreachable" else f"HTTP {code}"


def duration(seconds: float) -> str:
    """`45s`, `1m20s`, `30m`, `2h05m`: for the progress line and the verdicts."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, s = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{s:02d}s" if s else f"{minutes}m"
    hours, m = divmod(minutes, 60)
    return f"{hours}h{m:02d}m"


@dataclass
class ItemUpstream:
    """Thread-safe: updated on the gateway's loop, read by the item's thread."""

    failures_in_a_row: int = 0  # counted against the item (the provider answered others meanwhile)
    failures: Counter = field(default_factory=Counter)  # every failure seen: "500" / "529" / "cut" -> count
    outage_failures: int = 0  # failures while the provider answered no one: the provider's, not counted
    failing_since: float | None = None  # when its current run of failures began (None: its last answer was whole)
    rate_limited: int = 0  # upstream answers that asked to slow down
    usage_limits: int = 0  # of those, a subscription's usage limit (usage_limit.py): waited for, or passed on
    usage_refused: int = 0  # of those, passed on: the window resets past --quota-wait-hours
    upstream_requests: int = 0
    refused: int = 0  # requests answered here after giving up
    gave_up: bool = False
    hold_spent: bool = False  # a request was held its whole bound for a rate limit: later ones are not held
    held_in_outage: float = 0.0  # > 0: a request was held this long (past the bound) while no one was answered
    outage_bound: float = 0.0
    # What showed the provider was up when its last failure was counted: "requests" (the run's other requests
    # were answered) or "probe" (only the gateway's own probe was).
    own_evidence: str | None = None
    # The item's attempt has ended (`settle`): its record holds the verdict and the numbers of that moment, and a
    # request of its still open at the gateway (its CLI gone, the sandbox's proxy not yet closing the connection)
    # goes upstream no more
    ended: bool = False
    _final: dict | None = None
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
            self.failing_since = None
            self.hold_spent = False

    def limited(self) -> None:
        with self._lock:
            self.rate_limited += 1

    def usage_limited(self) -> None:
        with self._lock:
            self.rate_limited += 1
            self.usage_limits += 1

    def usage_passed_on(self) -> None:
        """A usage limit whose window resets past the run's bound went to the CLI: not waited for."""
        with self._lock:
            self.usage_refused += 1

    def answers_no_more(self) -> bool:
        """Whether the provider will answer none of the item's requests in this attempt: the gateway gave up on it, or
        its subscription's window is used up past the run's bound. A further session of the item (a game's
        continuation, a restart after silence) would only be refused again: the attempt ends, a resume goes on."""
        with self._lock:
            return self.gave_up or self.usage_refused > 0

    def streak_start(self, at: float) -> float:
        """When the item's current run of failures began (`at` if this is its first)."""
        with self._lock:
            if self.failing_since is None:
                self.failing_since = at
            return self.failing_since

    def failed(self, code: int | str, own: bool, evidence: str = "requests") -> None:
        """own: the provider answered other requests, or the gateway's probe (`evidence`), since the item's
        failures began (counted against it)."""
        with self._lock:
            self.failures[str(code)] += 1
            if not own:
                self.outage_failures += 1
                return
            self.failures_in_a_row += 1
            self.own_evidence = evidence
            if self.failures_in_a_row >= ITEM_FAILURES:
                self.gave_up = True

    def outage(self, held_s: float, bound_s: float) -> None:
        """A request of this item was held `held_s`, past the run's bound, while the provider answered no one."""
        with self._lock:
            self.gave_up = True
            self.held_in_outage, self.outage_bound = held_s, bound_s

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
    def held_s(self, now: float | None = None, within: list[tuple[float, float]] | None = None) -> float:
        """Seconds during which at least one of the item's requests was held (overlaps counted once);
        `now` counts holds still open up to then; `within`: only the parts inside these spans (the run's waits
        for a subscription window)."""
        with self._lock:
            spans = sorted(self._holds + ([(s, now) for s in self._open.values() if now > s] if now else []))
        if within is not None:
            spans = sorted((max(s, a), min(e, b)) for s, e in spans for a, b in within if min(e, b) > max(s, a))
        total, end = 0.0, None
        for start, stop in spans:
            if end is None or start > end:
                total += stop - start
                end = stop
            elif stop > end:
                total += stop - end
                end = stop
        return total

    def settle(self) -> str | None:
        """The attempt has ended: its verdict, and the numbers `to_json` gives from now on, taken at one moment.
        Read later, a try still in flight then could count in the numbers and not in the verdict (a request sent
        upstream, its failure not yet recorded: "the provider answered no request ..." beside `upstream_requests` 1)."""
        with self._lock:
            self.ended = True
            self._final = self._json()
            return self._verdict()

    def verdict(self) -> str | None:
        """Why the provider, not the agent, is to blame: its last answers to this item were failures (its own,
        while the provider answered others), or its request was held the whole outage bound."""
        with self._lock:
            return self._verdict()

    def _verdict(self) -> str | None:
        if self.failing_since is None and not self.gave_up:
            return None
        parts = []
        if self.failures:
            seen = ", ".join(f"{failure_name(c)} x{n}" for c, n in sorted(self.failures.items()))
            parts.append(f"the provider failed: {seen} in {self.upstream_requests} upstream request(s)")
        if self.held_in_outage:
            # An item whose first request came once the breaker held everyone may never get its turn to probe
            # within the bound: nothing of it went upstream, so the verdict names the provider itself.
            parts.append(
                f"{'it' if parts else 'the provider'} answered no request of the run while this item's was held "
                f"{duration(self.held_in_outage)} (the outage bound: {duration(self.outage_bound)}, "
                "--outage-hold-minutes)"
            )
            if not self.upstream_requests:
                parts.append(
                    "none of its requests went upstream (the run's other held requests probed the provider, "
                    "one at a time)"
                )
        elif self.failures_in_a_row and self.own_evidence == "probe":
            parts.append(
                f"{self.failures_in_a_row} in a row while it answered the gateway's own probe of the same model: "
                "the provider is up, so these failures are this item's own, not an outage"
            )
        elif self.failures_in_a_row:
            parts.append(f"{self.failures_in_a_row} in a row while it answered the run's other requests")
        if self.gave_up and self.failures_in_a_row >= ITEM_FAILURES:
            parts.append("so the gateway sent none of its requests after that")
        if self.gave_up:
            parts.append(f"{self.refused} request(s) refused at the gateway")
        return "; ".join(parts) + ". Not the agent's doing: a resume runs the item again"

    def to_json(self) -> dict:
        with self._lock:
            return dict(self._final) if self._final is not None else self._json()

    def _json(self) -> dict:
        return {
            "upstream_requests": self.upstream_requests,
            "failures": dict(self.failures),
            "outage_failures": self.outage_failures,
            "rate_limited": self.rate_limited,
            "usage_limits": self.usage_limits,
            "usage_refused": self.usage_refused,
            "refused": self.refused,
            "gave_up": self.gave_up,
            "outage": bool(self.held_in_outage),
            "outage_held_s": round(self.held_in_outage, 1),
            "own_evidence": self.own_evidence,
        }
