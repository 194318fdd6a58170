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
from contextlib import contextmanager
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web
from yarl import URL

from agent_eval.agents.base import Auth
from agent_eval.engine.gateway.credentials import (
    DUMMY_PATTERN,
    CredentialError,
    RealCredential,
    inside_auth,
    real_credential,
    scratch_dir,
)
from agent_eval.engine.gateway.ledger import Ledger
from agent_eval.engine.gateway.spend import ItemSpend, RunSpend, wire_of

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


@dataclass
class Lease:
    """One item's door: its dummy token, the Auth its sandbox gets, and what passed through."""

    token: str
    auth: Auth
    ledger: Ledger
    spend: ItemSpend = field(default_factory=ItemSpend)


class Gateway:
    """A context manager: entering starts the server (127.0.0.1, a free port), leaving stops it."""

    def __init__(self, agent: str, auth: Auth, spend: RunSpend | None = None):
        self.agent = agent
        self.spend = spend or RunSpend()  # prices every answer; refuses requests past a spend cap
        self.credential: RealCredential = real_credential(agent, auth)
        self._leases: dict[str, Lease] = {}
        self._lock = threading.Lock()
        self.unattributed = 0  # requests that carried no dummy (e.g. Claude Code's `HEAD /` probe)
        self._loop: asyncio.AbstractEventLoop | None = None

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
            trust_env=True,
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
    def lease(self):
        """A fresh dummy token for one item; the Auth its CLI gets; its ledger."""
        token = secrets.token_hex(8)
        scratch = scratch_dir()
        try:
            auth = inside_auth(self.agent, self.credential.auth, token, self.base_url, scratch)
            lease = Lease(token, auth, Ledger())
            with self._lock:
                self._leases[token] = lease
            yield lease
        finally:
            with self._lock:
                found = self._leases.pop(token, None)
            if found is not None:
                self.spend.item_ended(found.spend)
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
        wire = wire_of(request.method, request.path)
        if lease is not None and wire is not None:
            refusal = self.spend.refusal(lease.spend, entry, wire)
            if refusal is not None:  # past a spend cap: nothing goes upstream
                await request.read()
                return refusal
        chunks: list[bytes] = []

        async def relay_body():  # the body goes on as it comes in; the ledger gets a copy
            async for chunk in request.content.iter_any():
                chunks.append(chunk)
                yield chunk

        if request.content_length is not None:
            headers["Content-Length"] = str(request.content_length)  # same framing as the CLI chose
        url = URL(self.credential.upstream + request.raw_path, encoded=True)
        response: web.StreamResponse | None = None
        reader = None
        handed_over = False

        def charge() -> None:  # what the answer's usage cost, added to the item's and the run's spend
            if lease is not None and wire is not None:
                self.spend.charge(lease.spend, entry, wire)

        def hand_over_body() -> None:  # to the ledger's reader, off the loop: the answer never waits for it
            nonlocal handed_over
            if not handed_over:
                handed_over = True
                body = b"".join(chunks)
                entry.request_bytes = len(body)
                ledger.read_later(entry, body, request.headers.get("Content-Encoding"))

        try:
            async with self._session.request(
                request.method,
                url,
                headers=headers,
                data=relay_body() if request.body_exists else None,
                allow_redirects=False,
            ) as upstream:
                reader = ledger.response_reader(
                    entry,
                    upstream.status,
                    upstream.headers.get("Content-Type", ""),
                    upstream.headers.get("Content-Encoding"),
                )
                response = web.StreamResponse(
                    status=upstream.status,
                    reason=upstream.reason,
                    headers={k: v for k, v in upstream.headers.items() if k.lower() not in HOP_BY_HOP},
                )
                await response.prepare(request)
                async for chunk in upstream.content.iter_any():
                    await response.write(chunk)  # as it arrives: no buffering of the stream
                    reader.feed(chunk)
                reader.close()  # recorded before the CLI sees the end: the item's record never misses it
                charge()  # priced before the CLI can send its next request
                hand_over_body()
                await response.write_eof()
        except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError, OSError) as e:
            note = f"{type(e).__name__}: {e}"
            if response is None:  # nothing sent to the CLI yet: the endpoint could not be reached
                entry.status, entry.error = (
                    502,
                    {"status": 502, "type": "gateway", "message": f"upstream unreachable: {note}"},
                )
                response = _refusal(
                    502,
                    f"agent-eval gateway: the model endpoint {self.credential.upstream} is unreachable ({note})",
                    retry=True,
                )
            else:  # cut mid-stream, by the upstream or by the CLI
                reader.close(note)
                if request.transport is not None:
                    request.transport.close()  # pass a cut on as a cut (what was sent is flushed first)
        except asyncio.CancelledError:
            if reader is not None:
                reader.close("the CLI closed the connection")
            else:
                entry.error = {"status": 0, "type": "cancelled", "message": "the CLI closed the connection"}
            raise
        finally:
            charge()
            hand_over_body()
        return response


def _refusal(status: int, message: str, retry: bool = False) -> web.Response:
    """An API-shaped error both CLIs understand; Claude Code does not retry when told not to."""
    body = {"type": "error", "error": {"type": "api_error" if retry else "authentication_error", "message": message}}
    headers = {} if retry else {"x-should-retry": "false"}
    return web.Response(status=status, text=json.dumps(body), content_type="application/json", headers=headers)
