"""MCP servers (the official SDK) over streamable HTTP on loopback, served from the harness process:
the observe tool and the image tools both run this way, outside the sandbox.

One HTTP server per process (an `McpHost`: one uvicorn server, one thread, one event loop) carries
every item's MCP server, each mounted under a path of its own that nobody can guess, and each
item's sandbox may reach that path alone (its proxy allows the prefix `mount.endpoint` and nothing
else on that port; engine/sandbox.py, Endpoint):

    with McpHost.shared().mount(lambda: build_server(...), name="imagetools") as mount:
        mount.url          # http://127.0.0.1:PORT/<token>/mcp  -> the CLI's MCP config
        mount.endpoint     # http://127.0.0.1:PORT/<token>/*    -> the sandbox allowlist

Why one host: a uvicorn server with its thread and event loop, started and stopped for every item,
cost about a third more of the harness's CPU than a mount does (21 against 15 ms for an item that
lists the tools and calls one, side by side; docs/performance.md, part 6), and a port per item.
The port is bound at once, and the SDK is imported in the host's thread: the agent CLI starts
meanwhile, and its first connection waits in the listen backlog until the host answers.
An item's server is built in the host's loop as soon as it is mounted (while the item's sandbox and CLI
start: the CLI's first request would otherwise wait for it, about 20-35 ms; docs/performance.md, 6d), or
on its first request if the host was not serving yet, and its session manager runs (the SDK's own
multi-server pattern) until the item unmounts it.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import secrets
import socket
import threading
from typing import TYPE_CHECKING, Callable, Protocol
from urllib.parse import urlsplit

if TYPE_CHECKING:  # both are imported in the host's thread, when it starts (the SDK is slow to import)
    import uvicorn
    from mcp.server.mcpserver import MCPServer
    from starlette.applications import Starlette

STOP_TIMEOUT_S = 5.0
BACKLOG = 128
CALL_WAIT_S = 60.0  # how long a held tool call waits for its gate to decide
_IMPORT_LOCK = threading.Lock()


class CallGate(Protocol):
    """Holds an item's tool calls until it opens (engine/tool_surface.py: the session's tool-surface check)."""

    @property
    def open(self) -> bool: ...

    def wait(self, timeout: float) -> str | None:
        """None once calls may run (blocking until then, up to `timeout`); else why they are refused."""
        ...


def load_sdk_module(name: str):
    """Import a module that imports the MCP SDK (or one the SDK imports: uvicorn), one thread at a time: their
    modules import each other in cycles, and a thread entering through `mcp` while another enters through
    `mcp.server` can see a half-initialised module ("cannot import name 'Server' from partially initialized
    module 'mcp.server'", seen in tests/tools/test_mcp_http.py; the same of 'uvicorn.main' in a run)."""
    with _IMPORT_LOCK:
        return importlib.import_module(name)


def load_in_background(name: str) -> None:
    """Start load_sdk_module(name) in a daemon thread (a run's warm-up: later loads wait for it)."""
    threading.Thread(target=load_sdk_module, args=(name,), name=f"import-{name}", daemon=True).start()


class Mount:
    """One item's MCP server on a host, under /<token>/ (a context manager: leaving unmounts it).

    build: returns the `MCPServer` to serve; called in the host's loop on the item's first request."""

    def __init__(self, host: "McpHost", build: Callable[[], MCPServer], name: str):
        self.host, self._build, self.name = host, build, name
        self.token = secrets.token_hex(16)
        self.error: BaseException | None = None
        self._app: Starlette | None = None  # built in the host's loop on the first request
        self._started: asyncio.Future | None = None  # set in the host's loop
        self._closing: asyncio.Event | None = None
        self._task: asyncio.Task | None = None  # held: the loop keeps only a weak reference
        self.gate: CallGate | None = None  # while set and not open, its `tools/call` requests wait (or are refused)
        self.requests = 0  # that reached it (a leak test's evidence that no other sandbox did)
        self._unmounted = False  # set in the host's loop: a build not begun by then is not begun at all

    @property
    def prefix(self) -> str:
        return f"/{self.token}/"

    @property
    def url(self) -> str:
        return f"http://{self.host.host_port}{self.prefix}mcp"

    @property
    def endpoint(self) -> str:
        """What the item's sandbox must allow: plain HTTP to this prefix only (engine/sandbox.py, Endpoint)."""
        return f"http://{self.host.host_port}{self.prefix}*"

    def __enter__(self) -> "Mount":
        self.host._add(self)
        self.host._build_soon(self)
        return self

    def __exit__(self, *exc) -> None:
        self.host._remove(self)

    # -- in the host's loop

    async def app(self) -> Starlette:
        """The item's ASGI app, built and its session manager running (once; concurrent first requests wait)."""
        if self._started is None:
            if self._unmounted:  # only the build begun at mounting can come this late; nothing will ask for it
                raise RuntimeError(f"the {self.name} MCP server was unmounted before it was built")
            self._started = asyncio.get_running_loop().create_future()
            self._closing = asyncio.Event()
            self._task = asyncio.ensure_future(self._serve())
        await asyncio.shield(self._started)
        assert self._app is not None  # _serve builds it before it sets _started
        return self._app

    async def _serve(self) -> None:
        started, closing = self._started, self._closing
        assert started is not None and closing is not None  # app() sets both before it starts this task
        try:
            server = self._build()
            await _advertise_only_what_it_serves(server)
            # Plain JSON answers, not an SSE stream per request: no tool here sends progress or log notifications,
            # and a stream costs the host about 3 ms of CPU an item more (10 against 7: docs/performance.md, 6e).
            self._app = server.streamable_http_app(
                streamable_http_path=f"{self.prefix}mcp", host=self.host.host, json_response=True
            )
            async with server.session_manager.run():
                started.set_result(None)
                await closing.wait()
        except BaseException as error:  # kept for the item; its requests get 500
            self.error = error
            if not started.done():
                started.set_exception(error)

    async def build_now(self) -> None:
        """The build begun at mounting; a failure stays in `error` (its requests get 500), as on a first request."""
        with contextlib.suppress(Exception):
            await self.app()

    def _close(self) -> None:
        self._unmounted = True
        if self._closing is not None:
            self._closing.set()  # the session manager ends its sessions


class McpHost:
    """One loopback HTTP server carrying many items' MCP servers (see the module's docstring).

    `McpHost.shared()` is this process's host, started on first use; `McpHost(port=N).start()` a
    host of one's own (a manual server on a fixed port)."""

    _shared: dict[str, "McpHost"] = {}
    _shared_lock = threading.Lock()

    @classmethod
    def shared(cls, host: str = "127.0.0.1") -> "McpHost":
        with cls._shared_lock:
            found = cls._shared.get(host)
            if found is None or found.stopped:
                found = cls._shared[host] = cls(host).start()
            return found

    @classmethod
    def mount_at(cls, url: str) -> Mount | None:
        """The mount a shared host serves at `url` (an McpServer's), if any."""
        token = (urlsplit(url).path or "/").split("/", 2)[1]
        with cls._shared_lock:
            hosts = list(cls._shared.values())
        for host in hosts:
            with host._lock:
                found = host._mounts.get(token)
            if found is not None:
                return found
        return None

    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self.host = host
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self.port: int = self._sock.getsockname()[1]
        self._mounts: dict[str, Mount] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self.stopped = False
        self.error: BaseException | None = None

    @property
    def host_port(self) -> str:
        return f"{self.host}:{self.port}"

    def mount(self, build: Callable[[], MCPServer], name: str = "mcp") -> Mount:
        return Mount(self, build, name)

    def start(self) -> "McpHost":
        self._sock.listen(BACKLOG)  # from here on, connections queue until the app serves them
        self._thread = threading.Thread(target=self._run, name=f"mcp-host-{self.port}", daemon=True)
        self._thread.start()
        return self

    def wait_ready(self, timeout: float = 10.0) -> bool:
        """True once the host answers (or False: it failed, see `error`, or is still starting)."""
        self._ready.wait(timeout)
        return self._server is not None and self._server.started

    def stop(self, wait: bool = True) -> None:
        """Ask the server to exit (every mount with it); with wait, until it has (uvicorn notices
        within 0.1-0.2 s)."""
        self.stopped = True
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is None:
            self._sock.close()
        elif wait:
            self._thread.join(timeout=STOP_TIMEOUT_S)

    # -- mounts (called from the items' threads)

    def _add(self, mount: Mount) -> None:
        with self._lock:
            self._mounts[mount.token] = mount

    def _build_soon(self, mount: Mount) -> None:
        """Begin the mount's build in the host's loop now, if it is serving (else its first request builds it)."""
        loop = self._loop
        if loop is not None and not loop.is_closed() and self._ready.is_set():
            try:
                asyncio.run_coroutine_threadsafe(mount.build_now(), loop)
            except RuntimeError:  # the loop closed meanwhile: nothing will be served
                pass

    def _remove(self, mount: Mount) -> None:
        with self._lock:
            self._mounts.pop(mount.token, None)
            loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(mount._close)
            except RuntimeError:  # the loop closed meanwhile: its sessions are gone with it
                pass

    # -- the server's thread

    def _run(self) -> None:
        try:
            # Under the SDK's lock, uvicorn too: the SDK imports it, and a thread importing it while the run's warm-up
            # imports the SDK met its modules' cycle half done ("cannot import name 'Server' from partially
            # initialized module 'uvicorn.main'"): the host died and the run's first item found no tools.
            uvicorn = load_sdk_module("uvicorn")
            load_sdk_module("mcp.server")  # the SDK, once per process, before the first request
            config = uvicorn.Config(
                self._dispatch,
                interface="asgi3",
                log_level="warning",
                lifespan="off",
                proxy_headers=False,
                timeout_graceful_shutdown=2,
                access_log=False,
            )
            self._server = uvicorn.Server(config)
            if not self.stopped:
                asyncio.run(self._serve())
        except BaseException as error:  # kept for wait_ready(); the socket closes below
            self.error = error
        finally:
            self.stopped = True
            self._sock.close()  # queued and later connections are refused, not left hanging
            self._ready.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        server = self._server
        assert server is not None  # _run makes it before it starts this loop
        task = asyncio.ensure_future(server.serve(sockets=[self._sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.002)
        self._ready.set()
        await task

    async def _dispatch(self, scope, receive, send) -> None:
        """Route a request to the mount its first path segment names; anything else is 404."""
        if scope["type"] != "http":
            return  # no websockets, no lifespan (off): uvicorn closes the rest
        segment = (scope.get("path") or "/").split("/", 2)[1]
        with self._lock:
            mount = self._mounts.get(segment)
        if mount is None:
            return await _plain(send, 404, b"no such MCP server\n")
        mount.requests += 1
        try:
            app = await mount.app()
        except Exception:  # its build failed (kept in mount.error)
            return await _plain(send, 500, f"the {mount.name} MCP server did not start\n".encode())
        gate = mount.gate
        if gate is not None and not gate.open and scope.get("method") == "POST":
            body = await _whole_body(receive)
            call_id = _tool_call_id(body)
            if call_id is not None:
                why = await asyncio.to_thread(gate.wait, CALL_WAIT_S)
                if why is not None:  # nothing runs: the call fails with why (a JSON-RPC error: valid in every protocol
                    # version, and both CLIs show its message to the model); the session is being stopped meanwhile
                    error = {"code": -32000, "message": why}
                    return await _json(send, {"jsonrpc": "2.0", "id": call_id, "error": error})
            receive = _replay(body, receive)
        await app(scope, receive, send)


_UNSERVED_IF_EMPTY = ("prompts", "resources")
_HANDSHAKES = ("server/discover", "initialize")  # the 2026-07-28 protocol's discovery, and the earlier versions'


async def _advertise_only_what_it_serves(server: MCPServer) -> None:
    """The SDK's MCPServer advertises prompts and resources whether it holds any or not, and Claude Code then
    lists both at every start: two more connections an item through the sandbox's proxy, each about 3 ms of CPU
    there and 1 in this host (docs/performance.md, 6f). A server that holds neither says so in its handshake
    (through the SDK's middleware: its results are plain JSON there), and the CLI asks only for its tools."""
    if await server.list_prompts() or await server.list_resources() or await server.list_resource_templates():
        return

    async def tools_only(ctx, call_next):
        result = await call_next(ctx)
        if ctx.method in _HANDSHAKES and isinstance(result, dict) and isinstance(result.get("capabilities"), dict):
            capabilities = {k: v for k, v in result["capabilities"].items() if k not in _UNSERVED_IF_EMPTY}
            result = {**result, "capabilities": capabilities}
        return result

    server.middleware.append(tools_only)


async def _whole_body(receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive):
    """A `receive` that gives the app the body read already, then the connection's own (its disconnect)."""
    sent = False

    async def replayed():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def _tool_call_id(body: bytes):
    """The JSON-RPC id of a `tools/call` request (None: any other message)."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if isinstance(message, dict) and message.get("method") == "tools/call":
        return message.get("id")
    return None


async def _json(send, value: dict) -> None:
    body = json.dumps(value).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _plain(send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
