"""The loopback MCP-over-HTTP host the tool servers share (agent_eval/tools/mcp_http.py): the image
tools served from the harness answer as the stdio server did, each item's server only under its own
path, a client that connects while the SDK is still loading waits instead of failing, an unmounted
or unknown path is 404, and stopping a host frees its port."""

import json
import socket
import sys
import threading
import time
from urllib.error import HTTPError
from urllib.request import urlopen

import anyio
import mcp  # noqa: F401  (the client, imported before any server thread imports the SDK)
import pytest
from PIL import Image

from agent_eval.benchmarks.shared import image_tools
from agent_eval.tools.mcp_http import McpHost


def list_and_call(url: str, name: str, args: dict):
    from mcp import Client

    async def run():
        async with Client(url) as client:
            return (await client.list_tools()).tools, await client.call_tool(name, args)

    return anyio.run(run)


def test_image_tools_over_http_act_on_their_own_workdir_only(tmp_path):
    works = [tmp_path / "a", tmp_path / "b"]
    for size, work in zip(((30, 20), (70, 10)), works):
        work.mkdir()
        Image.new("RGB", size, "white").save(work / "image.png")
    with image_tools(works[0]) as (a, endpoint_a), image_tools(works[1]) as (b, endpoint_b):
        assert a.url.startswith("http://127.0.0.1:") and a.url == endpoint_a.removesuffix("*") + "mcp"
        assert endpoint_a != endpoint_b and endpoint_a.split("/")[2] == endpoint_b.split("/")[2]  # one host, two paths
        assert a.command is None and a.tools == ("inspect", "read_pixels", "info")
        tools, info_a = list_and_call(a.url, "info", {})
        _, info_b = list_and_call(b.url, "info", {})
    assert sorted(t.name for t in tools) == ["info", "inspect", "read_pixels"]
    assert json.loads(info_a.content[0].text)["width"] == 30 and json.loads(info_b.content[0].text)["width"] == 70


def _status(url: str, method: str = "GET") -> int:
    from urllib.request import Request

    try:
        with urlopen(Request(url, method=method), timeout=5) as answer:
            return answer.status
    except HTTPError as error:
        return error.code


def test_a_path_not_mounted_or_unmounted_is_404(tmp_path):
    Image.new("RGB", (5, 5)).save(tmp_path / "image.png")
    with image_tools(tmp_path) as (server, endpoint), image_tools(tmp_path) as (other, _):
        base = server.url.removesuffix(endpoint.split("/", 3)[3].removesuffix("*") + "mcp")
        list_and_call(server.url, "info", {})
        token, other_token = server.url.split("/")[3], other.url.split("/")[3]
        assert _status(server.url, "POST") in (400, 406)  # its own path: the MCP app (refusing a bare POST)
        for stranger in (
            "",
            "mcp",
            "x/mcp",
            token.upper() + "/mcp",
            token[:-1] + "/mcp",
            f"x/../{token}/mcp",
            f"{other_token}/../{token}/mcp",
            f"{token}/../{other_token}/mcp",
            f"{token}/%2e%2e/{other_token}/mcp",
        ):
            assert _status(base + stranger, "POST") == 404, stranger  # a path under one's own prefix stays there
    assert _status(server.url) == 404  # gone with the item


def test_a_client_connecting_before_the_app_is_built_waits_for_it(tmp_path):
    Image.new("RGB", (5, 5)).save(tmp_path / "image.png")
    released = threading.Event()

    def slow_build():  # as the first item's server waits for the SDK's import
        released.wait(10)
        from agent_eval.tools.imagetools.mcp_server import build_server

        return build_server(str(tmp_path))

    with McpHost.shared().mount(slow_build) as mount:
        threading.Timer(0.5, released.set).start()
        t0 = time.monotonic()
        _, info = list_and_call(mount.url, "info", {})
        assert time.monotonic() - t0 >= 0.4
    assert json.loads(info.content[0].text)["width"] == 5


def test_a_server_is_built_when_mounted_not_on_the_first_request(tmp_path):
    """The CLI's first request does not wait for the item's server: it is built while the sandbox and CLI start."""
    Image.new("RGB", (5, 5)).save(tmp_path / "image.png")
    built = threading.Event()

    def build():
        from agent_eval.tools.imagetools.mcp_server import build_server

        built.set()
        return build_server(str(tmp_path))

    host = McpHost.shared()
    assert host.wait_ready(30)
    with host.mount(build) as mount:
        assert built.wait(10)  # no request was made
        _, info = list_and_call(mount.url, "info", {})
    assert json.loads(info.content[0].text)["width"] == 5


def test_a_server_unmounted_at_once_is_not_left_running(tmp_path):
    host = McpHost.shared()
    assert host.wait_ready(30)
    builds = []
    mounts = []
    for _ in range(20):  # unmounted before, during or after its build begins
        with host.mount(
            lambda: builds.append(1) or __import__("mcp.server.mcpserver", fromlist=["x"]).MCPServer("x")
        ) as m:
            mounts.append(m)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(m._task is not None and not m._task.done() for m in mounts):
        time.sleep(0.05)
    assert all(m._task is None or m._task.done() for m in mounts)


def test_a_failed_build_answers_500_and_leaves_the_other_mounts_working(tmp_path):
    Image.new("RGB", (7, 5)).save(tmp_path / "image.png")

    def broken():
        raise RuntimeError("no SDK")

    host = McpHost.shared()
    with host.mount(broken, name="broken") as bad, image_tools(tmp_path) as (good, _):
        assert _status(bad.url, "POST") == 500 and "no SDK" in str(bad.error)
        _, info = list_and_call(good.url, "info", {})
    assert json.loads(info.content[0].text)["width"] == 7


def test_a_host_of_its_own_stops_and_frees_its_port(tmp_path):
    host = McpHost().start()
    assert host.wait_ready(10)
    with host.mount(
        lambda: __import__("agent_eval.tools.imagetools.mcp_server", fromlist=["x"]).build_server(str(tmp_path))
    ) as mount:
        Image.new("RGB", (3, 3)).save(tmp_path / "image.png")
        list_and_call(mount.url, "info", {})
    host.stop()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", host.port)) != 0


CONCURRENT_FIRST_ITEMS = """
import json, sys, threading
from pathlib import Path
import anyio
import pytest
from PIL import Image
from agent_eval.benchmarks.activevision.benchmark import ActiveVision
from agent_eval.benchmarks.shared import image_tools
from agent_eval.tools.mcp_http import load_in_background, load_sdk_module
root = Path(sys.argv[1])
ActiveVision().warm_up("image")                   # the run's warm-up import, racing the first items' builds
load_in_background("agent_eval.benchmarks.activeobs.observe_server")   # and another entry into the SDK (activeobs python mode)
results = []
def item(k):
    work = root / str(k)
    work.mkdir()
    Image.new("RGB", (10 + k, 5)).save(work / "image.png")
    with image_tools(work) as (server, _):
        Client = load_sdk_module("mcp").Client    # the test's client too: any SDK import races otherwise
        async def call():
            async with Client(server.url) as client:
                return (await client.call_tool("info", {})).content[0].text
        results.append(json.loads(anyio.run(call))["width"] - 10)
threads = [threading.Thread(target=item, args=(k,)) for k in range(6)]
[t.start() for t in threads]
[t.join(60) for t in threads]
print(sorted(results))
"""


def test_the_first_items_of_a_run_start_their_servers_at_once(tmp_path):
    """Fresh interpreter: the SDK is imported through several modules (the warm-ups, six item servers, a
    client) at the same time, and every server must start. (When this test's client imported `mcp`
    without the lock, a server thread entering through `mcp.server` saw a half-initialised module.)"""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", CONCURRENT_FIRST_ITEMS, str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[-2] == "[0, 1, 2, 3, 4, 5]", done.stdout + done.stderr[-2000:]


HOST_WAITS_FOR_THE_LOCK = """
import sys, time
from agent_eval.tools.mcp_http import _IMPORT_LOCK, McpHost
with _IMPORT_LOCK:                     # a warm-up thread importing the SDK, which imports uvicorn
    host = McpHost().start()
    time.sleep(0.5)
    print("uvicorn while the SDK loads:", "uvicorn" in sys.modules)
print("ready:", host.wait_ready(30), host.error)
host.stop()
"""


def test_the_host_imports_uvicorn_only_while_no_other_thread_imports_the_sdk():
    """The host's thread imported uvicorn beside a run's warm-up importing the SDK (which imports uvicorn): it met
    uvicorn's own import cycle half done ("cannot import name 'Server' from partially initialized module
    'uvicorn.main'"), the host died, and the run's first item found no tools (seen twice in perf/tool_modes.py,
    a tool_surface_error each time). Fresh interpreter: while another thread holds the SDK's import lock, the
    host's thread has not imported uvicorn; once it is free, the host serves."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", HOST_WAITS_FOR_THE_LOCK], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["uvicorn while the SDK loads: False", "ready: True None"], done.stdout


def test_the_tool_servers_advertise_a_fixed_tool_list_and_serve_no_listen_stream(tmp_path):
    """Their tools never change, so they leave subscriptions/listen unserved: Claude Code then opens no
    listen stream, which cost it about 45 ms before its first model call (docs/performance.md, part 6)."""
    from mcp import Client

    Image.new("RGB", (5, 5)).save(tmp_path / "image.png")

    async def capabilities(url):
        async with Client(url) as client:
            return client.server_capabilities

    with image_tools(tmp_path) as (server, _):
        caps = anyio.run(capabilities, server.url)
    assert caps.tools is not None and not caps.tools.list_changed


def _legacy_initialize(url: str) -> dict:
    """The capabilities an `initialize` (protocol 2025-06-18, as Codex speaks it) answers with."""
    from urllib.request import Request

    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with urlopen(Request(url, data=json.dumps(body).encode(), headers=headers), timeout=10) as answer:
        return json.loads(answer.read())["result"]["capabilities"]


def test_a_server_with_no_prompts_or_resources_advertises_neither_in_either_handshake(tmp_path):
    """Else Claude Code lists both at every start: two more connections an item through the sandbox's proxy
    (docs/performance.md, 6f). A server that holds a prompt still advertises prompts."""
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    Image.new("RGB", (5, 5)).save(tmp_path / "image.png")

    async def capabilities(url):
        async with Client(url) as client:  # the SDK's own client: the 2026-07-28 protocol's server/discover
            return client.server_capabilities

    def with_a_prompt():
        server = MCPServer("prompted")

        @server.prompt()
        def greeting() -> str:
            return "hello"

        return server

    with image_tools(tmp_path) as (server, _), McpHost.shared().mount(with_a_prompt, "prompted") as prompted:
        modern, legacy = anyio.run(capabilities, server.url), _legacy_initialize(server.url)
        kept, kept_legacy = anyio.run(capabilities, prompted.url), _legacy_initialize(prompted.url)
    assert modern.tools is not None and modern.prompts is None and modern.resources is None
    assert "tools" in legacy and "prompts" not in legacy and "resources" not in legacy
    assert kept.prompts is not None and "prompts" in kept_legacy


class CallGate:
    """A session's gate as the MCP host sees it (engine/tool_surface.py): closed until `decide`."""

    def __init__(self):
        self.decided, self.failure = threading.Event(), None

    @property
    def open(self) -> bool:
        return self.decided.is_set() and self.failure is None

    def wait(self, timeout):
        self.decided.wait(timeout)
        return self.failure if self.decided.is_set() else "undecided"

    def decide(self, failure=None):
        self.failure = failure
        self.decided.set()


def test_a_closed_gate_holds_tool_calls_but_not_the_handshake_and_a_failed_one_refuses_them(tmp_path):
    from agent_eval.engine.tool_surface import TOOL_SURFACE_ERROR  # noqa: F401  (the gate's real user)

    Image.new("RGB", (30, 20), "white").save(tmp_path / "image.png")
    with image_tools(tmp_path) as (server, _):
        mount = McpHost.mount_at(server.url)
        assert mount is not None and McpHost.mount_at(server.url.replace(mount.token, "0" * 32)) is None
        mount.gate = gate = CallGate()
        answers = []
        caller = threading.Thread(target=lambda: answers.append(list_and_call(server.url, "info", {})))
        caller.start()
        time.sleep(1.0)
        assert caller.is_alive() and not answers  # listed (else no call), the call held
        gate.decide()
        caller.join(timeout=30)
        tools, result = answers[0]
        assert len(tools) == 3 and json.loads(result.content[0].text)["width"] == 30
        mount.gate = failed = CallGate()
        failed.decide("tool surface: an extra tool")
        with pytest.raises(BaseException) as refused:  # the client raises the call's JSON-RPC error (in a group)
            list_and_call(server.url, "info", {})
    assert "tool surface: an extra tool" in repr(refused.value)  # an ExceptionGroup's repr shows its members
