"""What Claude Code itself spends on being offered MCP tools, and whether the way they are served changes it.

The bare CLI (the adapter's own command, environment and stdin; no runner, no sandbox, no gateway) answers the
same one-call episode in mode image, four ways, interleaved in every round so that all see the same load:

  no-mcp     the same command with its --mcp-config left out: the tool mode's prompt and flags, no MCP server
  http       the image tools over streamable HTTP from the harness's MCP host (what a run does)
  http-nb    the same, with MCP_CONNECTION_NONBLOCKING=true: the first model request need not wait for the tools
  sdk        the same tools over Claude Code's own SDK control channel (stdin/stdout), answered from memory
             with the tools/list the host serves: no HTTP, no host, no protocol round trip but the CLI's own

Beside the medians (wall and CPU of the CLI and its children), the host's own time for each MCP request of the
http episodes. `http` minus `no-mcp` is what the CLI spends on its MCP tools; if `sdk` and `http-nb` are no
faster than `http`, it is the CLI's own work, which neither the transport nor the host can take off.

    .venv/bin/python perf/cli_mcp_cost.py [--rounds 12] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from bench_kit import ServerProcess, bare_invocation, console, loadavg, log, own_cpu, scripted_env
from rich.table import Table

AGENT = "claude-code"
WAYS = ("no-mcp", "http", "http-nb", "sdk")
ONE_CALL = {"turns": [{"final": "<answer>A</answer>"}]}
EPISODE_TIMEOUT_S = 120


class HostClock:
    """The MCP host's own time for each request it serves (wrapping its dispatch)."""

    def __init__(self):
        from agent_eval.tools.mcp_http import McpHost

        self.ms: list[float] = []
        dispatch = McpHost._dispatch

        async def timed(host, scope, receive, send):
            t0 = time.perf_counter()
            try:
                await dispatch(host, scope, receive, send)
            finally:
                self.ms.append((time.perf_counter() - t0) * 1000)

        McpHost._dispatch = timed


def sdk_answer(message: dict, tools: dict) -> dict:
    """The JSON-RPC reply an SDK-hosted server gives: initialize, tools/list; anything else method-not-found."""
    method, reply = message.get("method"), {"jsonrpc": "2.0", "id": message.get("id", 0)}
    if "id" not in message:  # a notification: acknowledged with an empty result
        return reply | {"result": {}}
    if method == "initialize":
        params = message.get("params") or {}
        server = {"name": "imagetools", "version": "1"}
        result = {"protocolVersion": params.get("protocolVersion"), "capabilities": {"tools": {}}, "serverInfo": server}
        return reply | {"result": result}
    if method == "tools/list":
        return reply | {"result": tools}
    return reply | {"error": {"code": -32601, "message": f"no method {method}"}}


def episode(way: str, argv: list[str], env: dict, stdin: bytes, cwd: Path, tools: dict) -> tuple[float, float]:
    """One bare CLI episode; (wall s, CPU s of it and its children)."""
    argv, env = list(argv), dict(env)
    at = argv.index("--mcp-config")
    if way == "no-mcp":
        del argv[at : at + 3]  # --mcp-config FILE --strict-mcp-config
    elif way == "http-nb":
        env["MCP_CONNECTION_NONBLOCKING"] = "true"
    elif way == "sdk":
        Path(argv[at + 1]).write_text(json.dumps({"mcpServers": {"imagetools": {"type": "sdk", "name": "imagetools"}}}))
    c0, t0 = own_cpu(), time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    errors: list[bytes] = []
    threading.Thread(target=lambda: errors.append(proc.stderr.read()), daemon=True).start()
    watchdog = threading.Timer(EPISODE_TIMEOUT_S, proc.kill)  # a CLI that never answers (its channel changed) ends
    watchdog.start()
    if way == "sdk":  # the channel's servers are named before the first message; stdin stays open for replies
        init = {
            "type": "control_request",
            "request_id": "init",
            "request": {"subtype": "initialize", "sdkMcpServers": ["imagetools"]},
        }
        proc.stdin.write(json.dumps(init).encode() + b"\n")
    proc.stdin.write(stdin.rstrip(b"\n") + b"\n")
    proc.stdin.flush()
    if way != "sdk":
        proc.stdin.close()
    answered, servers = False, None
    for line in proc.stdout:
        event = json.loads(line)
        request = event.get("request") or {}
        if event.get("type") == "system" and event.get("subtype") == "init":
            servers = [(s.get("name"), s.get("status")) for s in event.get("mcp_servers") or []]
        elif event.get("type") == "control_request" and request.get("subtype") == "mcp_message":
            reply = {"mcp_response": sdk_answer(request["message"], tools)}
            response = {"subtype": "success", "request_id": event["request_id"], "response": reply}
            proc.stdin.write(json.dumps({"type": "control_response", "response": response}).encode() + b"\n")
            proc.stdin.flush()
        elif event.get("type") == "result":
            answered = "<answer>" in json.dumps(event)
            if way == "sdk":
                proc.stdin.close()
    proc.wait()
    watchdog.cancel()
    wall, cpu = time.perf_counter() - t0, own_cpu() - c0
    if proc.returncode != 0 or not answered:
        raise RuntimeError(f"{way}: exit {proc.returncode}, answered {answered}: {b''.join(errors)[-600:]!r}")
    expected = [] if way == "no-mcp" else [("imagetools", "connected")]
    if servers != expected:  # else it timed a CLI without the tools (or with them where there should be none)
        raise RuntimeError(f"{way}: the CLI's MCP servers at start were {servers}, expected {expected}")
    return wall, cpu


def served_tools(url: str) -> dict:
    """The host's own tools/list result for a mount (what the sdk way serves from memory)."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "perf", "version": "1"}}
    result = {}
    for message in ({"id": 1, "method": "initialize", "params": init}, {"id": 2, "method": "tools/list"}):
        conn = http.client.HTTPConnection(parts.hostname, parts.port)
        conn.request("POST", parts.path, body=json.dumps({"jsonrpc": "2.0", **message}), headers=headers)
        answer = conn.getresponse()
        headers["Mcp-Session-Id"] = answer.getheader("mcp-session-id") or ""
        result = json.loads(answer.read())
        conn.close()
    return result["result"]


def measure(rounds: int, work: Path) -> dict:
    from agent_eval.agents import get_agent
    from agent_eval.benchmarks import load_benchmark
    from agent_eval.benchmarks.activevision.benchmark import IMAGE_TOOLS_MODULE
    from agent_eval.benchmarks.activevision.samples import write_sample_set
    from agent_eval.datamodel.prompts import load_template
    from agent_eval.tools.mcp_http import load_sdk_module

    write_sample_set(work / "samples", seed=0, per_task=1)
    benchmark, dataset = load_benchmark(work / "samples")
    load_sdk_module(IMAGE_TOOLS_MODULE)
    template = load_template("image", benchmark.prompts_dir()).text
    adapter, clock = get_agent(AGENT), HostClock()
    samples: dict[str, list[tuple[float, float]]] = {way: [] for way in WAYS}
    host: list[list[float]] = []  # the host's ms per request, each http episode
    tools = None
    with ServerProcess(work, "mcp-cost", ONE_CALL) as server:
        auth = adapter.find_auth(scripted_env(AGENT, server.url, work / "nohome"))
        for r in range(rounds + 1):  # round 0 warms up, dropped
            order = WAYS[r % len(WAYS) :] + WAYS[: r % len(WAYS)]
            for way in order:
                root = work / f"{way}-{r}"
                item = dataset.items[r % len(dataset.items)]
                with bare_invocation(AGENT, benchmark, item, "image", template, auth, root) as (setup, inv):
                    if tools is None:
                        tools = served_tools(setup.tools.mcp[0].url)
                    clock.ms.clear()
                    result = episode(way, inv.argv, inv.env, inv.stdin, root / "work", tools)
                    host_ms = list(clock.ms)
                if r:
                    samples[way].append(result)
                    if way == "http":
                        host.append(host_ms)
    rows = {
        way: {
            "wall_s": statistics.median(w for w, _ in samples[way]),
            "cpu_s": statistics.median(c for _, c in samples[way]),
        }
        for way in WAYS
    }
    return {
        "rounds": rounds,
        "rows": rows,
        "host_requests_per_episode": statistics.median(len(h) for h in host),
        "host_ms_per_request": statistics.median(ms for h in host for ms in h),
        "host_ms_per_episode": statistics.median(sum(h) for h in host),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=12, help="episodes of each way (medians; one warm-up round more)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()

    log(f"load {loadavg()}; {args.rounds} rounds of {', '.join(WAYS)}")
    with tempfile.TemporaryDirectory(prefix="agent-eval-mcpcost-") as tmp:
        figures = measure(args.rounds, Path(tmp))
    base = figures["rows"]["no-mcp"]
    table = Table(title=f"Claude Code, bare, mode image: the CLI's MCP tools ({args.rounds} rounds, medians)")
    for column in ("way", "wall s", "CPU s", "wall vs no-mcp", "CPU vs no-mcp"):
        table.add_column(column, justify="left" if column == "way" else "right")
    for way, row in figures["rows"].items():
        table.add_row(
            way,
            f"{row['wall_s']:.3f}",
            f"{row['cpu_s']:.3f}",
            f"{row['wall_s'] / base['wall_s']:.3f}",
            f"{row['cpu_s'] / base['cpu_s']:.3f}",
        )
    console.print(table)
    console.print(
        f"the MCP host, per http episode: {figures['host_requests_per_episode']:g} requests, "
        f"{figures['host_ms_per_episode']:.1f} ms of its time ({figures['host_ms_per_request']:.2f} ms a request)"
    )
    log(f"load {loadavg()}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
