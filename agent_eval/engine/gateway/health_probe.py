"""The gateway's own small request to the provider: is it up, or are an item's failures its own?

A failure counts against its item only when the provider answered a request of the run sent since the
item's failures began (upstream_health.py). An item the provider always fails (a "poison" item: an image
or a context it cannot take) met while nothing else runs (resumed alone, a one-item run) would then look
like an outage and be held for the whole outage bound. So when a failure looks like the provider's, the
gateway asks the provider itself: one small request to the same model, on the same wire and path, with
the run's credential, shaped like the CLI's own request (its `system` or `instructions`, `stream` and
`store` kept: what an endpoint may require of this client) but asking for a one-word answer without tools.

* Answered whole (HTTP 200, the stream ended by its last event): the provider is up. The limiter learns
  it as it learns any answer (the breaker closes, held requests go), and the item's next failures are
  counted against it: it ends `upstream_error` in a handful of requests, its verdict saying so.
* Anything else (a 5xx, overloaded, a cut, unreachable, a refusal of the probe itself): nothing is
  learnt; the request is held as in an outage.

One probe at a time for the run; the next no sooner than `AFTER_ANSWER_S` after an answered one, and
`FIRST_GAP_S` after a failed one, doubling to `MAX_GAP_S` while the provider keeps failing (a 30-minute
outage costs about 35 small requests). Its price is added to the run's spend (and so to `--max-cost-usd`),
not to any item's.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiohttp

from agent_eval.engine.gateway.ledger import RequestEntry
from agent_eval.engine.gateway.traffic import AnswerReader, decode

# The scripted model server (agent_eval/scripted) knows this text: it answers the probe as the provider would,
# faults included, without playing a scenario turn.
PROBE_TEXT = "agent-eval gateway health check: reply with the word OK."
FIRST_GAP_S = 10.0  # after a failed probe, the next no sooner than this (doubling)
MAX_GAP_S = 60.0
AFTER_ANSWER_S = 1.0  # after an answered probe
PROBE_TIMEOUT_S = 60.0  # a probe the provider never answers is a failed probe
KEPT = {"anthropic": ("system", "stream"), "responses": ("instructions", "stream", "store")}
DROPPED_HEADERS = {"content-length", "content-encoding"}


def probe_body(wire: str, model: str, original: dict) -> dict:
    """The probe's request body: the CLI's own envelope (see KEPT), one short user message, no tools."""
    kept = {k: original[k] for k in KEPT[wire] if k in original}
    if wire == "anthropic":
        return {"model": model, "max_tokens": 16, **kept, "messages": [{"role": "user", "content": PROBE_TEXT}]}
    message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": PROBE_TEXT}]}
    return {"model": model, **kept, "input": [message]}


def request_json(body: bytes, encoding: str | None) -> dict:
    """The CLI's request body as JSON ({} when it cannot be read: the probe then takes the run's model alone)."""
    try:
        data = json.loads(decode(body, encoding))
    except Exception:  # any codec's or JSON's error
        return {}
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class ProbeResult:
    answered: bool
    sent_at: float  # monotonic: when it left
    status: int | None
    note: str  # in words, for the record and the docs' tests
    entry: RequestEntry | None = None  # its answer as the ledger reads one (usage, for the price)


class HealthProbes:
    """When to send the gateway's own probe, one at a time. Lives on the gateway's loop."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.in_flight = False
        self.next_at = 0.0
        self.gap = FIRST_GAP_S
        self.sent = 0
        self.answered = 0
        self.last: ProbeResult | None = None
        self._task: asyncio.Task | None = None  # held: the loop keeps only a weak reference

    def due(self) -> bool:
        return not self.in_flight and self.clock() >= self.next_at

    def start(
        self,
        send: Callable[[], Awaitable[ProbeResult]],
        on_result: Callable[[ProbeResult], None],
    ) -> bool:
        """Sends a probe now if one is due (`send` makes it); `on_result` is told how it went. False: not due."""
        if not self.due():
            return False
        self.in_flight = True
        self.sent += 1

        async def run() -> None:
            try:
                result = await send()
            except Exception as error:  # noqa: BLE001 - a probe that cannot be made is a failed probe
                result = ProbeResult(False, self.clock(), None, f"probe not sent: {type(error).__name__}: {error}")
            self.in_flight = False
            self.last = result
            if result.answered:
                self.answered += 1
                self.gap = FIRST_GAP_S
                self.next_at = self.clock() + AFTER_ANSWER_S
            else:
                self.next_at = self.clock() + self.gap
                self.gap = min(MAX_GAP_S, self.gap * 2)
            on_result(result)

        self._task = asyncio.get_running_loop().create_task(run())
        return True


async def send_probe(
    session: aiohttp.ClientSession,
    url,
    headers: dict[str, str],
    wire: str,
    model: str | None,
    original: dict,
    seq: int = 0,
    clock: Callable[[], float] = time.monotonic,
) -> ProbeResult:
    """One probe to `url` (the failed request's own URL) with the request's headers (the real credential in);
    `seq` numbers it among the run's probes (the spend prices each once)."""
    model = model or original.get("model")
    if not isinstance(model, str) or not model:
        return ProbeResult(False, clock(), None, "no model to probe: the request named none")
    data = json.dumps(probe_body(wire, model, original)).encode()
    sent = {k: v for k, v in headers.items() if k.lower() not in DROPPED_HEADERS}
    sent["Content-Type"] = "application/json"
    sent_at = clock()
    entry = RequestEntry(seq, 0.0, "POST", str(url.path), len(data), model=model)
    try:
        async with session.post(
            url, headers=sent, data=data, timeout=aiohttp.ClientTimeout(total=PROBE_TIMEOUT_S)
        ) as upstream:
            reader = AnswerReader(
                entry,
                upstream.status,
                upstream.headers.get("Content-Type", ""),
                upstream.headers.get("Content-Encoding"),
            )
            async for chunk in upstream.content.iter_any():
                reader.feed(chunk)
            reader.close()
    except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError, OSError) as error:
        return ProbeResult(False, sent_at, None, f"probe failed: {type(error).__name__}: {error}", entry)
    whole = reader.answered if reader.events else entry.api_usage is not None
    if entry.status == 200 and whole and entry.error is None:
        return ProbeResult(True, sent_at, 200, f"the provider answered a probe of {model}", entry)
    why = (entry.error or {}).get("message") or ("cut before its end" if entry.status == 200 else "")
    return ProbeResult(False, sent_at, entry.status, f"probe of {model}: HTTP {entry.status} {why}".strip(), entry)
