"""What the game process adds to one ARC-AGI-3 step, and the CPU an action costs.

For each of the project's games: start a GameProcess (bubblewrap, the toolkit's interpreter), play N actions
that keep the game going, and compare each step's wall time seen by the client with the toolkit's own time in
env.step (measured inside the host). CPU per action: the host's own CPU time over the N actions (it reports it)
plus the client's (this process's) over the same steps, over N.

    .venv/bin/python perf/arcgames_step.py [--actions 400]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from agent_eval.benchmarks.arcgames.game_process import GameProcess
from agent_eval.benchmarks.arcgames.games import GAMES_DIR
from agent_eval.benchmarks.arcgames.toolkit_process import TOOLKIT_MISSING, toolkit_python

# Actions that never end a level: back and forth (ae01, ae03's carrier), a click on a dark tile (ae02),
# and a drop that misses (ae03: an animation of several frames).
PLANS = {
    "ae01": [("ACTION3",), ("ACTION4",)],
    "ae02": [("ACTION6", 8, 8)],
    "ae03-drop": [("ACTION1",)],
}


def session(
    game: str, plan: list[tuple], n: int, scratch: Path
) -> tuple[list[float], list[float], float, float, float, int]:
    """Client wall times and toolkit step times for n actions; host CPU, client CPU and start-up wall time."""
    gid = game.split("-")[0]
    t0 = time.perf_counter()
    walls, steps, frames = [], [], 0
    with GameProcess(GAMES_DIR, gid, "v1", scratch=scratch) as g:
        startup = time.perf_counter() - t0
        g.step("RESET")
        host0, own0 = g.host_cpu_s, time.process_time()
        for i in range(n):
            a = plan[i % len(plan)]
            t = time.perf_counter()
            r = g.step(*a)
            walls.append(time.perf_counter() - t)
            steps.append(g.last_step_s)
            frames += len(r.frames)
            assert r.state == "NOT_FINISHED" and r.levels_completed == 0, (game, r.state)
        host, own = g.host_cpu_s - host0, time.process_time() - own0
    return walls, steps, host, own, startup, frames


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actions", type=int, default=400)
    args = ap.parse_args()
    if toolkit_python() is None:
        print(TOOLKIT_MISSING, file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        print(
            f"{'game':10} {'frames/act':>10} {'step (toolkit)':>15} {'client adds':>12} {'p90 adds':>9} "
            f"{'CPU/action (host+client)':>26} {'start-up':>9}"
        )
        for game, plan in PLANS.items():
            walls, steps, host, own, startup, frames = session(game, plan, args.actions, Path(tmp))
            adds = sorted(w - s for w, s in zip(walls, steps))
            cpu = (host + own) / args.actions
            print(
                f"{game:10} {frames / args.actions:10.1f} {statistics.median(steps) * 1e3:12.3f} ms "
                f"{statistics.median(adds) * 1e3:9.3f} ms {adds[int(0.9 * len(adds))] * 1e3:6.3f} ms "
                f"{cpu * 1e3:8.3f} ms ({host / args.actions * 1e3:.3f} + {own / args.actions * 1e3:.3f}) "
                f"{startup:7.2f} s"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
