"""What a decision of each browser game kind costs the harness under `--profile vista`, beside the default, side by
side in one run.

    .venv/bin/python perf/browser_profile.py [--decisions 20] [--rounds 3] [--kinds aigamestore,gameworld]

Per kind, one page of the project's own test game (AI GameStore game1; GameWorld task 90_01) and one session over it,
with the `game` MCP server mounted twice on the process's MCP host: the default's tools (our play answer: JSON with
the decision and the decisions left, then the frames) and `--profile vista`'s (VISTA's tools: the action answered in
VISTA's words with each frame after its label, the looks over the game's events, the notes). An MCP client of the
SDK's, in a process of its own as an agent CLI is, calls the action tool over loopback HTTP, --decisions calls a
setting, the settings interleaved over --rounds, all on the same game. Per decision:
  call: the whole MCP call (the agent's view): the page's round trips + the session + the tool's answer + MCP/HTTP;
  browser: the page's round trips, as the session records them (Chromium's frames and Playwright's);
  harness: the call less the browser (the session's checks, archive and timeline, the answer, the MCP host).
The ratio vista/default of the harness's median says what the profile adds per decision. What the profile adds
outside a decision (its system prompt, a redirected final reply's resumed session) is the CLI's own, not timed here.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_eval.benchmarks.aigamestore.benchmark import NOTE_PURPOSES as STORE_NOTES  # noqa: E402
from agent_eval.benchmarks.aigamestore.benchmark import AiGameStore, Options  # noqa: E402
from agent_eval.benchmarks.aigamestore.loader import load_games  # noqa: E402
from agent_eval.benchmarks.aigamestore.session import Budget, GameStoreSession  # noqa: E402
from agent_eval.benchmarks.gameworld.benchmark import GameWorld  # noqa: E402
from agent_eval.benchmarks.gameworld.catalog import append_url_suffix  # noqa: E402
from agent_eval.benchmarks.gameworld.loader import PAGE, load_gameworld  # noqa: E402
from agent_eval.benchmarks.gameworld.rung import NOTE_PURPOSES as WORLD_NOTES  # noqa: E402
from agent_eval.benchmarks.gameworld.rung import Rung  # noqa: E402
from agent_eval.benchmarks.gameworld.session import SEED, HostPage, TaskSession  # noqa: E402
from agent_eval.benchmarks.notes import Notes  # noqa: E402
from agent_eval.benchmarks.registry import profile_of  # noqa: E402
from agent_eval.browser.host import PageHost  # noqa: E402
from agent_eval.tools.mcp_http import McpHost, load_sdk_module  # noqa: E402

SETTINGS = ("default", "vista")
PLAY = [["HOLD_LEFT"], ["NOOP"], ["RIGHT"], ["HOLD_RIGHT"], ["NOOP"]]  # a decision of AI GameStore's game1
MIX = [  # GameWorld's 90_01: actions that never end the task (no beacon is lit)
    {"action": "press_key", "key": "ArrowRight"},
    {"action": "wait", "duration": 0.2},
    {"action": "press_key", "key": "ArrowLeft"},
]

CLIENT = textwrap.dedent("""
    # The MCP SDK's own client over streamable HTTP, in a process of its own (as an agent CLI is): initialize, then
    # one tools/call a decision; prints each call's wall time (ms).
    import asyncio, json, sys, time
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def main(url, tool, calls):
        times = []
        async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            for arguments in calls:
                started = time.perf_counter()
                result = await session.call_tool(tool, arguments)
                times.append((time.perf_counter() - started) * 1000)
                assert not result.is_error, result
        return times

    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3])))))
""")


def called(url: str, tool: str, calls: list[dict]) -> list[float]:
    done = subprocess.run([sys.executable, "-c", CLIENT, url, tool, json.dumps(calls)], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the client failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


class GameStoreKind:
    """AI GameStore's game1: `play`, as each setting's server answers it."""

    tool = "play"

    def __init__(self, work: Path, budget: int):
        AiGameStore().write_samples(work / "games", 0, 1, "")
        item = next(i for i in load_games(work / "games").items if i.id == "game1")
        self.page = PageHost(item.site, scratch=work / "browser")
        self.session = GameStoreSession(item, self.page, work / "game", Budget(budget))
        self.server_module = load_sdk_module("agent_eval.benchmarks.aigamestore.game_server")
        self.notes = Notes(work, STORE_NOTES)

    def server(self, setting: str):
        given = {} if setting == "default" else profile_of("vista", "aigamestore").options
        options = Options.from_given({k: v for k, v in given.items() if k not in ("tools", "system_prompt")})
        notes = self.notes if options.notes else None
        module = self.server_module
        if options.game_tools == "vista":  # VISTA's play and its task tools (games/browser/vista_play.py)
            names = module.vista_offered("image", options.notes)
            return lambda: module.vista_server(self.session, names, notes)
        names = module.offered(options.protocol, "image", options.notes)
        return lambda: module.build_server(self.session, names, notes, None, options.tell_steps)

    def calls(self, n: int) -> list[dict]:
        return [{"segments": PLAY}] * n

    def browser_ms(self, last: int) -> list[float]:
        return [m.browser_ms for m in self.session.moves[-last:]]

    def close(self) -> None:
        self.session.finish()
        self.page.close()


class GameWorldKind:
    """GameWorld's 90_01: `act`, as each setting's server answers it."""

    tool = "act"

    def __init__(self, work: Path, budget: int):
        GameWorld().write_samples(work / "checkout", 0, 1, "")
        item = next(i for i in load_gameworld(work / "checkout").items if i.id == "90_01")
        viewport = (item.game.width, item.game.height)
        self.host = PageHost(item.game_dir, seed=SEED, viewport=viewport, scratch=work / "host")
        self.host.open(append_url_suffix(PAGE, item.task_def.url_suffix))
        self.session = TaskSession(item, HostPage(self.host), work / "game", max_steps=budget)
        self.module = load_sdk_module("agent_eval.benchmarks.gameworld.game_server")
        self.notes = Notes(work, WORLD_NOTES)

    def server(self, setting: str):
        given = {} if setting == "default" else profile_of("vista", "gameworld").options
        rung = Rung.from_options({k: v for k, v in given.items() if k not in ("tools", "system_prompt")})
        tools = self.module.GameTools(self.session, rung, notes=self.notes if rung.notes else None)
        return lambda: self.module.build_server(tools, "image")

    def calls(self, n: int) -> list[dict]:
        return [MIX[i % len(MIX)] for i in range(n)]

    def browser_ms(self, last: int) -> list[float]:
        return [s.browser_ms for s in self.session.steps[-last:]]

    def close(self) -> None:
        self.session.finish()
        self.host.close()


KINDS = {"aigamestore": GameStoreKind, "gameworld": GameWorldKind}


def measure(kind_name: str, decisions: int, rounds: int) -> dict[str, dict[str, list[float]]]:
    work = Path(tempfile.mkdtemp(prefix=f"{kind_name}-profile-"))
    kind = KINDS[kind_name](work, budget=decisions * rounds * len(SETTINGS) + 1)
    found: dict[str, dict[str, list[float]]] = {s: {"call": [], "browser": []} for s in SETTINGS}
    try:
        with (
            McpHost.shared().mount(kind.server("default"), name="game") as default,
            McpHost.shared().mount(kind.server("vista"), name="game") as vista,
        ):
            McpHost.shared().wait_ready()
            urls = {"default": default.url, "vista": vista.url}
            for _ in range(rounds):
                for setting in SETTINGS:
                    found[setting]["call"] += called(urls[setting], kind.tool, kind.calls(decisions))
                    found[setting]["browser"] += kind.browser_ms(decisions)
    finally:
        kind.close()
    return found


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--decisions", type=int, default=20, help="calls a setting a round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, the settings interleaved")
    parser.add_argument("--kinds", default="aigamestore,gameworld")
    args = parser.parse_args()
    print("| kind | setting | call, median | browser, median | harness, median | harness vs default |")
    print("|---|---|---:|---:|---:|---:|")
    for kind in args.kinds.split(","):
        found = measure(kind, args.decisions, args.rounds)
        harness = {s: [c - b for c, b in zip(found[s]["call"], found[s]["browser"], strict=True)] for s in SETTINGS}
        base = median(harness["default"])
        for setting in SETTINGS:
            own = median(harness[setting])
            print(
                f"| {kind} | {setting} | {median(found[setting]['call']):.1f} ms | "
                f"{median(found[setting]['browser']):.1f} ms | {own:.2f} ms | {own / base:.2f}x |"
            )


if __name__ == "__main__":
    main()
