"""The loopback HTTP/1.1 server that plays scenarios to Claude Code and Codex."""

from __future__ import annotations

import gzip
import hashlib
import json
import socket
import sys
import threading
import time
import zlib
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agent_eval.scripted import anthropic_wire, responses_wire
from agent_eval.scripted.conversation import (
    Conversation,
    NotOffered,
    ResolvedCall,
    fill,
    fill_input,
    resolve_call,
    summary_text,
)
from agent_eval.scripted.prompt_cache import PromptCache
from agent_eval.scripted.scenario import Failure, Faults, Scenario, load_scenario, parse_faults

SIDE_REPLY = "Scripted session"
# The run's gateway asks this of the provider to tell an outage from an item's own failures
# (agent_eval/engine/gateway/health_probe.py PROBE_TEXT; tests/scripted check that both say the same).
GATEWAY_PROBE_TEXT = "agent-eval gateway health check: reply with the word OK."
SECRET_HEADERS = {"authorization", "x-api-key", "cookie", "proxy-authorization", "chatgpt-account-id"}


@dataclass
class RecordedRequest:
    """One request as the server saw it, plus what it answered."""

    seq: int
    time: float
    method: str
    path: str  # without the query
    query: str
    headers: dict[str, str]  # secrets removed
    body: Any  # parsed JSON (None if empty / not JSON)
    api: str | None = None  # "anthropic" | "responses" | None
    # main | side | compaction | judge | count_tokens | probe | models | over_limit | health_probe | other
    kind: str = "other"
    rule: int | None = None  # index of the matched scenario rule
    turn: int | None = None  # index of the turn played
    outcome: str = ""  # e.g. "call:Bash", "final", "fault:429", "hang", "truncate", "scripted-error"
    status: int = 200
    credential_sha256: str | None = None  # of the x-api-key or bearer value: which key arrived, not the key
    usage: dict | None = None  # the usage its answer reported, as that API words it (None: no answer with usage)
    body_bytes: int = 0  # the request body's size as sent (decompressed)
    # The handler's own bookkeeping, not logged: `logged` once its line is written, `done` once it is answered
    # and logged (close() waits for every request's `done`).
    logged: bool = False
    done: bool = False

    def to_json(self, elide_images: bool = True) -> str:
        data = asdict(self)
        del data["logged"], data["done"]
        return json.dumps(_elide(data) if elide_images else data)


def _credential_digest(headers) -> str | None:
    value = headers.get("x-api-key") or (headers.get("Authorization") or "").removeprefix("Bearer ").strip()
    return hashlib.sha256(value.encode()).hexdigest() if value else None


def _elide(value: Any) -> Any:
    """Shorten base64 payloads for the log file."""
    if isinstance(value, dict):
        return {k: _elide(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_elide(v) for v in value]
    if isinstance(value, str) and len(value) > 512 and (value.startswith("data:image") or " " not in value[:512]):
        return f"<{len(value)} chars elided>"
    return value


@dataclass
class _State:
    scenario: Scenario
    faults: Faults
    log_path: Path | None
    requests: list[RecordedRequest] = field(default_factory=list)
    main_count: int = 0
    first_main_at: float | None = None  # when the faults met their first main request (for `for_s`)
    in_flight: int = 0  # model requests being answered (for `faults.concurrency`)
    usage_reset_at: float | None = None  # `faults.usage_limit`: the window's reset (time.time), set at its first hit
    peak_in_flight: int = 0
    prompt_cache: PromptCache = field(default_factory=PromptCache)  # the prefixes sent, for `prompt_cache` rules
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "scripted-model/1"
    state: _State  # set on the subclass made per server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # ---- plumbing -------------------------------------------------------
    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):  # trailers
                        pass
                    break
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            data = b"".join(parts)
        else:
            length = int(self.headers.get("Content-Length") or 0)
            data = self.rfile.read(length) if length else b""
        encoding = (self.headers.get("Content-Encoding") or "").lower()
        if encoding == "gzip":
            data = gzip.decompress(data)
        elif encoding == "deflate":
            data = zlib.decompress(data)
        return data

    def _record(self, body: Any) -> RecordedRequest:
        url = urlsplit(self.path)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in SECRET_HEADERS}
        with self.state.lock:
            rec = RecordedRequest(
                len(self.state.requests),
                time.time(),
                self.command,
                url.path,
                url.query,
                headers,
                body,
                credential_sha256=_credential_digest(self.headers),
            )
            self.state.requests.append(rec)
        return rec

    def _finish(self, rec: RecordedRequest) -> None:
        if self.state.log_path is not None and not rec.logged:
            with self.state.lock, self.state.log_path.open("a") as fh:
                fh.write(rec.to_json() + "\n")
        rec.done = True  # close() waits for this: the client may have its answer before the log line exists

    def _send_json(self, status: int, payload: Any, extra: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("request-id", f"req_scripted_{int(time.time() * 1000)}")
        self.end_headers()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _sse(self, events: Any) -> None:
        self._start_sse()
        for event in events:
            self._chunk(event)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _abort(self) -> None:
        """Drop the connection without finishing the chunked body."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # ---- verbs ----------------------------------------------------------
    def do_HEAD(self) -> None:
        rec = self._record(None)
        rec.kind = "probe"
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
        self._finish(rec)

    def do_GET(self) -> None:
        rec = self._record(None)
        if rec.path.rstrip("/").endswith("/models"):
            rec.kind = "models"
            self._send_json(200, responses_wire.models_body(self.state.scenario.models))
        else:
            rec.kind = "probe"
            self._send_json(200, {"ok": True})
        self._finish(rec)

    def do_POST(self) -> None:
        raw = self._read_body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        rec = self._record(body)
        rec.body_bytes = len(raw)
        admitted: bool | None = False
        try:
            admitted = self._admit(rec)
            if admitted is None:
                return
            if raw and not isinstance(body, dict):
                rec.status, rec.outcome = 400, "bad-json"
                self._send_json(
                    400, {"error": {"type": "invalid_request_error", "message": "body is not a JSON object"}}
                )
            else:
                self._post(rec, body or {})
        finally:
            if admitted:
                with self.state.lock:
                    self.state.in_flight -= 1
            self._finish(rec)

    def _admit(self, rec: RecordedRequest) -> bool | None:
        """A provider's concurrency limit: True when counted in flight, False when no limit is set,
        None when refused (answered 429 here)."""
        state = self.state
        with state.lock:
            limit, retry_after = state.faults.concurrency, state.faults.retry_after
            if limit is None:
                return False
            if state.in_flight < limit:
                state.in_flight += 1
                state.peak_in_flight = max(state.peak_in_flight, state.in_flight)
                return True
        wire = responses_wire if rec.path.rstrip("/").endswith("/responses") else anthropic_wire
        rec.status, rec.outcome = 429, "concurrency:429"
        rec.kind = "over_limit"
        extra = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
        self._send_json(429, wire.error_body(429), extra)
        return None

    def _post(self, rec: RecordedRequest, body: dict[str, Any]) -> None:
        path = rec.path.rstrip("/")
        if path.endswith("/messages/count_tokens"):
            rec.api, rec.kind = "anthropic", "count_tokens"
            self._send_json(200, anthropic_wire.count_tokens_body())
            return
        if path.endswith("/messages"):
            rec.api = "anthropic"
            conv = anthropic_wire.parse(body)
            if self._judge(rec, body, conv) or self._health_probe(rec, body, conv):
                return
            if anthropic_wire.is_side_request(body, conv):
                rec.kind, rec.outcome = "side", "side"
                side_model = body.get("model") or anthropic_wire.MODEL
                if self._side_in_outage() and self.state.faults.for_model(side_model):  # an outage (`for_s`) fails
                    # every model request, side ones too
                    self._fault(rec, self.state.faults, anthropic_wire, body.get("model") or anthropic_wire.MODEL)
                    return
                rec.usage = dict(anthropic_wire.USAGE)
                model = body.get("model") or anthropic_wire.MODEL
                if body.get("stream"):
                    self._sse(anthropic_wire.events(model, SIDE_REPLY, []))
                else:
                    self._send_json(200, anthropic_wire.message_body(model, SIDE_REPLY))
                return
        elif path.endswith("/responses"):
            rec.api = "responses"
            conv = responses_wire.parse(body)
        else:
            rec.status, rec.outcome = 404, "not-found"
            self._send_json(404, {"error": {"message": f"no route {rec.path}"}})
            return
        if self._judge(rec, body, conv) or self._health_probe(rec, body, conv):
            return
        if conv.compaction:
            self._summary(rec, body, conv)
            return
        rec.kind = "main"
        self._main(rec, body, conv)

    def _summary(self, rec: RecordedRequest, body: dict[str, Any], conv: Conversation) -> None:
        """The CLI's own context compaction asks for a summary: a scripted one (conversation.summary_text),
        with the default usage; like a side request it neither plays a turn nor meets a fault."""
        rec.kind, rec.outcome = "compaction", "summary"
        wire = anthropic_wire if rec.api == "anthropic" else responses_wire
        rec.usage = json.loads(json.dumps(wire.USAGE))
        model = body.get("model") or "scripted"
        text = summary_text(conv)
        if not body.get("stream"):
            self._send_json(200, wire.message_body(model, text))
        elif rec.api == "anthropic":
            self._sse(anthropic_wire.events(model, text, []))
        else:
            self._sse(responses_wire.events(model, text, []))

    def _judge(self, rec: RecordedRequest, body: dict[str, Any], conv: Conversation) -> bool:
        """A judge request from the harness (not streamed, matched by a `judge` rule): one plain answer."""
        verdict = None if body.get("stream") else self.state.scenario.judge_reply(conv.prompt)
        if verdict is None:
            return False
        rec.kind, rec.outcome = "judge", "judge"
        wire = anthropic_wire if rec.api == "anthropic" else responses_wire
        self._send_json(200, wire.message_body(body.get("model") or "scripted", verdict))
        return True

    def _health_probe(self, rec: RecordedRequest, body: dict[str, Any], conv: Conversation) -> bool:
        """The run's gateway asking whether the provider is up: answered as the provider would answer a main
        request with that prompt, to that model, now (its faults included: an outage fails it, a fault that
        `match`es or `poison`s only some items' prompts does not), counted in no `times`, playing no turn."""
        if conv.prompt.strip() != GATEWAY_PROBE_TEXT or conv.tools:
            return False
        rec.kind = "health_probe"
        state = self.state
        model = body.get("model") or "scripted"
        wire = anthropic_wire if rec.api == "anthropic" else responses_wire
        with state.lock:
            faults = state.faults
            hit = faults.applies(conv.prompt, model) and faults.hits(
                state.main_count,
                0.0 if state.first_main_at is None else time.monotonic() - state.first_main_at,
            )
        if hit:  # (a hang: the gateway's own timeout ends its probe)
            self._fault(rec, faults, wire, model)
            return True
        rec.outcome, rec.usage = "health_probe", json.loads(json.dumps(wire.USAGE))
        if not body.get("stream"):
            self._send_json(200, wire.message_body(model, "OK"))
        elif rec.api == "anthropic":
            self._sse(anthropic_wire.events(model, "OK", []))
        else:
            self._sse(responses_wire.events(model, "OK", []))
        return True

    def _main(self, rec: RecordedRequest, body: dict[str, Any], conv: Conversation) -> None:
        state = self.state
        model = body.get("model") or "scripted"
        with state.lock:
            faults = state.faults
            poisoned = faults.poisons(conv.prompt, model)
            applies = faults.applies(conv.prompt, model) or poisoned
            index = state.main_count
            state.main_count += applies and not poisoned  # `times` counts the requests the faults apply to
            elapsed = 0.0
            if applies:
                if state.first_main_at is None:
                    state.first_main_at = time.monotonic()
                elapsed = time.monotonic() - state.first_main_at
        if not applies:
            faults = Faults()
        if faults.delay and state.stop.wait(faults.delay):
            self._abort()
            return
        wire = anthropic_wire if rec.api == "anthropic" else responses_wire
        if poisoned or (faults.hits(index, elapsed) and self._window_used_up(faults)):
            self._fault(rec, faults, wire, model)
            return
        text, calls, custom, failure = self._plan(rec, conv)
        if failure is not None:
            rec.status = failure.status
            self._send_json(failure.status, wire.error_body(failure.status, failure.message, failure.code))
            return
        assert rec.api is not None  # _post names the wire before it plays a main request
        rule = state.scenario.rules[rec.rule] if rec.rule is not None else None
        usage = rule.usage_for(rec.api, rec.turn or 0) if rule is not None else None
        if rule is not None and rule.prompt_cache and rule.tokens_per_byte:
            usage = state.prompt_cache.usage(rec.api, body, rec.body_bytes, rule.tokens_per_byte)
        elif rule is not None and rule.tokens_per_byte:
            usage = {"input_tokens": round(rec.body_bytes * rule.tokens_per_byte), "output_tokens": 20}
        rec.usage = usage or json.loads(json.dumps(wire.USAGE))
        if rec.api == "anthropic" and not body.get("stream"):
            self._send_json(200, anthropic_wire.message_body(model, text, calls, usage))
        elif rec.api == "anthropic":
            self._sse(anthropic_wire.events(model, text, calls, usage))
        else:
            self._sse(responses_wire.events(model, text, calls, custom, usage))

    def _window_used_up(self, faults: Faults) -> bool:
        """`faults.usage_limit`: whether the window is still used up (its reset, fixed at the first hit, is ahead);
        any other fault: always."""
        if faults.usage_limit is None:
            return True
        with self.state.lock:
            if self.state.usage_reset_at is None:
                self.state.usage_reset_at = time.time() + faults.usage_limit
            return time.time() < self.state.usage_reset_at

    def _side_in_outage(self) -> bool:
        """Whether `for_s` (an outage for everyone) is on now: then side requests get the fault too."""
        state = self.state
        with state.lock:
            faults = state.faults
            if faults.for_s is None or faults.kind is None:
                return False
            if state.first_main_at is None:
                state.first_main_at = time.monotonic()
            return time.monotonic() - state.first_main_at < faults.for_s

    def _fault(self, rec: RecordedRequest, faults: Faults, wire, model: str) -> None:
        """Answers with the fault: an error status, no answer (hang) or a stream cut mid-message."""
        if faults.kind == "status":
            assert faults.status is not None
            rec.status, rec.outcome = faults.status, f"fault:{faults.status}"
            extra = {}
            if faults.should_retry is not None:
                extra["x-should-retry"] = "true" if faults.should_retry else "false"
            if faults.retry_after is not None:
                extra["retry-after"] = f"{faults.retry_after:g}"
            self._send_json(faults.status, wire.error_body(faults.status, faults.message), extra)
            return
        if faults.kind == "usage_limit":
            assert self.state.usage_reset_at is not None  # fixed by _window_used_up
            rec.status, rec.outcome = 429, "usage_limit"
            body, headers = wire.usage_limit_answer(self.state.usage_reset_at)
            self._send_json(429, body, headers)
            return
        if faults.kind == "hang":
            rec.outcome = "hang"
            self._finish(rec)  # log now: this handler may never return
            rec.logged = True
            self.state.stop.wait()
            self._abort()
            return
        rec.outcome = "truncate"
        rec.usage = dict(anthropic_wire.USAGE_START) if rec.api == "anthropic" else None  # message_start's
        self._start_sse()
        for event in wire.truncated_events(model):
            self._chunk(event)
        self._abort()

    def _plan(
        self, rec: RecordedRequest, conv: Conversation
    ) -> tuple[str, list[ResolvedCall], set[str], Failure | None]:
        """Pick the rule and turn for this request; return (text, calls, custom tool names, the API error
        to answer instead)."""
        rules = enumerate(self.state.scenario.rules)
        rule_index, rule = next(
            ((i, r) for i, r in rules if r.applies(conv.prompt, conv.results_text, conv.system)), (None, None)
        )
        rec.rule = rule_index
        if rule is None:
            rec.outcome = "scripted-error"
            return "SCRIPTED-ERROR: no scenario rule matches the prompt", [], set(), None
        turn_index, turn = rule.turn_for(conv.n_results)
        rec.turn = turn_index
        if rule.stop is not None and conv.last_output and rule.stop[0].search(conv.last_output):
            rec.outcome = "final"
            return fill(rule.stop[1], conv), [], set(), None
        if turn is None:
            rec.outcome = "scripted-error"
            return f"SCRIPTED-ERROR: scenario exhausted after {conv.n_results} tool results", [], set(), None
        if turn.fail is not None:
            rec.outcome = f"fail:{turn.fail.status}"
            return "", [], set(), turn.fail
        if turn.is_final:
            rec.outcome = "final"
            text = fill(turn.say + (turn.final or ""), conv)
            return text, [], set(), None
        calls: list[ResolvedCall] = []
        try:
            for call in turn.calls:
                filled = type(call)(call.tool, fill_input(call.input, conv))
                calls.append(resolve_call(filled, conv))
        except NotOffered as exc:
            rec.outcome = "scripted-error"
            return f"SCRIPTED-ERROR: {exc}", [], set(), None
        rec.outcome = "call:" + ",".join(c.name for c in calls)
        custom = {t.name for t in conv.tools if t.kind == "custom"}
        return fill(turn.say, conv), calls, custom, None


class _QuietServer(ThreadingHTTPServer):
    """A client that drops its kept-alive connection (the gateway's connection pool closing an idle one) is no
    error of the scenario: not printed as one. Anything else still is."""

    def handle_error(self, request, client_address) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


class ScriptedServer:
    """A scripted model server on 127.0.0.1 in a background thread.

    >>> with ScriptedServer({"turns": [{"final": "<answer>4</answer>"}]}) as srv:
    ...     srv.url  # http://127.0.0.1:PORT  (Claude: ANTHROPIC_BASE_URL; Codex: base_url = url + "/v1")
    """

    def __init__(
        self,
        scenario: str | Path | dict | Scenario,
        log_path: str | Path | None = None,
        *,
        faults: dict | Faults | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ):
        self.scenario = load_scenario(scenario)
        chosen = parse_faults(faults) if faults is not None else self.scenario.faults
        self._state = _State(self.scenario, chosen, Path(log_path) if log_path else None)
        handler = type("ScriptedHandler", (_Handler,), {"state": self._state})
        self._httpd = _QuietServer((host, port), handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread: threading.Thread | None = None

    # ---- lifecycle ------------------------------------------------------
    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        host = self._httpd.server_address[0]
        assert isinstance(host, str)  # an AF_INET server's address (bytes only for AF_UNIX)
        return f"http://{host}:{self.port}"

    def start(self) -> "ScriptedServer":
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, args=(0.05,), name="scripted-server", daemon=True
            )
            self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._httpd.serve_forever()

    def close(self) -> None:
        self._state.stop.set()  # releases hanging / delayed handlers
        deadline = time.monotonic() + 2.0  # handlers finish their record after the answer went out
        while time.monotonic() < deadline and not all(r.done for r in list(self._state.requests)):
            time.sleep(0.005)
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()

    def __enter__(self) -> "ScriptedServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---- inspection -----------------------------------------------------
    @property
    def faults(self) -> Faults:
        return self._state.faults

    @faults.setter
    def faults(self, value: dict | Faults | None) -> None:
        with self._state.lock:
            self._state.faults = parse_faults(value)
            self._state.main_count = 0
            self._state.first_main_at = None

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def peak_in_flight(self) -> int:
        """The most model requests it was ever answering at once (with `faults.concurrency`)."""
        return self._state.peak_in_flight

    def main_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.kind == "main"]

    def compaction_requests(self) -> list[RecordedRequest]:
        """The CLI's own compaction asking for a summary (answered with a scripted one)."""
        return [r for r in self.requests if r.kind == "compaction"]

    def judge_requests(self) -> list[RecordedRequest]:
        """The harness's judge calls (model-graded scoring) the scenario's `judge` rules answered."""
        return [r for r in self.requests if r.kind == "judge"]

    def clear(self) -> None:
        with self._state.lock:
            self._state.requests.clear()
            self._state.main_count = 0
