"""A stand-in for the sandbox's proxy as it treats a kept-alive connection, made deterministic for tests.

tinyproxy serves one request on each client connection and then closes it, without telling the client (it drops
the server's `Connection: close`); a client that sends its next request on that connection before the close reaches
it loses the request (on a loaded machine the close comes late). This relay in front of the MCP host does the same on
purpose: it forwards the first request of each connection (saying `Connection: close` to the host) and its answer
(without the host's `Connection: close`), then holds the connection `linger_s`
before it closes it, and drops whatever the client sends on it meanwhile (counted in `dropped`: requests that never
reached the host)."""

from __future__ import annotations

import asyncio
import re
import threading

REQUEST_LINE = re.compile(rb"^(GET|POST|DELETE|PUT) \S+ HTTP/1\.[01]\r\n", re.MULTILINE)
CONNECTION = re.compile(rb"\r\nconnection:[^\r]*", re.IGNORECASE)
METHOD = re.compile(rb'"method":\s*"([^"]+)"')


def one_request(data: bytes) -> bytes:
    """The head of the request as tinyproxy sends it on: `Connection: close`, so the host closes after answering."""
    line_end = data.index(b"\r\n")
    return data[:line_end] + b"\r\nConnection: close" + CONNECTION.sub(b"", data[line_end:], count=1)


class OneShotProxy:
    def __init__(self, upstream_port: int, linger_s: float = 0.5):
        self.upstream_port, self.linger_s = upstream_port, linger_s
        self.connections = 0
        self.requests = 0  # forwarded to the host
        self.tool_calls = 0  # of those, MCP `tools/call` requests
        self.methods: list[str] = []  # the JSON-RPC methods forwarded, in order
        self.dropped: list[str] = []  # the request lines a client sent on a connection after its first
        self._loop = asyncio.new_event_loop()
        server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port: int = server.sockets[0].getsockname()[1]
        self._thread = threading.Thread(target=self._loop.run_forever, name="oneshot-proxy", daemon=True)
        self._thread.start()

    @property
    def host_port(self) -> str:
        return f"127.0.0.1:{self.port}"

    def close(self) -> None:
        async def cancel_all() -> None:  # connections still lingering go with the loop, quietly
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(cancel_all(), self._loop).result(timeout=5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self.connections += 1
        host_r, host_w = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        answered = asyncio.Event()

        async def from_client() -> None:
            while data := await client_r.read(65536):
                if answered.is_set():  # the connection's one request was answered: this never reaches the host
                    self.dropped += [m.group(0).decode().strip() for m in REQUEST_LINE.finditer(data)] or ["(bytes)"]
                    continue
                if REQUEST_LINE.match(data):
                    self.requests += 1
                    data = one_request(data)
                self.tool_calls += data.count(b'"method":"tools/call"')
                self.methods += [m.decode() for m in METHOD.findall(data)]
                host_w.write(data)
                await host_w.drain()

        reading = asyncio.ensure_future(from_client())
        head = True
        try:
            while data := await host_r.read(65536):
                if head:  # as tinyproxy: the host's `Connection: close` is not passed on
                    data, head = CONNECTION.sub(b"", data, count=1), False
                client_w.write(data)
                await client_w.drain()
        except ConnectionError:
            pass
        answered.set()  # the host closed its side: the answer is whole
        host_w.close()
        await asyncio.sleep(self.linger_s)  # the close reaches the client late
        reading.cancel()
        client_w.close()
