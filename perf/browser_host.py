"""What the browser host costs per AI GameStore decision, beside the game time the decision plays; the memory of one
running browser; and N games at once.

    .venv/bin/python perf/browser_host.py [--decisions 20] [--games game1,game3] [--jobs 1,2,4]

The project's own test games (sample-data --kind aigamestore: game1 p5.js 2D, game3 three.js WebGL) are played
by GameStoreSession directly, as the `play` tool plays them (no agent CLI): each decision is five 0.2 s segments
(one game second) and five frames. Per decision:
  browser: the page host's round trip (the steps, the advance of the virtual clock, five canvas captures, the
           state read, the PNGs over the pipe);
  harness: the rest of the move here (five frames archived, the timeline line written and synced);
  pause:   what holding the game while the model thinks costs: nothing runs (checked: after a real-time wait the
           page's clock and frame count have not moved);
and the ratio of the decision's wall time to its one second of game time. Start-up: PageHost (jail, Playwright's
driver, Chromium) and the page's load. Memory: the PSS of the page host's whole process tree (bwrap, Python,
Playwright's node driver, Chromium's processes) while a game runs. --jobs: N games at once, each its own browser,
on threads as a run's --jobs plays items; the wall time per decision and the decisions per second, side by side
with one job in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_eval.benchmarks.aigamestore.benchmark import AiGameStore  # noqa: E402
from agent_eval.benchmarks.aigamestore.loader import load_games  # noqa: E402
from agent_eval.benchmarks.aigamestore.protocol import checked_segments  # noqa: E402
from agent_eval.benchmarks.aigamestore.session import Budget, GameStoreSession  # noqa: E402
from agent_eval.browser.host import PageHost  # noqa: E402

SEGMENTS = [["HOLD_LEFT"], ["NOOP"], ["RIGHT", "SPACE"], ["HOLD_RIGHT"], ["NOOP"]]


def tree(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo += children.get(current, [])
    return out


def pss_mib(pid: int) -> float:
    total = 0
    for member in tree(pid):
        try:
            for line in Path(f"/proc/{member}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def play_game(item, decisions: int, out: Path, results: dict, memory: bool = False) -> None:
    started = time.perf_counter()
    with PageHost(item.site, scratch=out / "browser", request_log=out / "requests.jsonl") as page:
        session = GameStoreSession(item, page, out / "game", Budget(decisions + 1))
        ready = time.perf_counter() - started
        rss = pss_mib(page._proc.pid) if memory else None
        walls = []
        for _ in range(decisions):
            t = time.perf_counter()
            session.play(checked_segments(SEGMENTS))
            walls.append((time.perf_counter() - t) * 1000)
        clock, frames = page.run(
            [{"op": "eval", "js": "[performance.now(), window.__agentEvalClock.frame()]"}]
        ).results[0]
        time.sleep(1.0)  # the model thinks: nothing may move
        again = page.run([{"op": "eval", "js": "[performance.now(), window.__agentEvalClock.frame()]"}]).results[0]
        plays = [m for m in session.moves if m.kind == "play"]
        results.update(
            start_s=ready,
            wall_ms=walls,
            browser_ms=[m.browser_ms for m in plays],
            harness_ms=[m.harness_ms for m in plays],
            paused=(clock, frames) == tuple(again),
            pss_mib=rss,
        )
        session.finish()


def median(values) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--decisions", type=int, default=20)
    parser.add_argument("--games", default="game1,game3")
    parser.add_argument("--jobs", default="1,2,4")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="browser-host-perf-"))
    AiGameStore().write_samples(work / "games", 0, 1, "")
    items = {item.id: item for item in load_games(work / "games").items}
    print(f"decisions of one game second each (5 segments x 0.2 s, 5 frames); {args.decisions} per game")
    for name in args.games.split(","):
        result: dict = {}
        play_game(items[name], args.decisions, work / f"solo-{name}", result, memory=True)
        wall = median(result["wall_ms"])
        print(
            f"{name}: start-up {result['start_s']:.1f} s; per decision median wall {wall:.0f} ms = browser "
            f"{median(result['browser_ms']):.0f} + harness {median(result['harness_ms']):.1f} ms, for 1000 ms of game "
            f"time (x{wall / 1000:.2f} of real time); paused while waiting: {'yes' if result['paused'] else 'NO'}; "
            f"memory (PSS of the host's process tree) {result['pss_mib']:.0f} MiB"
        )
    first = args.games.split(",")[0]
    base = None
    for jobs in [int(j) for j in args.jobs.split(",")]:
        results = [dict() for _ in range(jobs)]
        threads = [
            threading.Thread(
                target=play_game, args=(items[first], args.decisions, work / f"jobs{jobs}-{k}", results[k])
            )
            for k in range(jobs)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        total = time.perf_counter() - started
        walls = [w for r in results for w in r.get("wall_ms", [])]
        rate = len(walls) / total
        base = base or rate
        print(
            f"--jobs {jobs} ({first}): {len(walls)} decisions in {total:.1f} s (start-ups included): {rate:.2f} "
            f"decisions/s (x{rate / base:.2f} of one job); median wall per decision {median(walls):.0f} ms"
        )
    print(f"work folder: {work}")


if __name__ == "__main__":
    main()
