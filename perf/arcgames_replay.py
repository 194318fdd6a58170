"""How long a game takes to be restored after the harness is killed, against how long it took to play.

For each count N: play N actions of one of the project's games through a GameSession (the real game process,
the frame archive, the timeline written and synced per play, as the `play` tool does), drop it without
finishing (as a SIGKILL would), then open a new session over the same folder: a fresh game process replays the
N recorded actions in one request and every frame's hash is checked against the record. Printed per N: the
play time per action (harness share apart), the restore's wall time (start-up of the game process included)
and its replay alone, side by side in one run.

    .venv/bin/python perf/arcgames_replay.py [--actions 200 2000]
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
from agent_eval.benchmarks.arcgames.loader import load_games
from agent_eval.benchmarks.arcgames.session import GameSession
from agent_eval.benchmarks.arcgames.toolkit_process import TOOLKIT_MISSING, toolkit_python

PLAN = [("ACTION3", None, None), ("ACTION4", None, None)]  # ae01: back and forth, the game goes on


def measure(n: int, scratch: Path) -> dict:
    item = next(i for i in load_games(GAMES_DIR).items if i.id == "ae01")
    folder = scratch / f"n{n}"
    with GameProcess(GAMES_DIR, "ae01", "v1", scratch=scratch) as game:
        session = GameSession(item, game, folder / "game", max_actions=n, frame_scale=4)
        started = time.perf_counter()
        session.play("RESET", None, None)
        for i in range(n - 1):
            session.play(*PLAN[i % len(PLAN)])
        play_s = time.perf_counter() - started
        harness_ms = statistics.median(p.harness_ms for p in session.plays)
        session._timeline.close()  # dropped unfinished, as the kill leaves it
    started = time.perf_counter()
    with GameProcess(GAMES_DIR, "ae01", "v1", scratch=scratch) as game:
        process_s = time.perf_counter() - started
        restored = GameSession(item, game, folder / "game", max_actions=n + 10, frame_scale=4)
        restore_s = time.perf_counter() - started
        assert restored.actions_used == n and restored.restored["outcome"] == "replayed"
        replay_s = restored.restored["seconds"]
    return {
        "n": n,
        "play_s": play_s,
        "per_action_ms": play_s / n * 1000,
        "harness_ms": harness_ms,
        "process_s": process_s,
        "replay_s": replay_s,
        "restore_s": restore_s,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actions", type=int, nargs="+", default=[200, 2000])
    args = ap.parse_args()
    if toolkit_python() is None:
        print(TOOLKIT_MISSING, file=sys.stderr)
        return 1
    columns = ["actions", "played in", "per action", "harness share (median)", "restore: game process"]
    print("| " + " | ".join(columns + ["replay + check", "whole restore"]) + " |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="agent-eval-replay-") as tmp:
        for n in args.actions:
            r = measure(n, Path(tmp))
            print(
                f"| {n} | {r['play_s']:.1f} s | {r['per_action_ms']:.1f} ms | {r['harness_ms']:.1f} ms "
                f"| {r['process_s']:.2f} s | {r['replay_s']:.2f} s | {r['restore_s']:.2f} s |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
