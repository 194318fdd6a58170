"""What the harness adds to one `play` call of an ARC-AGI-3 game, over the game's own step.

    .venv/bin/python perf/arcgames_play.py [--actions 300] [--mode image] [--game ae01]

One of the project's games (agent_eval/benchmarks/arcgames/games) runs in its game process under the
toolkit, as in a run, and `play` is called over loopback HTTP by an MCP client (the SDK's), as an agent
CLI calls it, on the `game` server mounted on the process's MCP host. Per call:
  toolkit step: the toolkit's own env.step inside the game process (GameProcess.last_step_s);
  step round trip: GameProcess.step from the harness (the step, the JSON-lines channel, the frames);
  play: the whole MCP call: step + checks + frame archive (.npy and PNG) + timeline + JSON and PNG answer.
Reported: median and p90 of each; the harness's addition (play - toolkit step) and its parts; CPU per
action of this process (MCP host and client: an upper bound of the harness's own) and of the game
process (from /proc). Target: the added median at most 10 ms (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_eval.benchmarks.arcgames.benchmark import ArcGames  # noqa: E402
from agent_eval.benchmarks.arcgames.game_process import GameProcess, toolkit_python  # noqa: E402
from agent_eval.benchmarks.arcgames.games import WINNING  # noqa: E402
from agent_eval.benchmarks.arcgames.loader import load_games  # noqa: E402
from agent_eval.benchmarks.arcgames.session import GameSession  # noqa: E402
from agent_eval.tools.mcp_http import McpHost, load_sdk_module  # noqa: E402


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


CLIENT = textwrap.dedent("""
    # The MCP SDK's own client over streamable HTTP, in a process of its own so that the harness's CPU is
    # measured alone: initialize, then one tools/call of play per action; prints each call's wall time (ms).
    import asyncio, json, sys, time
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def main(url, actions):
        times = []
        async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            for name, x, y in actions:
                args = {"action": name} if x is None else {"action": name, "x": x, "y": y}
                started = time.perf_counter()
                result = await session.call_tool("play", args)
                times.append((time.perf_counter() - started) * 1000)
                assert not result.is_error, result
        return times

    print(json.dumps(asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))))
""")


def play_from_a_client(url: str, actions: list) -> list[float]:
    steps = [list(a) if isinstance(a, tuple) else [a, None, None] for a in actions]
    done = subprocess.run([sys.executable, "-c", CLIENT, url, json.dumps(steps)], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the client failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--mode", default="image", choices=("none", "image", "python"))
    parser.add_argument("--game", default="ae01", help="one of the project's games")
    args = parser.parse_args()
    if toolkit_python() is None:
        sys.exit("no toolkit interpreter: run `make setup` first")
    tmp = Path(tempfile.mkdtemp(prefix="arc-play-"))
    benchmark = ArcGames()
    benchmark.write_samples(tmp / "games", 0, 1, "")
    item = next(i for i in load_games(tmp / "games").items if i.id == args.game)
    # Never winning (a won game takes no more actions): the winning sequence's first move, back and forth,
    # a RESET every ten actions.
    first = next((a for a in WINNING[f"{item.id}-{item.version}"][1:] if not isinstance(a, tuple)), "ACTION1")
    back = {"ACTION1": "ACTION2", "ACTION2": "ACTION1", "ACTION3": "ACTION4", "ACTION4": "ACTION3"}.get(first, first)
    cycle = ["RESET"] + [first, back] * 4 + [first]
    actions = [cycle[i % len(cycle)] for i in range(args.actions)]
    server_module = load_sdk_module("agent_eval.benchmarks.arcgames.game_server")
    timings: dict[str, list[float]] = {"play": [], "toolkit": []}
    with GameProcess(item.environments_dir, item.id, item.version, scratch=tmp / "process") as game:
        session = GameSession(item, game, tmp / "item" / "game", max_actions=10**6, frame_scale=4)
        with McpHost.shared().mount(lambda: server_module.build_server(session, args.mode, 4), name="game") as mount:
            McpHost.shared().wait_ready()
            game_pids = descendants(os.getpid())
            games_before = {pid: process_cpu_s(pid) for pid in game_pids}
            cpu_before, wall_before = time.process_time(), time.perf_counter()
            timings["play"] = play_from_a_client(mount.url, actions)
            cpu = time.process_time() - cpu_before
            wall = time.perf_counter() - wall_before
            games_cpu = sum(
                process_cpu_s(pid) - before for pid, before in games_before.items() if Path(f"/proc/{pid}").exists()
            )
        session.finish()
    timeline = [json.loads(line) for line in (tmp / "item" / "game" / "timeline.jsonl").read_text().splitlines()]
    round_trip = [e["game_ms"] for e in timeline]
    timings["toolkit"] = [e["toolkit_ms"] for e in timeline]
    added = [p - t for p, t in zip(timings["play"], timings["toolkit"])]
    n = len(actions)
    print(f"{n} actions of {item.id} (mode {args.mode}), {session.archive.count} frames archived, {wall:.1f} s")
    print(f"  toolkit step (in the game process)    {quantiles(timings['toolkit'])}")
    print(f"  GameProcess.step round trip            {quantiles(round_trip)}")
    print(f"  play over MCP (the agent's view)       {quantiles(timings['play'])}")
    print(f"  added over the game's own step         {quantiles(added)}   (target: median <= 10 ms)")
    print(
        f"    the game process's channel           {quantiles([r - t for r, t in zip(round_trip, timings['toolkit'])])}"
    )
    print(f"    the play tool (session + MCP + HTTP) {quantiles([p - r for p, r in zip(timings['play'], round_trip)])}")
    print(f"    of which the session                 {quantiles([e['harness_ms'] for e in timeline])}")
    print(
        f"  CPU per action: the harness (MCP host, session, archive) {cpu / n * 1000:.2f} ms; "
        f"the game process {games_cpu / n * 1000:.2f} ms"
    )


if __name__ == "__main__":
    main()
