"""What the harness adds to one `play` call of an ARC-AGI-3 game, over the game's own step.

    .venv/bin/python perf/arc_play.py [--actions 300] [--mode image]

A test game (tests/support/arcgames.py, on ARCEngine) runs in its game process under the toolkit, as
in a run. The same actions are played twice, alternating calls:
  direct: GameProcess.step() from this process: the game's own step, with its process round trip;
  play:   the `game` MCP server's `play` on the process's MCP host, called over loopback HTTP by an
          MCP client (the SDK's), as the agent CLI calls it: step + checks + frame archive (.npy
          and PNG) + timeline + the JSON and the PNG in the answer.
Reported: the medians and p90 of each, the median added per call (play - direct), the session's
own share (`harness_ms` in the timeline: the part between the game's answer and the tool's return,
without HTTP), and CPU per action: this process's (host and client: an upper bound of the harness's)
and the game process's (from /proc). Target: the added median at most 10 ms (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from agent_eval.benchmarks.arcgames.game_process import GameProcess, toolkit_python  # noqa: E402
from agent_eval.benchmarks.arcgames.loader import load_games  # noqa: E402
from agent_eval.benchmarks.arcgames.session import GameSession  # noqa: E402
from agent_eval.tools.mcp_http import McpHost, load_sdk_module  # noqa: E402
from support.arcgames import write_game  # noqa: E402

CYCLE = ["RESET", "ACTION4", "ACTION5", ("ACTION6", 10, 10), "ACTION4", "ACTION4", ("ACTION6", 10, 10)]


def quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    return f"median {statistics.median(ordered):6.2f} ms  p90 {ordered[int(0.9 * (len(ordered) - 1))]:6.2f} ms"


def process_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    """Every process under `pid` (the game processes and whatever confines them)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


async def play_over_mcp(url: str, actions: list, direct_game, timings: dict) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    async with streamablehttp_client(url) as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()
        for action in actions:
            name, x, y = action if isinstance(action, tuple) else (action, None, None)
            args = {"action": name} | ({"x": x, "y": y} if x is not None else {})
            started = time.perf_counter()
            result = await session.call_tool("play", args)
            timings["play"].append((time.perf_counter() - started) * 1000)
            assert not result.is_error, result
            started = time.perf_counter()
            direct_game.step(name, x, y)
            timings["direct"].append((time.perf_counter() - started) * 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--mode", default="image", choices=("none", "image", "python"))
    args = parser.parse_args()
    if toolkit_python() is None:
        sys.exit("no toolkit interpreter: run `make setup` first")
    tmp = Path(tempfile.mkdtemp(prefix="arc-play-"))
    write_game(tmp / "games", "tg01")
    item = load_games(tmp / "games").items[0]
    actions = [CYCLE[i % len(CYCLE)] for i in range(args.actions)]
    server_module = load_sdk_module("agent_eval.benchmarks.arcgames.game_server")
    timings: dict[str, list[float]] = {"play": [], "direct": []}
    with (
        GameProcess(item.environments_dir, item.id, item.version, scratch=tmp / "p1") as game,
        GameProcess(item.environments_dir, item.id, item.version, scratch=tmp / "p2") as direct,
    ):
        session = GameSession(item, game, tmp / "item" / "game", max_actions=10**6, frame_scale=4)
        with McpHost.shared().mount(lambda: server_module.build_server(session, args.mode, 4), name="game") as mount:
            McpHost.shared().wait_ready()
            games_before = {pid: process_cpu_s(pid) for pid in descendants(os.getpid())}
            cpu_before, wall_before = time.process_time(), time.perf_counter()
            asyncio.run(play_over_mcp(mount.url, actions, direct, timings))
            cpu = time.process_time() - cpu_before
            wall = time.perf_counter() - wall_before
            games_cpu = sum(
                process_cpu_s(pid) - before for pid, before in games_before.items() if Path(f"/proc/{pid}").exists()
            )
        session.finish()
    timeline = [json.loads(line) for line in (tmp / "item" / "game" / "timeline.jsonl").read_text().splitlines()]
    added = [p - d for p, d in zip(timings["play"], timings["direct"])]
    n = len(actions)
    print(f"{n} actions of test game tg01 (mode {args.mode}), {session.archive.count} frames archived, {wall:.1f} s")
    print(f"  direct GameProcess.step  {quantiles(timings['direct'])}")
    print(f"  play over MCP            {quantiles(timings['play'])}")
    print(f"  added by the harness     {quantiles(added)}   (target: median <= 10 ms)")
    print(
        f"  of which the session     {quantiles([e['harness_ms'] for e in timeline])}  (checks, archive, PNG, timeline)"
    )
    print(
        f"  CPU per action: this process (MCP host + client + direct calls) {cpu / n * 1000:.2f} ms; "
        f"game processes (both) {games_cpu / n * 1000:.2f} ms"
    )


if __name__ == "__main__":
    main()
