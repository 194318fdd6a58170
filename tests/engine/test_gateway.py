"""The model gateway on its own: the real credential goes on only outside, answers stream through
as they arrive, and the ledger records images, usage and errors as the API saw and answered them."""

import asyncio
import base64
import gzip
import http.client
import io
import json
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image

from agent_eval.agents.base import Auth
from agent_eval.datamodel.gateway_journal import LINES
from agent_eval.datamodel.records import ItemRecord
from agent_eval.engine.gateway import Gateway, Redactor, secret_values
from agent_eval.engine.gateway.credentials import inside_auth
from agent_eval.engine.gateway.ledger import Ledger
from agent_eval.engine.gateway.upstream_health import ITEM_FAILURES

REAL = "sk-ant-REAL-" + "x" * 24


def png_b64(width, height) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (10, 20, 30)).save(buffer, "PNG")
    return base64.b64encode(buffer.getvalue()).decode()


class Upstream(BaseHTTPRequestHandler):
    """Stands in for the provider: records headers, streams SSE with a pause, fails on demand."""

    protocol_version = "HTTP/1.0"
    seen: list

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.seen.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}})
        self.send_response(200)
        self.end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.seen.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
        if "gz" in self.path:  # a gzip-compressed stream, as a proxy may send
            data = gzip.compress(
                b'event: message_delta\ndata: {"type": "message_delta", "usage": {"output_tokens": 5}}\n\n'
            )
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if "hang" in self.path:
            time.sleep(30)
            return
        if "cut" in self.path and "outage" not in self.path:  # promises 1000 bytes, sends 20, hangs up
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"event: message_start\n")
            self.wfile.flush()
            return
        if "fail" in self.path:  # an error the gateway passes on as it came
            self.error(400, "invalid_request_error", "no such model")
            return
        if "limited" in self.path and self.server.limited > 0:  # a rate limit, the first N times
            self.server.limited -= 1
            self.error(429, "rate_limit_error", "slow down", {"retry-after": "0.3"})
            return
        if "down" in self.path:  # the provider failing, every time
            self.error(500, "api_error", "internal error")
            return
        if "outage" in self.path and time.monotonic() < self.server.down_until:  # failing for everyone a while
            if "cut" not in self.path:
                self.error(500, "api_error", "internal error")
                return
            self.send_response(200)  # or cutting every stream
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"event: message_start\n")
            self.wfile.flush()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        start = {
            "type": "message_start",
            "message": {
                "usage": {
                    "input_tokens": 7,
                    "cache_read_input_tokens": 3,
                    "cache_creation_input_tokens": 0,
                    "output_tokens": 1,
                }
            },
        }
        self.wfile.write(f"event: message_start\ndata: {json.dumps(start)}\n\n".encode())
        self.wfile.flush()
        time.sleep(self.server.pause)
        delta = {"type": "message_delta", "usage": {"output_tokens": 11}}
        self.wfile.write(f"event: message_delta\ndata: {json.dumps(delta)}\n\n".encode())
        self.wfile.write(b'event: message_stop\ndata: {"type": "message_stop"}\n\n')
        if "linger" in self.path:  # the answer is whole, the stream's end comes later
            self.wfile.flush()
            time.sleep(2)

    def error(self, status: int, kind: str, message: str, headers: dict | None = None) -> None:
        data = json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def upstream():
    seen = []
    handler = type("H", (Upstream,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.pause = 0.0  # between the stream's first event and the rest: the tests about streaming set one
    server.limited = 2
    server.down_until = 0.0
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()  # shutdown waits a poll
    yield server, seen, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def post(url, body: dict, headers: dict, timeout: float = 10):
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json", **headers}
    )
    return urllib.request.urlopen(request, timeout=timeout)


def test_the_real_key_is_added_outside_and_the_stream_arrives_as_it_is_sent(upstream):
    server, seen, url = upstream
    server.pause = 1.0
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL, "ANTHROPIC_BASE_URL": url}, base_url=url)
    with Gateway("claude-code", auth) as gateway, gateway.lease() as lease:
        inside = lease.auth
        assert REAL not in json.dumps(inside.env) and inside.env["ANTHROPIC_BASE_URL"] == gateway.base_url
        assert inside.endpoints == [f"127.0.0.1:{gateway.port}"]
        started = time.monotonic()
        with post(
            f"{gateway.base_url}/v1/messages?beta=true",
            {"model": "m", "messages": []},
            {"x-api-key": inside.env["ANTHROPIC_API_KEY"]},
        ) as response:
            first = response.readline()
            first_at = time.monotonic() - started
            rest = response.read()
            total = time.monotonic() - started
    assert first.startswith(b"event: message_start")
    assert first_at < 0.6 < 1.0 <= total, (first_at, total)  # the first event did not wait for the pause
    assert b"message_stop" in rest and REAL.encode() not in first + rest
    assert seen[0]["path"] == "/v1/messages?beta=true" and seen[0]["headers"]["x-api-key"] == REAL
    entry = lease.ledger.entries[0]
    assert entry.status == 200 and entry.usage == {
        "input_tokens": 10,
        "cached_input_tokens": 3,
        "cache_write_tokens": 0,
        "output_tokens": 11,
        "reasoning_tokens": None,
    }


def test_bearer_tokens_are_swapped_in_the_same_header_and_strangers_get_no_credential(upstream):
    _, seen, url = upstream
    auth = Auth("custom_endpoint", ["x"], env={"OPENAI_API_KEY": REAL}, base_url=url + "/v1")
    with Gateway("codex", auth) as gateway, gateway.lease() as lease:
        assert lease.auth.base_url == gateway.base_url and REAL not in json.dumps(lease.auth.env)
        post(
            f"{gateway.base_url}/responses",
            {"model": "m"},
            {"Authorization": f"Bearer {lease.auth.env['OPENAI_API_KEY']}"},
        ).read()
        urllib.request.urlopen(urllib.request.Request(f"{gateway.base_url}/", method="HEAD"), timeout=10).read()
        with pytest.raises(urllib.error.HTTPError) as refused:
            post(
                f"{gateway.base_url}/responses",
                {},
                {"Authorization": "Bearer sk-agent-eval-gateway-0123456789abcdef-0"},
            )
        assert refused.value.code == 401 and refused.value.headers["x-should-retry"] == "false"
    assert seen[0]["path"] == "/v1/responses" and seen[0]["headers"]["authorization"] == f"Bearer {REAL}"
    assert seen[1]["path"] == "/v1/" and "authorization" not in seen[1]["headers"]  # no dummy, no credential
    assert len(seen) == 2 and gateway.unattributed == 1


def test_the_ledger_records_images_with_sizes_usage_errors_and_disagreements(upstream):
    _, _, url = upstream
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=url)
    anthropic_body = {
        "model": "claude",
        "tools": [{"name": "Read"}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png_b64(40, 30)}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "content": [
                            {
                                "type": "image",
                                "source": {"type": "base64", "media_type": "image/png", "data": png_b64(20, 10)},
                            }
                        ],
                    }
                ],
            },
        ],
    }
    responses_body = {
        "model": "gpt",
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_image", "image_url": "data:image/png;base64," + png_b64(40, 30)},
                    {"type": "input_image", "image_url": "data:image/jpeg;base64," + png_b64(64, 48)},
                ],
            }
        ],
    }
    with Gateway("claude-code", auth) as gateway, gateway.lease() as lease:
        key = {"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]}
        post(f"{gateway.base_url}/v1/messages", anthropic_body, key).read()
        post(f"{gateway.base_url}/v1/responses", responses_body, key).read()
        with pytest.raises(urllib.error.HTTPError) as failed:
            post(f"{gateway.base_url}/fail", {}, key)
        assert failed.value.code == 400 and b"no such model" in failed.value.read()
        summary = lease.ledger.summary(
            {"usage": {"input_tokens": 10, "output_tokens": 11}, "images": 2, "error_statuses": []}
        )
    first, second, third = lease.ledger.entries
    assert [(i.width, i.height) for i in first.images] == [(40, 30), (20, 10)] and first.tools_offered == 1
    assert [(i.width, i.height, i.media_type) for i in second.images] == [(40, 30, "image/png"), (64, 48, "image/jpeg")]
    assert third.error == {"status": 400, "type": "invalid_request_error", "message": "no such model"}
    assert summary["requests"] == 3 and summary["image_sizes"] == ["20x10", "40x30", "64x48"]
    assert len(summary["images"]) == 3  # the 40x30 image sent twice counts once
    assert summary["usage"]["input_tokens"] == 20 and summary["http_errors"] == [{"status": 400, "count": 1}]
    notes = " | ".join(summary["discrepancies"])
    assert "input_tokens: the API returned 20 in total, the CLI reported 10" in notes
    assert "output_tokens: the API returned 22" in notes and "3 distinct image(s)" in notes
    assert "answered [400], the CLI reported none" in notes


def test_a_rate_limited_request_is_held_and_sent_again_the_cli_sees_only_the_answer(upstream):
    """The provider's 429 (retry-after 0.3 s, twice) never reaches the CLI: the gateway waits as asked and
    sends the request again; the ledger keeps what it absorbed and how long the request was held."""
    _, seen, url = upstream
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=url)
    with Gateway("claude-code", auth) as gateway, gateway.lease() as lease:
        upstream[0].pause = 0.0
        started = time.monotonic()
        answer = post(
            f"{gateway.base_url}/v1/limited", {"model": "m"}, {"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]}
        )
        assert answer.status == 200 and b"message_stop" in answer.read()
        took = time.monotonic() - started
        summary = lease.ledger.summary({})
    (entry,) = lease.ledger.entries
    assert len(seen) == 3 and [a["status"] for a in entry.absorbed] == [429, 429]
    assert [a["wait_s"] for a in entry.absorbed] == [0.3, 0.3] and took >= 0.6
    assert entry.status == 200 and entry.held_ms >= 600 and summary["http_errors"] == []
    assert lease.upstream.rate_limited == 2 and lease.upstream.held_s() >= 0.6
    assert gateway.limiter.limit < gateway.limiter.ceiling  # lowered for every item


def test_an_item_failing_while_the_provider_answers_others_costs_a_handful_of_requests_then_none(upstream):
    """Its first failure is held (no one answered since); once another item's request is answered, its failures
    are its own: the gateway retries twice itself, the CLI's next request once more, then the item's requests
    stay at the gateway (a 4xx no CLI retries) and its verdict names its failures. The run is never paused."""
    _, seen, url = upstream
    upstream[0].pause = 0.0
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=url)
    with Gateway("claude-code", auth) as gateway, gateway.lease() as poisoned, gateway.lease() as other:
        key = {"x-api-key": poisoned.auth.env["ANTHROPIC_API_KEY"]}
        codes = []

        def client():
            for _ in range(3):
                try:
                    post(f"{gateway.base_url}/v1/down", {"model": "m"}, key)
                    codes.append((200, None))
                except urllib.error.HTTPError as failed:
                    codes.append((failed.code, failed.headers.get("x-should-retry")))

        thread = threading.Thread(target=client)
        thread.start()
        while not seen:
            time.sleep(0.01)
        answer = post(f"{gateway.base_url}/v1/ok", {"model": "m"}, {"x-api-key": other.auth.env["ANTHROPIC_API_KEY"]})
        assert answer.status == 200 and b"message_stop" in answer.read()
        thread.join(30)
        assert not gateway.limiter.breaker_open and not gateway.limiter.notices
    down = [r for r in seen if r["path"] == "/v1/down"]
    assert len(down) == 1 + ITEM_FAILURES  # 1 the provider's, 3 its own for the first request, 1 for the second
    assert codes == [(500, None), (500, "false"), (400, "false")]
    health = poisoned.upstream
    assert health.gave_up and health.refused == 1 and health.outage_failures == 1
    assert health.failures_in_a_row == ITEM_FAILURES and other.upstream.verdict() is None
    assert health.verdict().startswith(
        "the provider failed: HTTP 500 x5 in 5 upstream request(s); 4 in a row while it answered the run's other "
        "requests; so the gateway sent none of its requests after that; 1 request(s) refused at the gateway"
    )


def test_while_the_provider_answers_no_one_a_request_is_held_up_to_the_outage_bound_then_its_item_ends(upstream):
    """Every answer a 500 and nothing answered: the failures are the provider's, none counted against the item; the
    request is held (the CLI sees nothing) and probed again until the run's outage bound, then refused for good."""
    _, seen, url = upstream
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=url)
    with Gateway("claude-code", auth, outage_hold_s=4.0) as gateway, gateway.lease() as lease:
        key = {"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]}
        # the CLI waits longer than any hold: a subscription's window waited out (6 h by default) and a hold after it
        assert lease.auth.answer_wait_s == 6 * 3600 + 120.0 + 600.0
        lines = []
        watcher = threading.Timer(3.0, lambda: lines.append(gateway.limiter.snapshot().describe()))
        watcher.start()
        started = time.monotonic()
        with pytest.raises(urllib.error.HTTPError) as failed:
            post(f"{gateway.base_url}/v1/down", {"model": "m"}, key)
        took = time.monotonic() - started
        assert failed.value.code == 400 and failed.value.headers.get("x-should-retry") == "false"
        with pytest.raises(urllib.error.HTTPError) as again:  # the item is given up: nothing more goes upstream
            post(f"{gateway.base_url}/v1/down", {"model": "m"}, key)
        assert again.value.code == 400
    assert took >= 4.0 and len(seen) >= 3
    assert lines and lines[0].startswith("provider down ") and lines[0].endswith("holding 1 request(s) (bound 4s)")
    health = lease.upstream
    assert health.failures_in_a_row == 0 and health.outage_failures == len(seen) and health.gave_up
    assert health.held_s() >= 3.0  # the CLI's wait, not the agent's time
    assert re.search(
        r"it answered no request of the run while this item's was held \d+s \(the outage bound: 4s, ", health.verdict()
    )
    (entry, _) = lease.ledger.entries
    assert [a["status"] for a in entry.absorbed] == [500] * len(seen)


def test_an_item_whose_first_request_comes_with_the_breaker_open_may_end_unsent_its_verdict_naming_the_provider(
    upstream,
):
    """The breaker is open (one item's request failed 3 times, nothing answered) when a second item's first request
    comes: it queues behind the held request that probes, whose next turn (the breaker's pause, doubled after that
    probe fails) comes after the second item's bound, so none of the second item's requests goes upstream. Its
    verdict has no failure to start from: it names the provider itself (a loaded full run met this with three Codex
    items, one of them started late; its error began "it answered no request ...")."""
    _, seen, url = upstream
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=url)
    with Gateway("claude-code", auth, outage_hold_s=4.0) as gateway, gateway.lease() as first, gateway.lease() as late:
        codes = []

        def held_first() -> None:
            with pytest.raises(urllib.error.HTTPError) as refused:
                post(f"{gateway.base_url}/v1/down", {"model": "m"}, {"x-api-key": first.auth.env["ANTHROPIC_API_KEY"]})
            codes.append(refused.value.code)

        holding = threading.Thread(target=held_first)
        holding.start()
        deadline = time.monotonic() + 10
        while not gateway.limiter.breaker_open and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gateway.limiter.breaker_open
        with pytest.raises(urllib.error.HTTPError) as refused:
            post(f"{gateway.base_url}/v1/down", {"model": "m"}, {"x-api-key": late.auth.env["ANTHROPIC_API_KEY"]})
        holding.join()
    assert refused.value.code == 400 and codes == [400]
    health = late.upstream
    assert health.gave_up and health.upstream_requests == 0 and not health.failures and health.held_in_outage >= 4.0
    verdict = health.verdict()
    assert verdict.startswith("the provider answered no request of the run while this item's was held 4s"), verdict
    assert "none of its requests went upstream" in verdict
    assert first.upstream.verdict().startswith("the provider failed: HTTP 500 x")


@pytest.mark.parametrize("path", ["/v1/outage", "/v1/outage-cut"], ids=["500", "cut"])
def test_held_requests_go_when_the_provider_answers_again_and_a_probes_cut_never_reaches_the_cli(upstream, path):
    """The provider fails everyone for 2 s. 500s: the request is held through them and answered whole. Cut
    streams: the first reaches the CLI as a cut (its stream had begun); the CLI's next request is a probe, read
    whole before the CLI sees any of it, so the cuts after that stay at the gateway and the answer comes whole."""
    server, seen, url = upstream
    server.pause = 0.0
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=url)
    with Gateway("claude-code", auth, outage_hold_s=60.0) as gateway, gateway.lease() as lease:
        key = {"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]}
        server.down_until = time.monotonic() + 2.0
        if "cut" in path:
            response = post(f"{gateway.base_url}{path}", {"model": "m"}, key)
            with pytest.raises(http.client.IncompleteRead):
                response.read()
        answer = post(f"{gateway.base_url}{path}", {"model": "m"}, key)
        assert answer.status == 200 and answer.read().endswith(b'"message_stop"}\n\n')
        assert time.monotonic() >= server.down_until
    health = lease.upstream
    kind = "cut" if "cut" in path else "500"
    assert health.failures == {kind: len(seen) - 1} and health.outage_failures == len(seen) - 1 >= 2
    assert health.failures_in_a_row == 0 and not health.gave_up and health.verdict() is None
    assert health.held_s() >= 1.0


def test_a_stream_the_upstream_cuts_reaches_the_cli_cut(upstream):
    """Not a cleanly ended (shorter) answer: the CLI must see the cut to retry as it would."""
    _, _, url = upstream
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=url)
    with Gateway("claude-code", auth) as gateway, gateway.lease() as lease:
        response = post(f"{gateway.base_url}/cut", {}, {"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]})
        with pytest.raises(http.client.IncompleteRead) as cut:
            response.read()
        assert cut.value.partial == b"event: message_start\n"
    assert lease.ledger.entries[0].error["type"] == "stream"


def test_a_custom_base_url_keeps_its_path(upstream):
    """E.g. a LiteLLM proxy at http://host/anthropic: the CLI's path goes under it, query and all."""
    _, seen, url = upstream
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=url + "/litellm/anthropic/")
    with Gateway("claude-code", auth) as gateway, gateway.lease() as lease:
        post(f"{gateway.base_url}/v1/messages?beta=true", {}, {"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]}).read()
    assert seen[0]["path"] == "/litellm/anthropic/v1/messages?beta=true"


def test_the_provider_is_reached_through_the_proxy_the_environment_names_unless_no_proxy_exempts_it(
    upstream, monkeypatch
):
    """As aiohttp's trust_env finds it (looked up once per run): HTTP_PROXY with its login, NO_PROXY."""
    _, seen, url = upstream  # here the stand-in provider plays the proxy: it records the request line's target
    monkeypatch.setenv("HTTP_PROXY", url.replace("http://", "http://user:pass%20word@"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")  # the test's own requests to the gateway go direct
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url="http://provider.invalid")
    with Gateway("claude-code", auth) as gateway, gateway.lease() as lease:
        post(f"{gateway.base_url}/v1/messages", {}, {"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]}).read()
    assert seen[0]["path"] == "http://provider.invalid/v1/messages"
    assert seen[0]["headers"]["proxy-authorization"] == "Basic " + base64.b64encode(b"user:pass word").decode()
    assert seen[0]["headers"]["x-api-key"] == REAL

    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens: the provider must be reached direct
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=url)
    with Gateway("claude-code", auth) as gateway, gateway.lease() as lease:
        post(f"{gateway.base_url}/v1/messages", {}, {"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]}).read()
    assert seen[1]["path"] == "/v1/messages"


def test_a_cli_that_hangs_up_cancels_its_request_and_the_gateway_stops_at_once(upstream):
    _, _, url = upstream
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=url)
    with Gateway("claude-code", auth) as gateway, gateway.lease() as lease:
        request = urllib.request.Request(
            f"{gateway.base_url}/hang",
            data=b"{}",
            method="POST",
            headers={"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]},
        )
        with pytest.raises(OSError):  # the client gives up (as a killed CLI would)
            urllib.request.urlopen(request, timeout=0.5)
        deadline = time.monotonic() + 5
        while lease.ledger.entries[0].error is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lease.ledger.entries[0].error["message"] == "the CLI closed the connection"
        # A second request left hanging when the run ends does not hold the gateway up.
        threading.Thread(
            target=lambda: _ignore(lambda: urllib.request.urlopen(request, timeout=20)), daemon=True
        ).start()
        time.sleep(0.6)
        # With the provider, not held: waiting for an answer that never comes does not move the item's timeout.
        assert lease.upstream.held_s(time.monotonic()) < 0.2
        stopping = time.monotonic()
    assert time.monotonic() - stopping < 5


@pytest.mark.parametrize("path, hang_up_after", [("/linger", b"message_stop"), ("/v1/messages", b"message_start")])
def test_a_cli_that_hangs_up_after_the_whole_answer_is_no_error_and_before_it_is_one(upstream, path, hang_up_after):
    """Codex drops the connection on `response.completed`, before the stream's end reaches it: under load
    the gateway was still waiting for that end, and counted a whole answer as an error."""
    server, _, url = upstream
    server.pause = 1.0  # the hang-up comes between the stream's first event and the rest
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=url)
    with Gateway("claude-code", auth) as gateway, gateway.lease() as lease:
        connection = http.client.HTTPConnection(gateway.base_url.split("//")[1], timeout=10)
        connection.request("POST", path, body=b"{}", headers={"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]})
        response = connection.getresponse()
        while hang_up_after not in response.fp.readline():
            pass
        connection.sock.shutdown(socket.SHUT_RDWR)
        connection.close()
        deadline = time.monotonic() + 5
        while not lease.ledger.entries or lease.ledger.entries[0].elapsed_ms is None:
            assert time.monotonic() < deadline, "the gateway never finished the request"
            time.sleep(0.05)
        entry = lease.ledger.entries[0]
    if hang_up_after == b"message_stop":
        assert entry.error is None and entry.usage["output_tokens"] == 11
    else:
        assert entry.error["status"] == 200 and entry.error["message"] == "the CLI closed the connection"


def _ignore(call):
    try:
        call()
    except OSError:
        pass


def test_compressed_bodies_pass_unchanged_and_are_still_read(upstream):
    _, seen, url = upstream
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=url)
    body = gzip.compress(
        json.dumps(
            {
                "messages": [
                    {
                        "content": [
                            {
                                "type": "image",
                                "source": {"type": "base64", "media_type": "image/png", "data": png_b64(12, 34)},
                            }
                        ]
                    }
                ]
            }
        ).encode()
    )
    with Gateway("claude-code", auth) as gateway, gateway.lease() as lease:
        request = urllib.request.Request(
            f"{gateway.base_url}/gz",
            data=body,
            method="POST",
            headers={
                "Content-Encoding": "gzip",
                "Accept-Encoding": "gzip",
                "x-api-key": lease.auth.env["ANTHROPIC_API_KEY"],
            },
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.headers["Content-Encoding"] == "gzip"
            assert b"output_tokens" in gzip.decompress(response.read())
        lease.ledger.settle()
    assert seen[0]["body"] == body  # the bytes the CLI sent, not re-encoded
    entry = lease.ledger.entries[0]
    assert [(i.width, i.height) for i in entry.images] == [(12, 34)] and entry.usage["output_tokens"] == 5


def test_an_unreachable_upstream_is_a_recorded_502():
    """Unreachable for everyone is an outage: held to the bound, each try recorded as a 502; a request that is not
    a model request (Claude Code's HEAD probe) gets the 502 at once."""
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url="http://127.0.0.1:9")
    with Gateway("claude-code", auth, outage_hold_s=1.0) as gateway, gateway.lease() as lease:
        key = {"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]}
        with pytest.raises(urllib.error.HTTPError) as probe:
            urllib.request.urlopen(urllib.request.Request(f"{gateway.base_url}/", method="HEAD", headers=key))
        assert probe.value.code == 502
        with pytest.raises(urllib.error.HTTPError) as failed:
            post(f"{gateway.base_url}/v1/messages", {}, key)
        assert failed.value.code == 400 and b"unreachable" in failed.value.read()
    assert lease.ledger.entries[0].error["status"] == 502
    assert {a["status"] for a in lease.ledger.entries[1].absorbed} == {502}


def test_login_files_inside_hold_no_secret(tmp_path):
    claude_file, codex_file = tmp_path / "claude.json", tmp_path / "auth.json"
    claude_file.write_text(
        json.dumps(
            {
                "claudeAiOauth": {
                    "accessToken": "sk-ant-oat01-" + "a" * 40,
                    "refreshToken": "sk-ant-ort01-" + "b" * 40,
                    "expiresAt": 1,
                    "subscriptionType": "max",
                }
            }
        )
    )
    claims = base64.urlsafe_b64encode(json.dumps({"email": "u@example.com"}).encode()).decode().rstrip("=")
    codex_file.write_text(
        json.dumps(
            {
                "OPENAI_API_KEY": None,
                "tokens": {
                    "id_token": f"eyJhbGciOiJSUzI1NiJ9.{claims}.SIGNATURE-" + "c" * 30,
                    "access_token": "eyJ-access-" + "d" * 40,
                    "refresh_token": "rt-" + "e" * 40,
                    "account_id": "acct-1234",
                },
                "last_refresh": "2026-01-01T00:00:00Z",
            }
        )
    )
    for agent, name, path in (
        ("claude-code", ".claude/.credentials.json", claude_file),
        ("codex", ".codex/auth.json", codex_file),
    ):
        auth = Auth("login", ["x"], files={name: path})
        scratch = tmp_path / agent
        scratch.mkdir()
        inside = inside_auth(agent, auth, "0123456789abcdef", "http://127.0.0.1:1", scratch)
        text = inside.files[name].read_text() + json.dumps(inside.env)
        secrets = secret_values(auth)
        assert secrets and not [s for s in secrets if s in text and s != "acct-1234"]
        assert "sk-agent-eval-gateway-0123456789abcdef-0" in text
    assert "refreshToken" not in (tmp_path / "claude-code" / ".credentials.json").read_text()
    assert claims in (tmp_path / "codex" / "auth.json").read_text()  # the claims stay, the signature does not


def test_the_redactor_cleans_files_and_records(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "log.jsonl").write_text(f'{{"env": "KEY={REAL}"}}\n')
    (tmp_path / "clean.txt").write_text("nothing here")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"  # a link out is not followed
    outside.write_text(f"KEY={REAL}")
    (tmp_path / "a" / "link.txt").symlink_to(outside)
    (tmp_path / "a" / "dirlink").symlink_to(tmp_path.parent)
    redactor = Redactor([REAL, "short"])
    assert redactor.tree(tmp_path) == [tmp_path / "a" / "log.jsonl"]
    assert outside.read_text() == f"KEY={REAL}"
    assert (
        REAL not in (tmp_path / "a" / "log.jsonl").read_text()
        and "[REDACTED]" in (tmp_path / "a" / "log.jsonl").read_text()
    )
    record = ItemRecord(id="X-1", task="t", category="c", ground_truth="1", status="ok", answer_text=f"key {REAL}")
    assert redactor.record(record).answer_text == "key [REDACTED]"


def test_the_record_waits_for_the_gateway_to_finish_an_answer_the_cli_already_acted_on(upstream, monkeypatch):
    """A CLI may end on an answer's last event before the gateway has written the stream's end, priced
    it and handed its body over (Codex does): the item's summary waits for that, not a made-up $0."""
    from agent_eval.datamodel.pricing import RequestPrice
    from agent_eval.engine.gateway import spend

    def slow_price(wire, model, usage):
        time.sleep(1.0)
        return RequestPrice(0.5, "test")

    monkeypatch.setattr(spend, "price_request", slow_price)
    server, _, url = upstream
    server.pause = 0
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL, "ANTHROPIC_BASE_URL": url}, base_url=url)
    with Gateway("claude-code", auth) as gateway, gateway.lease() as lease:
        answer = post(
            f"{gateway.base_url}/v1/messages", {"model": "m"}, {"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]}
        )
        while b"message_stop" not in answer.readline():
            pass
        summary = lease.ledger.summary({})  # at once, as a CLI that exits on the last event
        assert lease.spend.to_json()["priced_requests"] == 1 and lease.spend.usd == 0.5
        assert summary["usage"]["output_tokens"] == 11


def test_the_context_an_answer_reports_is_told_as_it_streams_by_not_after_the_request_body_is_read():
    """A game's play tool decides on a hand-off from the context the last answer reported: under load the request's
    body (read later, in a pool) could still be waiting when the CLI called play on that answer, so play missed it."""
    ledger = Ledger()
    told = []
    ledger.on_usage = told.append
    entry = ledger.begin("POST", "/v1/messages", 10)
    reader = ledger.response_reader(entry, 200, "text/event-stream", None)
    start = {"type": "message_start", "message": {"usage": {"input_tokens": 60_000, "output_tokens": 1}}}
    reader.feed(f"event: message_start\ndata: {json.dumps(start)}\n\n".encode())
    assert [u["input_tokens"] for u in told] == [60_000]  # the answer is not over, the body not read
    reader.feed(b'event: message_delta\ndata: {"type": "message_delta", "usage": {"output_tokens": 11}}\n\n')
    assert told[-1]["output_tokens"] == 11 and entry.error is None


class Gate:
    """A session's gate as engine/tool_surface.py keeps it: pending until it has decided."""

    def __init__(self, verdict):
        self.verdict, self.seen = verdict, []

    @property
    def pending(self) -> bool:
        return self.verdict is not None

    async def admit(self, body, encoding, user_agent):
        self.seen.append((json.loads(body), user_agent))
        verdict, self.verdict = self.verdict, None
        return verdict or None


@pytest.mark.parametrize("verdict", ["", "tool surface: an extra tool"])
def test_a_pending_gate_sees_the_whole_request_before_anything_goes_upstream(upstream, verdict):
    _, seen, url = upstream
    auth = Auth("custom_endpoint", ["x"], env={"OPENAI_API_KEY": REAL}, base_url=url + "/v1")
    body = {"model": "m", "tools": [{"type": "function", "name": "exec_command"}], "input": "x" * 100_000}
    with Gateway("codex", auth) as gateway, gateway.lease() as lease:
        lease.gate = gate = Gate(verdict)
        headers = {"Authorization": f"Bearer {lease.auth.env['OPENAI_API_KEY']}", "User-Agent": "codex_exec/9.9"}
        if verdict:
            with pytest.raises(urllib.error.HTTPError) as refused:
                post(f"{gateway.base_url}/responses", body, headers)
            assert refused.value.code == 400 and refused.value.headers["x-should-retry"] == "false"
            assert verdict in json.loads(refused.value.read())["error"]["message"]
        else:
            post(f"{gateway.base_url}/responses", body, headers).read()
        post(f"{gateway.base_url}/responses", {"model": "m"}, headers).read()  # decided: passes, unread
    assert gate.seen == [(body, "codex_exec/9.9")]  # asked once, with the whole body and the CLI's User-Agent
    sent = [json.loads(s["body"]) for s in seen]
    assert sent == ([{"model": "m"}] if verdict else [body, {"model": "m"}])  # a refused request never left
    assert lease.ledger.entries[0].refused == bool(verdict)


class UndecidedGate:
    """A session's gate whose tool-surface check never decides (the CLI hangs up first): says when it was cancelled."""

    pending = True

    def __init__(self):
        self.cancelled = threading.Event()

    async def admit(self, body, encoding, user_agent):
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


def test_a_request_whose_cli_hangs_up_while_it_waits_for_the_tool_surface_check_is_finished_in_the_log(
    upstream, tmp_path
):
    """aiohttp cancels the handler of a request whose CLI hung up: the request is still finished in the item's log (its
    gateway.jsonl line written), as every other, else the item's record waits for it (settle's 10 s) at its end."""
    _, seen, url = upstream
    auth = Auth("custom_endpoint", ["x"], env={"OPENAI_API_KEY": REAL}, base_url=url + "/v1")
    with Gateway("codex", auth) as gateway, gateway.lease(tmp_path) as lease:
        lease.gate = gate = UndecidedGate()
        headers = {"Authorization": f"Bearer {lease.auth.env['OPENAI_API_KEY']}"}
        with pytest.raises(OSError):  # the CLI gives up (as a stopped session's would)
            post(f"{gateway.base_url}/responses", {"model": "m", "input": "x"}, headers, timeout=0.5)
        assert gate.cancelled.wait(10)  # its handler was cancelled while the gate had not decided
        log, deadline = tmp_path / LINES, time.monotonic() + 10
        while not (log.is_file() and log.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        [line] = [json.loads(text) for text in log.read_text().splitlines()]
        assert line["path"] == "/responses" and seen == []  # finished, never sent upstream


def test_once_its_attempt_has_ended_an_items_request_goes_upstream_no_more_and_its_numbers_stay(upstream):
    """A request of an item whose attempt has ended (its CLI gone, the sandbox's proxy not yet closing the connection)
    is refused at its next turn, and the record's numbers are those its verdict was given with: read later, a try then
    in flight counted in `upstream_requests` and not in the verdict (L::...[codex-cut] failed so on a loaded
    machine)."""
    server, seen, url = upstream
    server.limited = 1000  # a rate limit on every try: the request is held and sent again
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=url)
    with Gateway("claude-code", auth) as gateway, gateway.lease() as lease:
        key = {"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]}
        answer: list = []

        def send():
            try:
                post(f"{gateway.base_url}/v1/messages?limited", {"model": "m", "messages": []}, key)
            except urllib.error.HTTPError as error:
                answer.append((error.code, error.read().decode()))

        sender = threading.Thread(target=send)
        sender.start()
        while not seen:
            time.sleep(0.01)
        verdict = lease.upstream.settle()
        frozen, sent_by_then = lease.upstream.to_json(), len(seen)
        sender.join(timeout=30)
        assert answer and answer[0][0] == 400 and "the item's attempt has ended" in answer[0][1], answer
        assert len(seen) <= sent_by_then + 1  # at most the try then in flight
        assert lease.upstream.to_json() == frozen and verdict is None
