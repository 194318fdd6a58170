"""An MCP server (the official SDK) over streamable HTTP on loopback, served from the harness
process for one item: the observe tool and the image tools both run this way, outside the
sandbox, and each item's sandbox reaches only its own server (its `127.0.0.1:PORT` is the one
allowlisted there).

    with LoopbackMcpServer(lambda: build_server(...)) as server:
        server.url          # http://127.0.0.1:PORT/mcp  -> the CLIs' MCP config
        server.host_port    # 127.0.0.1:PORT             -> the sandbox allowlist

The port is bound at once, but the SDK's app is built and served in a background thread: the
agent CLI starts meanwhile, and its first connection waits in the listen backlog until the
server answers. So the first item of a run does not wait for the SDK's import (about 0.5 CPU-s,
once per process), and no item waits for its server's start-up.
"""
from __future__ import annotations

import asyncio
import importlib
import socket
import threading
from typing import Callable

STOP_TIMEOUT_S = 5.0
BACKLOG = 64
_IMPORT_LOCK = threading.Lock()


def load_sdk_module(name: str):
    """Import a module that imports the MCP SDK, one thread at a time: the SDK's modules import each
    other in a cycle, and a thread entering through `mcp` while another enters through `mcp.server`
    can see a half-initialised module ("cannot import name 'Server' from partially initialized
    module 'mcp.server'", seen in tests/tools/test_mcp_http.py)."""
    with _IMPORT_LOCK:
        return importlib.import_module(name)


def load_in_background(name: str) -> None:
    """Start load_sdk_module(name) in a daemon thread (a run's warm-up: later loads wait for it)."""
    threading.Thread(target=load_sdk_module, args=(name,), name=f"import-{name}", daemon=True).start()


class LoopbackMcpServer:
    """Start/stop one MCP server over streamable HTTP on 127.0.0.1 (a context manager).

    build: returns the `MCPServer` to serve; called in the server's thread (it may import the SDK).
    wait_on_exit: leaving the context waits until the server has stopped (about 0.2 s: uvicorn
    polls its exit flag); False lets it stop in its own thread, off the item's path."""

    def __init__(self, build: Callable[[], object], name: str = "mcp", host: str = "127.0.0.1", port: int = 0,
                 wait_on_exit: bool = True):
        self._build, self.name, self.host, self.wait_on_exit = build, name, host, wait_on_exit
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self.port: int = self._sock.getsockname()[1]
        self._thread: threading.Thread | None = None
        self._server = None
        self._stopping = threading.Event()
        self._ready = threading.Event()
        self.error: BaseException | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/mcp"

    @property
    def host_port(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self) -> "LoopbackMcpServer":
        self._sock.listen(BACKLOG)   # from here on, connections queue until the app serves them
        self._thread = threading.Thread(target=self._run, name=f"{self.name}-{self.port}", daemon=True)
        self._thread.start()
        return self

    def wait_ready(self, timeout: float = 10.0) -> bool:
        """True once the server answers (or False: it failed, see `error`, or is still starting)."""
        self._ready.wait(timeout)
        return self._server is not None and self._server.started

    def _run(self) -> None:
        try:
            import uvicorn
            app = self._build().streamable_http_app(host=self.host)
            config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2,
                                    access_log=False)
            server = uvicorn.Server(config)
            self._server = server
            if self._stopping.is_set():
                return
            asyncio.run(self._serve(server))
        except BaseException as error:  # kept for stop() and wait_ready(); the socket closes below
            self.error = error
        finally:
            self._sock.close()   # queued and later connections are refused, not left hanging
            self._ready.set()

    async def _serve(self, server) -> None:
        task = asyncio.ensure_future(server.serve(sockets=[self._sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.002)
        self._ready.set()
        await task

    def stop(self, wait: bool = True) -> None:
        """Ask the server to exit; with wait, until it has (uvicorn notices within 0.1-0.2 s).
        Without, it finishes in its own thread: the item need not wait for it."""
        self._stopping.set()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is None:
            self._sock.close()
        elif wait:
            self._thread.join(timeout=STOP_TIMEOUT_S)

    def __enter__(self) -> "LoopbackMcpServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop(wait=self.wait_on_exit)
