"""What the harness costs per GameWorld action, beside the game time the action plays; what a task's start and a
replay after a killed harness cost; the memory of one running browser.

    .venv/bin/python perf/gameworld_step.py [--steps 40]

The project's own test game (sample-data --kind gameworld: 90_beacon, task 90_01, a 480x360 canvas) is played by
TaskSession directly, as the `act` tool plays it (no agent CLI), with a repeating mix of actions (a key held
0.05 s, a click, a 0.2 s wait, a drag). Per action:
  browser: the page host's round trips (the action's inputs on the virtual clock, the gameAPI state read; the
           50 ms between steps and the screenshot);
  harness: the rest here (the action checked and compiled, GameWorld's evaluator, the screen archived, the
           timeline line written and synced);
beside the game time the action played. Start-up: PageHost (jail, Playwright's driver, Chromium), the page's load
and GameWorld's start (first frames, gameAPI.init, the readiness wait). Replay: the whole task made again from its
timeline in a fresh page, as after a SIGKILL. Memory: the PSS of the page host's process tree while the task runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from browser_host import pss_mib  # noqa: E402  (perf/: the same process-tree PSS)

from agent_eval.benchmarks.gameworld.benchmark import GameWorld  # noqa: E402
from agent_eval.benchmarks.gameworld.loader import load_gameworld  # noqa: E402
from agent_eval.benchmarks.gameworld.session import SEED, HostPage, TaskSession  # noqa: E402
from agent_eval.browser.host import PageHost  # noqa: E402

MIX = [
    {"action": "press_key", "key": "ArrowRight"},
    {"action": "click", "x": 450, "y": 330},
    {"action": "wait", "duration": 0.2},
    {"action": "drag", "x1": 10, "y1": 10, "x2": 200, "y2": 100, "steps": 4},
    {"action": "press_key", "key": "ArrowLeft"},
]


def median(values) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gameworld-perf-"))
    GameWorld().write_samples(work / "checkout", 0, 1, "")
    item = next(i for i in load_gameworld(work / "checkout").items if i.id == "90_01")
    viewport = (item.game.width, item.game.height)
    started = time.perf_counter()
    with PageHost(item.game_dir, seed=SEED, viewport=viewport, scratch=work / "host") as host:
        host_s = time.perf_counter() - started
        host.open("index.html")
        opened = time.perf_counter()
        session = TaskSession(item, HostPage(host), work / "game", max_steps=args.steps + 1)
        start_s = time.perf_counter() - opened
        memory = pss_mib(host._proc.pid)
        walls, game_ms = [], []
        for n in range(args.steps):
            before, t = session.page.ms, time.perf_counter()
            session.act(0, MIX[n % len(MIX)], "computer_use")
            walls.append((time.perf_counter() - t) * 1000)
            game_ms.append(session.page.ms - before)
        clock = host.run([{"op": "eval", "js": "[performance.now(), window.__agentEvalClock.frame()]"}]).results[0]
        time.sleep(1.0)  # the model thinks: nothing may move
        again = host.run([{"op": "eval", "js": "[performance.now(), window.__agentEvalClock.frame()]"}]).results[0]
        steps = session.steps
        hashes = [s.frame_hash for s in steps]
        # the harness is killed here (no finish): a fresh page replays the task from its timeline
        host.open("index.html")
        t = time.perf_counter()
        replayed = TaskSession(item, HostPage(host), work / "game", max_steps=args.steps + 1)
        replay_s = time.perf_counter() - t
        same = [s.frame_hash for s in replayed.steps] == hashes
    wall, browser, harness = median(walls), median([s.browser_ms for s in steps]), median([s.harness_ms for s in steps])
    played = median(game_ms)
    print(f"{args.steps} actions of the GameWorld-style test game (480x360), mixed: key, click, wait, drag")
    print(
        f"per action: median wall {wall:.0f} ms = browser {browser:.0f} + harness {harness:.1f} ms, for a median "
        f"{played:.0f} ms of game time (the action, and GameWorld's 50 ms between steps)"
    )
    print(f"paused while the model thinks: {'yes' if tuple(clock) == tuple(again) else 'NO'} (1 s wall, clock unmoved)")
    print(
        f"start-up: page host {host_s:.1f} s; GameWorld's start (first frames, init, readiness) and the first "
        f"screen {start_s:.2f} s; memory (PSS of the host's process tree) {memory:.0f} MiB"
    )
    print(
        f"replay after a kill: {len(steps)} steps in {replay_s:.1f} s ({replay_s / len(steps) * 1000:.0f} ms a step, "
        f"start included), screens identical: {'yes' if same else 'NO'}"
    )
    print(f"work folder: {work}")


if __name__ == "__main__":
    main()
