"""What the model gateway adds per request, on loopback.

    .venv/bin/python perf/gateway_latency.py [--requests 300]
    make bench   (runs it after run_bench.py)

An upstream standing in for the provider (aiohttp, its own process) answers POST /v1/messages
with a short Anthropic-style SSE stream (message_start, one delta, message_delta with usage,
message_stop). A client (http.client, one kept-alive connection per path, as the CLIs keep
theirs) sends the same request directly and through a `Gateway` (in this process, its own
thread, as in a run), alternating, and times the first byte and the whole answer. Two bodies:
a small turn (2 KB of JSON) and a turn carrying a 1232x912 PNG as base64 (the ledger decodes
its header for the size). Reported: medians and p90 of each, and of the per-pair difference.
Target: the added median under 5 ms. docs/performance.md has the figures.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import io
import json
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from PIL import Image  # noqa: E402

from agent_eval.agents.base import Auth  # noqa: E402
from agent_eval.engine.gateway import Gateway  # noqa: E402

UPSTREAM = textwrap.dedent("""
    import asyncio, json, sys
    from aiohttp import web
    EVENTS = [("message_start", {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 100,
                "cache_read_input_tokens": 40, "cache_creation_input_tokens": 0, "output_tokens": 1}}}),
              ("content_block_delta", {"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": "<answer>7</answer>"}}),
              ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 20}}),
              ("message_stop", {"type": "message_stop"})]
    async def messages(request):
        await request.read()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for name, data in EVENTS:
            await response.write(f"event: {name}\\ndata: {json.dumps(data)}\\n\\n".encode())
        await response.write_eof()
        return response
    app = web.Application(client_max_size=1 << 30)
    app.router.add_post("/v1/messages", messages)
    async def main():
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        print(runner.addresses[0][1], flush=True)
        await asyncio.Event().wait()
    asyncio.run(main())
""")


def bodies() -> dict[str, bytes]:
    small = {
        "model": "claude-opus-4-8",
        "max_tokens": 32000,
        "stream": True,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "x" * 1800}]}],
    }
    buffer = io.BytesIO()
    Image.effect_noise((1232, 912), 64).convert("RGB").save(buffer, "PNG")
    image = {
        **small,
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": "image/png",
                            "data": base64.b64encode(buffer.getvalue()).decode(),
                        },
                    },
                    {"type": "text", "text": "What is in the image?"},
                ],
            }
        ],
    }
    return {
        "small turn (2 KB)": json.dumps(small).encode(),
        f"turn with a 1232x912 PNG ({len(buffer.getvalue()) // 1024} KB)": json.dumps(image).encode(),
    }


def timed_request(conn: http.client.HTTPConnection, body: bytes, key: str) -> tuple[float, float]:
    """(first byte, whole answer) in ms."""
    started = time.perf_counter()
    conn.request("POST", "/v1/messages", body=body, headers={"Content-Type": "application/json", "x-api-key": key})
    response = conn.getresponse()
    response.read(1)
    first = time.perf_counter()
    data = response.read()
    done = time.perf_counter()
    assert response.status == 200 and b"message_stop" in data, (response.status, data[:200])
    return (first - started) * 1000, (done - started) * 1000


def stats(values: list[float]) -> str:
    values = sorted(values)
    return f"{statistics.median(values):7.2f} ms  (p90 {values[int(len(values) * 0.9)]:6.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="requests per body and path (default 300)")
    args = parser.parse_args()
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM], stdout=subprocess.PIPE, text=True)
    try:
        port = int(upstream.stdout.readline())
        url = f"http://127.0.0.1:{port}"
        auth = Auth(
            "custom_endpoint", [f"127.0.0.1:{port}"], env={"ANTHROPIC_API_KEY": "sk-bench-real-key-0000"}, base_url=url
        )
        with Gateway("claude-code", auth) as gateway, gateway.lease() as lease:
            dummy = lease.auth.env["ANTHROPIC_API_KEY"]
            direct = http.client.HTTPConnection("127.0.0.1", port)
            via = http.client.HTTPConnection("127.0.0.1", gateway.port)
            print(f"gateway latency on loopback, {args.requests} requests per body and path, alternating")
            results = {}
            image = list(bodies().items())[1]
            cases = [(name, body, False) for name, body in bodies().items()]
            cases.append((image[0] + ", ledger idle", image[1], True))
            for name, body, settle in cases:
                for _ in range(10):  # warm-up: connections, caches
                    timed_request(direct, body, "sk-bench-real-key-0000")
                    timed_request(via, body, dummy)
                rows = {"direct": [], "gateway": []}
                for n in range(args.requests):
                    if settle:  # as in a run: the model's turn leaves the ledger time to read the last body
                        lease.ledger.settle()
                    order = [("direct", direct, "sk-bench-real-key-0000"), ("gateway", via, dummy)]
                    for label, conn, key in order if n % 2 == 0 else order[::-1]:
                        rows[label].append(timed_request(conn, body, key))
                first_added = [g[0] - d[0] for d, g in zip(rows["direct"], rows["gateway"])]
                whole_added = [g[1] - d[1] for d, g in zip(rows["direct"], rows["gateway"])]
                results[name] = statistics.median(whole_added)
                print(f"\n{name}")
                print(
                    f"  first byte   direct {stats([r[0] for r in rows['direct']])}   "
                    f"gateway {stats([r[0] for r in rows['gateway']])}   added {stats(first_added)}"
                )
                print(
                    f"  whole answer direct {stats([r[1] for r in rows['direct']])}   "
                    f"gateway {stats([r[1] for r in rows['gateway']])}   added {stats(whole_added)}"
                )
            entries = lease.ledger.entries
            assert all(e.usage and e.usage["output_tokens"] == 20 for e in entries), "the ledger missed a usage"
            sizes = {(i.width, i.height) for e in entries for i in e.images}
            print(f"\nledger: {len(entries)} requests recorded, usage on every one, image sizes {sorted(sizes)}")
        print("\ntarget: added median < 5 ms per request (loopback)")
        for name, added in results.items():
            print(f"  {name:55s} {added:6.2f} ms   {'PASS' if added < 5 else 'MISS'}")
    finally:
        upstream.kill()
        upstream.wait()


if __name__ == "__main__":
    main()
