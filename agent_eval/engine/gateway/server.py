"""The run's model gateway: a loopback HTTP server outside every sandbox (aiohttp, its own thread).

A sandboxed CLI talks plain HTTP to it with a per-item dummy credential; it forwards each
request to the real endpoint with the real credential put where the dummy was (same header),
and streams the response back chunk by chunk as it arrives (SSE included). The dummy names the
item, so each request lands in that item's `Ledger`. Headers are never logged; a request with
no dummy is forwarded without any credential; an unknown dummy is refused.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import shutil
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import aiohttp
from aiohttp import web
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

from agent_eval.agents.base import Auth
from agent_eval.agents.registry import agent_class
from agent_eval.engine.gateway.credentials import (
    DUMMY_PATTERN,
    CredentialError,
    RealCredential,
    inside_auth,
    real_credential,
    scratch_dir,
)
from agent_eval.engine.gateway.health_probe import HealthProbes, ProbeResult, request_json, send_probe
from agent_eval.engine.gateway.ledger import REFUSED, Ledger, RequestEntry
from agent_eval.engine.gateway.limiter import LIMITED_STATUSES, RateLimiter, wait_asked
from agent_eval.engine.gateway.planted_break import plant, planted_from
from agent_eval.engine.gateway.spend import ItemSpend, RunSpend
from agent_eval.engine.gateway.traffic import ERROR_BODY_CHARS, AnswerReader, wire_of
from agent_eval.engine.gateway.upstream_health import (
    GATEWAY_RETRIES,
    MAX_HOLD_S,
    OUTAGE_HOLD_S,
    ItemUpstream,
    duration,
)
from agent_eval.engine.gateway.usage_limit import DEFAULT_QUOTA_WAIT_S, UsageLimit, UsageWait, clock_time, usage_limit

REFUSED_STATUS = 400  # a request of an item the provider failed: a 4xx, which neither CLI sends again
RETRY_PAUSE_S = 0.5  # before the gateway sends a request again (doubling with each try)
MAX_RETRY_PAUSE_S = 15.0
CLI_ANSWER_S = 600.0  # what a CLI must allow for one answer besides a hold (Claude Code's own default timeout)
HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
}


class RequestGate(Protocol):
    """Decides on an item's model requests before they go upstream, while `pending` (engine/tool_surface.py: the
    session's tool-surface check); once it is not, requests pass as before, unread."""

    @property
    def pending(self) -> bool: ...

    async def admit(self, body: bytes, encoding: str | None, user_agent: str) -> str | None:
        """None: send it on; else why not (the request is refused, 400, not to be retried)."""
        ...


@dataclass
class Lease:
    """One item's door: its dummy token, the Auth its sandbox gets, and what passed through."""

    token: str
    auth: Auth
    ledger: Ledger
    spend: ItemSpend = field(default_factory=ItemSpend)
    upstream: ItemUpstream = field(default_factory=ItemUpstream)  # the provider's failures, the holds, the verdict
    gate: RequestGate | None = None  # set by the running session
    usage: UsageWait | None = None  # the run's waits for a subscription window (the item's share is recorded)
    model_requests: int = 0  # the model requests that reached the gateway


class Gateway:
    """A context manager: entering starts the server (127.0.0.1, a free port), leaving stops it."""

    def __init__(
        self,
        agent: str,
        auth: Auth,
        spend: RunSpend | None = None,
        concurrency: int = 16,
        outage_hold_s: float = OUTAGE_HOLD_S,
        quota_wait_s: float = DEFAULT_QUOTA_WAIT_S,
    ):
        self.agent = agent
        self.outage_hold_s = outage_hold_s  # how long a request is held while the provider answers no one
        self.usage = UsageWait(quota_wait_s)  # a subscription's used-up window: every request waits for its reset
        # the run's one limiter: every item's model requests pass it
        self.limiter = RateLimiter(concurrency, outage_hold_s=outage_hold_s, usage=self.usage)
        self.spend = spend or RunSpend()  # prices every answer; refuses requests past a spend cap
        self.probes = HealthProbes()  # the gateway's own requests: is the provider up? (health_probe.py)
        self._probes_spend = ItemSpend()  # what they cost: the run's, no item's
        self.credential: RealCredential = real_credential(agent, auth)
        self._leases: dict[str, Lease] = {}
        self._lock = threading.Lock()
        self.unattributed = 0  # requests that carried no dummy (e.g. Claude Code's `HEAD /` probe)
        self._loop: asyncio.AbstractEventLoop | None = None
        self.compaction_prompt = agent_class(agent).compaction_prompt  # its summary request, for prefix.py
        self.plant_from = planted_from()  # tests only: a prefix break planted from each item's Nth model request

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- lifecycle
    def __enter__(self) -> "Gateway":
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="agent-eval-gateway", daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=30)
        return self

    def __exit__(self, *exc) -> None:
        if self._loop is None:
            return
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()
        self._loop = None

    async def _start(self) -> None:
        # No automatic decompression or headers: the bytes pass as they came, both ways.
        self._session = aiohttp.ClientSession(
            auto_decompress=False,
            proxy=await asyncio.to_thread(env_proxy, self.credential.upstream),  # it reads ~/.netrc
            skip_auto_headers=("User-Agent", "Accept-Encoding"),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=60),
            connector=aiohttp.TCPConnector(limit=0),
        )
        app = web.Application(client_max_size=1 << 30)
        app.router.add_route("*", "/{tail:.*}", self._forward)
        # handler_cancellation: a CLI that is killed or hangs up cancels its request upstream too
        # (no orphaned generation); a short shutdown: the run is over, in-flight answers are moot;
        # auto_decompress off: a compressed request body goes on as the CLI compressed it.
        self._runner = web.AppRunner(
            app,
            access_log=None,
            handle_signals=False,
            handler_cancellation=True,
            auto_decompress=False,
            shutdown_timeout=1.0,
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def _stop(self) -> None:
        await self._session.close()  # first: requests still waiting on the upstream end now
        await self._runner.cleanup()

    # -- items
    @contextmanager
    def lease(self, item_root: Path | None = None):
        """A fresh dummy token for one item; the Auth its CLI gets; its ledger. With `item_root` (the item's
        folder) each request is appended to its gateway.jsonl as it finishes, and the requests an earlier
        session left there (a harness that crashed mid-item) are carried on: numbers, totals and spend."""
        token = secrets.token_hex(8)
        scratch = scratch_dir()
        ledger = None
        try:
            auth = inside_auth(self.agent, self.credential.auth, token, self.base_url, scratch)
            # The CLI must wait for an answer longer than the gateway may hold its request, or it gives up first.
            auth.answer_wait_s = max(MAX_HOLD_S, self.outage_hold_s, self.usage.bound_s + MAX_HOLD_S) + CLI_ANSWER_S
            spend = ItemSpend()
            ledger = Ledger(item_root, earlier=spend.carry, compaction_prompt=self.compaction_prompt)
            lease = Lease(token, auth, ledger, spend, usage=self.usage)
            with self._lock:
                self._leases[token] = lease
            yield lease
        finally:
            with self._lock:
                found = self._leases.pop(token, None)
            if found is not None:
                self.spend.item_ended(found.spend)
            if ledger is not None:
                ledger.close()
            shutil.rmtree(scratch, ignore_errors=True)

    def _authorise(self, headers) -> tuple[Lease | None, dict[str, str], str | None]:
        """The headers to send on, with each dummy replaced by the real secret it stands for."""
        out, lease, problem = {}, None, None
        for name, value in headers.items():
            if name.lower() in HOP_BY_HOP:
                continue
            for match in DUMMY_PATTERN.finditer(value):
                with self._lock:
                    found = self._leases.get(match.group(1))
                if found is None:
                    problem = "unknown agent-eval gateway credential (its item has finished)"
                    continue
                lease = found
                try:
                    value = value.replace(match.group(0), self.credential.value(int(match.group(2))))
                except (CredentialError, IndexError) as e:
                    problem = str(e) if isinstance(e, CredentialError) else "bad gateway credential slot"
            out[name] = value
        return lease, out, problem

    # -- forwarding
    async def _forward(self, request: web.Request) -> web.StreamResponse:
        lease, headers, problem = self._authorise(request.headers)
        if problem:
            return _refusal(401, problem)
        if lease is None:
            self.unattributed += 1
        ledger = lease.ledger if lease else Ledger()
        entry = ledger.begin(request.method, request.path, request.content_length or 0)
        try:
            return await self._answer(request, lease, headers, ledger, entry)
        finally:  # on every path: a CLI that hung up too (aiohttp cancels the handler, e.g. while its request waits
            ledger.finish(entry)  # for the tool-surface check or its turn), else its item's record waits 10 s for it

    async def _answer(self, request: web.Request, lease: Lease | None, headers: dict, ledger: Ledger, entry):
        """The CLI's request answered: held for its session's turn, refused here (a spend cap, an item the provider
        gave up on, its session's gate), or sent upstream (held and sent again as the provider asks). A refusal is
        finished in the ledger as it is decided (_forward finishes every request again at its end: a no-op then)."""
        health = lease.upstream if lease else ItemUpstream()
        wire = wire_of(request.method, request.path)
        if wire is not None:
            if ledger.model_request_began():  # the session's turn is over: held until its process is stopped
                return await _held_for_turn(request, entry, ledger)
            if lease is not None:
                lease.model_requests += 1
        if lease is not None and wire is not None:
            refusal = self.spend.refusal(lease.spend, entry, wire)
            if refusal is not None:  # past a spend cap: nothing goes upstream
                try:
                    await request.read()
                finally:
                    ledger.finish(entry)
                return refusal
        if health.gave_up:  # the provider failed this item often enough: nothing more of it goes upstream
            ledger.finish(entry)
            return _refused_for_failures(entry, health)
        chunks: list[bytes] = []
        gate = lease.gate if lease is not None and wire is not None else None
        if gate is not None and gate.pending:  # read whole and decided on before any of it goes upstream
            chunks.append(await request.read())
            headers_in = request.headers
            why = await gate.admit(chunks[0], headers_in.get("Content-Encoding"), headers_in.get("User-Agent", ""))
            if why is not None:
                ledger.finish(entry)
                return _refused_by_gate(entry, why)
        due = self.plant_from is not None and lease is not None and lease.model_requests >= self.plant_from
        if due and wire is not None and not request.headers.get("Content-Encoding"):
            chunks[:] = [plant(b"".join(chunks) or await request.read())]

        async def relay_body():  # the body goes on as it comes in; the ledger gets a copy
            async for chunk in request.content.iter_any():
                chunks.append(chunk)
                yield chunk

        if chunks and request.content_length is not None:  # read already: its length as it goes on
            headers["Content-Length"] = str(len(chunks[0]))
        elif request.content_length is not None:
            headers["Content-Length"] = str(request.content_length)  # same framing as the CLI chose
        url = URL(self.credential.upstream + request.raw_path, encoded=True)
        handed_over = False

        def hand_over_body() -> None:  # to the ledger's reader, which joins the chunks: off the loop
            nonlocal handed_over
            if not handed_over:
                handed_over = True
                entry.request_bytes = sum(map(len, chunks))
                ledger.read_later(entry, list(chunks), request.headers.get("Content-Encoding"))

        def charge() -> None:  # what the answer's usage cost, added to the item's and the run's spend
            if lease is not None and wire is not None:
                self.spend.charge(lease.spend, entry, wire)

        def ask_provider() -> None:  # the provider's failure, or this item's own? (health_probe.py)
            if wire is None or self.spend.run_cap_reached:
                return
            body, encoding = b"".join(chunks), request.headers.get("Content-Encoding")

            async def send() -> ProbeResult:
                original = await asyncio.to_thread(request_json, body, encoding)  # off the loop: it may be MBs
                return await send_probe(
                    self._session, url, headers, wire, self.spend.model, original, seq=self.probes.sent
                )

            self.probes.start(send, lambda result: self._probed(result, wire))

        hold = Hold(
            health,
            entry,
            time.monotonic(),
            self.limiter,
            request.method == "POST",
            self.outage_hold_s,
            ask_provider,
            usage=self.usage,
        )
        try:
            while True:
                if hold.tries and hold.waited_too_long():  # held its bound between tries
                    return self._held_too_long(entry, hold)
                if hold.limited and not await self.limiter.acquire(give_up=hold.waited_too_long):
                    return self._held_too_long(entry, hold)
                if health.ended:  # its item's attempt is over (its record written): nothing more goes upstream
                    if hold.limited:
                        self.limiter.release("unused")
                    return _refused_by_gate(entry, "the item's attempt has ended")
                late = self.spend.refusal(lease.spend, entry, wire) if lease and wire else None
                if late is not None:  # a spend cap was reached while it waited: it does not go upstream
                    if hold.limited:
                        self.limiter.release("unused")
                    return late
                if hold.tries:  # sent again: the whole body (what the first try left unread, read once: aiohttp
                    if not request.content.at_eof():  # warns of "an infinite loop" at a sixth read at its end)
                        chunks.append(await request.content.read())
                    body = b"".join(chunks)
                else:  # read already when a gate was pending
                    body = b"".join(chunks) if chunks else relay_body()
                answer = await self._try(
                    request,
                    url,
                    headers,
                    body if request.body_exists else None,
                    entry,
                    ledger,
                    hold,
                    hand_over_body,
                    charge,
                )
                if answer is not None:
                    return answer
                # Each request also backs off on its own (0.5, 1, 2 ... s): a provider asking no wait, or 0, is
                # not asked again at once; the limiter's pause (the wait asked, for everyone) comes on top.
                # While the breaker is open its pause alone paces the probes: the request queues again at once,
                # behind the other held requests (each item's in turn probes).
                last = entry.absorbed[-1]
                own = min(MAX_RETRY_PAUSE_S, RETRY_PAUSE_S * 2 ** (len(entry.absorbed) - 1))
                if not self.limiter.breaker_open:
                    await asyncio.sleep(min(max(0.0, own - (last["wait_s"] or 0.0)), hold.left()))
        finally:  # (then _forward finishes it in the ledger)
            hold.end(time.monotonic())
            charge()
            hand_over_body()

    async def _try(self, request, url, headers, body, entry, ledger, hold: Hold, hand_over_body, charge):
        """One request upstream: the answer given to the CLI, or None when the gateway holds the request
        to send it again (a rate limit within the hold bound, a 5xx within the gateway's own retries)."""
        response: web.StreamResponse | None = None
        reader: AnswerReader | None = None
        outcome, code, wait, own = "ok", None, None, False  # for the limiter, once this try is over
        tried_at = time.monotonic()
        # A probe (the provider is down, or this item's last try failed) is read whole before the CLI sees any
        # of it: a stream cut then is held and sent again like a 5xx, instead of reaching the CLI as a cut.
        probe = hold.limited and (self.limiter.down or hold.health.failing_since is not None)
        hold.sent(tried_at)
        hold.health.sent()
        hold.tries += 1
        try:
            async with self._session.request(
                request.method, url, headers=headers, data=body, allow_redirects=False
            ) as upstream:
                status = upstream.status
                wait = wait_asked(upstream.headers)
                limit, first_bytes = await self._usage_limit(upstream, hold)
                told: dict[str, str] = {}
                if limit is not None:  # a subscription's window is used up: held until it resets, or passed on
                    outcome = "unused"  # it says nothing of the provider's concurrency: the limiter is not lowered
                    hold.health.usage_limited()
                    assert first_bytes is not None  # read whole to be recognised
                    if self._wait_for_reset(limit, status, first_bytes, entry, hand_over_body):
                        hold.wait_from(tried_at)
                        return None
                    hold.health.usage_passed_on()  # its attempt ends with this session: no other would be answered
                    told = {"x-should-retry": "false"}  # past the bound: the CLI gives up, the item is rate_limited
                elif status in LIMITED_STATUSES:
                    outcome, code = "limited", status
                    hold.health.limited()
                    held = tried_at - hold.since + (wait or 0)
                    # Overloaded with nothing answered since this request came: held up to the outage bound.
                    down = status != 429 and not self.limiter.answered_since(hold.since)
                    if hold.limited and (down or (not hold.health.hold_spent and held < MAX_HOLD_S)):
                        hold.down = hold.down or down
                        return await self._hold_again(
                            upstream, wait, entry, hold, tried_at, hand_over_body, first_bytes
                        )
                    hold.health.hold_spent = True  # its next 429s pass at once: the CLI's retries are not held
                    if status != 429:  # still overloaded after the hold while others were answered: its failure
                        own = True
                        hold.health.streak_start(tried_at)
                        hold.health.failed(status, own)
                elif status >= 500:
                    outcome, code = "failed", status
                    own = self._failed(hold, status, tried_at)
                    if self._may_retry(hold, own):
                        return await self._hold_again(upstream, wait, entry, hold, tried_at, hand_over_body)
                if hold.health.gave_up or outcome == "limited":
                    told = {"x-should-retry": "false"}
                reader = ledger.response_reader(
                    entry, status, upstream.headers.get("Content-Type", ""), upstream.headers.get("Content-Encoding")
                )
                response = web.StreamResponse(
                    status=status,
                    reason=upstream.reason,
                    headers={**{k: v for k, v in upstream.headers.items() if k.lower() not in HOP_BY_HOP}, **told},
                )
                source = _from_upstream(upstream) if first_bytes is None else _replay([first_bytes], None)
                if probe and status < 400:
                    got, cut = await _whole(upstream)
                    if cut is not None:
                        outcome, code = "failed", None
                        own = self._failed(hold, "cut", tried_at)
                        if self._may_retry(hold, own):
                            entry.absorbed.append({"status": status, "wait_s": None, "message": _cut_note(cut)})
                            hand_over_body()
                            hold.wait_from(tried_at)
                            return None
                    source = _replay(got, cut)  # whole, or cut again where the provider cut it
                await response.prepare(request)
                async for chunk in source:
                    reader.feed(chunk)  # first: what the CLI acts on next is already known here
                    await response.write(chunk)  # as it arrives: no buffering of the stream
                reader.close()  # recorded before the CLI sees the end: the item's record never misses it
                charge()  # priced before the CLI can send its next request
                if outcome == "ok":
                    hold.health.succeeded()  # a whole answer: a stream cut before its end was a failure
                await response.write_eof()
                # After the end has gone: the ledger's reader holds the GIL for ms on a large body (its JSON
                # parse). The request stays open in the ledger until _forward finishes, so a settle() waits for it.
                hand_over_body()
        except UpstreamCut as cut:  # the provider cut the stream mid-answer: passed on as a cut
            if outcome == "ok":  # (a probe's cut is counted already)
                outcome, code = "failed", None
                own = self._failed(hold, "cut", tried_at)
            assert reader is not None  # only a stream being read is cut
            reader.close(_cut_note(cut))
            if request.transport is not None:
                request.transport.close()  # what was sent is flushed first
        except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError, OSError) as e:
            note = f"{type(e).__name__}: {e}"
            if response is None:  # nothing sent to the CLI yet: the endpoint could not be reached
                outcome, code = "failed", 502
                own = self._failed(hold, "unreachable", tried_at)
                if self._may_retry(hold, own):
                    entry.absorbed.append({"status": 502, "wait_s": None, "message": f"unreachable: {note}"[:500]})
                    hand_over_body()
                    hold.wait_from(tried_at)
                    return None
                entry.status, entry.error = (
                    502,
                    {"status": 502, "type": "gateway", "message": f"upstream unreachable: {note}"},
                )
                response = _refusal(
                    502,
                    f"agent-eval gateway: the model endpoint {self.credential.upstream} is unreachable ({note})",
                    retry=not hold.health.gave_up,
                )
            else:  # the CLI hung up mid-stream
                assert reader is not None  # made with the response
                reader.close(note)
                if request.transport is not None:
                    request.transport.close()
        except asyncio.CancelledError:
            if reader is not None:
                reader.close("the CLI closed the connection")
            else:
                entry.error = {"status": 0, "type": "cancelled", "message": "the CLI closed the connection"}
            raise
        finally:
            if hold.limited:
                self.limiter.release(outcome, status=code, wait_s=wait, sent_at=tried_at, own=own)
        return response

    async def _usage_limit(self, upstream, hold: Hold) -> tuple[UsageLimit | None, bytes | None]:
        """A 429 of a model request is read whole (it is small) to see whether it is a subscription's usage limit;
        the bytes read are passed on as they came when it is not held."""
        if upstream.status != 429 or not hold.limited:
            return None, None
        try:
            body = await upstream.content.read()
        except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError, OSError) as e:
            raise UpstreamCut() from e
        return usage_limit(upstream.status, upstream.headers, body), body

    def _wait_for_reset(self, limit: UsageLimit, status: int, body: bytes, entry, hand_over_body) -> bool:
        """Holds the run's requests until the window resets (True), or says why not (False: past the bound)."""
        waiting = self.usage.until
        until = self.usage.met(limit)
        hand_over_body()
        if until is None:
            reset = clock_time(limit.reset_at) if limit.reset_at else "an unknown time"
            self.limiter.notices.append(
                f"usage limit ({limit.shape}): the window resets at {reset}, past --quota-wait-hours "
                f"({duration(self.usage.bound_s)}): the answer goes to the CLI, its item ends rate_limited"
            )
            return False
        if waiting != until:
            self.limiter.notices.append(
                f"usage limit ({limit.shape}) reached: every request held until {clock_time(until)} "
                f"(the reset{' ' + clock_time(limit.reset_at) if limit.reset_at else ''} and a margin); "
                "the items' clocks are stopped meanwhile"
            )
        self.limiter.pause_until(time.monotonic() + max(0.0, until - time.time()))
        entry.absorbed.append(
            {"status": status, "wait_s": None, "message": body[:ERROR_BODY_CHARS].decode(errors="replace")}
        )
        return True

    def _failed(self, hold: Hold, code: int | str, tried_at: float) -> bool:
        """Records a failed try; True when it counts against the item: the provider answered a request of the
        run, or the gateway's own probe, sent since the item's failures began. Else it answered no one: the
        failure looks like the provider's, and the provider is asked with a probe (health_probe.py)."""
        streak = hold.health.streak_start(tried_at)
        own = self.limiter.answered_since(streak)
        hold.health.failed(code, own, "requests" if self.limiter.requests_answered_since(streak) else "probe")
        if not own and hold.ask_provider is not None:
            hold.ask_provider()
        return own

    def _probed(self, result: ProbeResult, wire: str) -> None:
        """A probe's outcome: its price to the run's spend; an answer tells the limiter the provider is up."""
        if result.entry is not None:
            self.spend.charge(self._probes_spend, result.entry, wire)
        if result.answered:
            self.limiter.probe_answered(result.sent_at)

    @staticmethod
    def _may_retry(hold: Hold, own: bool) -> bool:
        """Whether the gateway sends a failed request again itself: always while the provider answers no one
        (held up to the outage bound), at most GATEWAY_RETRIES times for the item's own failures."""
        if not hold.limited or hold.health.gave_up:
            return False
        if own:
            hold.own_retries += 1
            return hold.own_retries <= GATEWAY_RETRIES
        hold.down = True
        return True

    async def _hold_again(
        self, upstream, wait, entry, hold: Hold, tried_at: float, hand_over_body, body: bytes | None = None
    ) -> None:
        """The answer stays here (the ledger keeps it); the request is held and sent again. `body`: the answer's,
        when it was read already."""
        hand_over_body()
        entry.absorbed.append(await _absorbed(upstream, wait) if body is None else _absorbed_body(upstream, wait, body))
        hold.wait_from(tried_at)  # the refused try's time is a wait too
        return None

    def _held_too_long(self, entry, hold: Hold) -> web.Response:
        """A request held its bound: while the provider answered no one (the outage bound) the item gives up
        (upstream_error); for rate limits the CLI gets the 429 it would have had."""
        if hold.down or self.limiter.down:
            hold.health.outage(time.monotonic() - hold.since, self.outage_hold_s)
            return _refused_for_failures(entry, hold.health)
        message = f"agent-eval gateway: held {MAX_HOLD_S:g}s for the provider's rate limits; not sent"
        entry.status, entry.refused = 429, True
        entry.error = {"status": 429, "type": REFUSED, "message": message}
        body = {"type": "error", "error": {"type": "rate_limit_error", "message": message}}
        return web.Response(
            status=429, text=json.dumps(body), content_type="application/json", headers={"x-should-retry": "false"}
        )


def env_proxy(upstream: str) -> URL | None:
    """The proxy the environment names for the provider (HTTP(S)_PROXY, NO_PROXY; its login in the URL or
    ~/.netrc), found as aiohttp's trust_env finds it, once per run: trust_env looks it up, ~/.netrc read again,
    in a worker thread on every request (about 1 ms of each), and adds ~/.netrc's login for the provider's host."""
    try:
        proxy, login = get_env_proxy_for_url(URL(upstream))
    except LookupError:
        return None
    return proxy.with_user(login.login).with_password(login.password) if login else proxy  # aiohttp sends it on


class UpstreamCut(Exception):
    """The provider's stream broke off (not the CLI's side of the connection)."""


def _cut_note(cut: UpstreamCut) -> str:
    return f"{type(cut.__cause__).__name__}: {cut.__cause__}"


async def _whole(upstream) -> tuple[list[bytes], UpstreamCut | None]:
    """The whole answer, read before any of it is passed on; and the cut, if the provider cut it."""
    got: list[bytes] = []
    try:
        async for chunk in _from_upstream(upstream):
            got.append(chunk)
    except UpstreamCut as cut:
        return got, cut
    return got, None


async def _replay(chunks: list[bytes], cut: UpstreamCut | None):
    for chunk in chunks:
        yield chunk
    if cut is not None:
        raise cut


async def _from_upstream(upstream):
    try:
        async for chunk in upstream.content.iter_any():
            yield chunk
    except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError, OSError) as e:
        raise UpstreamCut() from e


async def _absorbed(upstream, wait: float | None) -> dict:
    """An answer the gateway took instead of the CLI, for the ledger: status, the wait asked, the message."""
    try:
        body = await upstream.content.read(ERROR_BODY_CHARS)
    except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError, OSError) as e:
        return {"status": upstream.status, "wait_s": wait, "message": f"{type(e).__name__}: {e}"}
    return _absorbed_body(upstream, wait, body)


def _absorbed_body(upstream, wait: float | None, body: bytes) -> dict:
    return {"status": upstream.status, "wait_s": wait, "message": body[:ERROR_BODY_CHARS].decode(errors="replace")}


@dataclass
class Hold:
    """One CLI request's stay at the gateway: since when, how many tries, and whether it passes the limiter."""

    health: ItemUpstream
    entry: RequestEntry
    since: float
    limiter: RateLimiter
    limited: bool  # a model request: it passes the limiter
    outage_s: float = OUTAGE_HOLD_S  # the bound while the provider answers no one
    ask_provider: Callable[[], None] | None = None  # sends the gateway's own probe, if one is due
    tries: int = 0
    own_retries: int = 0  # tries sent again after a failure counted against the item
    down: bool = False  # held because the provider answered no one: the outage bound applies
    waiting: bool = False  # in the queue or between tries (not while a try is with the provider)
    last_try: float | None = None
    usage: UsageWait | None = None  # the run's wait for a subscription window: the bounds restart after it
    bound_from: float = 0.0  # the end of the latest such wait (its bound counts from there)

    def __post_init__(self):
        self.wait_from(self.since)

    def wait_from(self, at: float) -> None:
        """Held from `at` on: from its arrival, or from a try the gateway answered for the CLI (a 429, a 5xx)."""
        if not self.waiting:
            self.limiter.holding += 1
        self.waiting = True
        self.health.hold_started(id(self), at)

    def sent(self, at: float) -> None:
        """A try went upstream: until it answers, the time is the provider's answer's, not a wait (a provider
        that never answers is a timeout, which held time must not postpone)."""
        self.last_try = at
        self._stop(at)

    def _stop(self, at: float) -> None:
        if self.waiting:
            self.waiting = False
            self.limiter.holding -= 1
            self.health.hold_ended(id(self), at)

    def left(self) -> float:
        """Seconds until its bound: the outage bound while the provider answers no one, else the rate limits';
        while the run waits for a subscription window, that wait and then the bound again."""
        now = time.monotonic()
        bound = self.outage_s if self.down or self.limiter.down else MAX_HOLD_S
        window = self.usage.holding() if self.usage is not None else None
        if window is not None:
            self.bound_from = max(self.bound_from, now + window)
        return max(0.0, bound - (now - max(self.since, self.bound_from)))

    def waited_too_long(self) -> bool:
        return self.left() <= 0

    def end(self, at: float) -> None:
        until = at if self.waiting or self.last_try is None else self.last_try
        self._stop(at)
        self.entry.held_ms = round(max(0.0, until - self.since) * 1000, 1)


def _refused_for_failures(entry, health: ItemUpstream) -> web.Response:
    """Answered here, not upstream: the CLI is told not to retry, the item ends `upstream_error`."""
    health.refuse()
    message = f"agent-eval gateway: not sent upstream: {health.verdict()}"
    entry.status, entry.refused = REFUSED_STATUS, True
    entry.error = {"status": REFUSED_STATUS, "type": REFUSED, "message": message}
    body = {"type": "error", "error": {"type": "api_error", "message": message}}
    return web.Response(
        status=REFUSED_STATUS,
        text=json.dumps(body),
        content_type="application/json",
        headers={"x-should-retry": "false"},
    )


async def _held_for_turn(request: web.Request, entry, ledger) -> web.Response:
    """A request the session's turn does not reach (ItemSetup.turn_over): never sent upstream, answered once its CLI
    has gone (the session's watch stops it within a second; a minute at most)."""
    for _ in range(600):  # (a CLI that hangs up first cancels this: _forward finishes the request then)
        if request.transport is None or request.transport.is_closing():
            break
        await asyncio.sleep(0.1)
    ledger.finish(entry)
    return _refused_by_gate(entry, "the session's turn is over")


def _refused_by_gate(entry, why: str) -> web.Response:
    """Answered here: the session's gate refused it (its tool-surface check failed); the session is being stopped."""
    message = f"agent-eval gateway: not sent upstream: {why}"
    entry.status, entry.refused = REFUSED_STATUS, True
    entry.error = {"status": REFUSED_STATUS, "type": REFUSED, "message": message}
    return _refusal(REFUSED_STATUS, message)


def _refusal(status: int, message: str, retry: bool = False) -> web.Response:
    """An API-shaped error both CLIs understand; Claude Code does not retry when told not to."""
    body = {"type": "error", "error": {"type": "api_error" if retry else "authentication_error", "message": message}}
    headers = {} if retry else {"x-should-retry": "false"}
    return web.Response(status=status, text=json.dumps(body), content_type="application/json", headers=headers)
