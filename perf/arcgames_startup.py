"""A game host's start-up, with matplotlib's pyplot deferred (as game_host.py runs) against imported at once
(as the toolkit imports it), side by side: the two alternate, start by start.

Each sample is one GameProcess of the project's game ae01 (the jail, the toolkit's interpreter, the game
loaded) up to its first answer: the wall time until it is ready, and the host's own CPU seconds by then.

    .venv/bin/python perf/arcgames_startup.py [--starts 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from agent_eval.benchmarks.arcgames import game_process
from agent_eval.benchmarks.arcgames.game_process import GameProcess
from agent_eval.benchmarks.arcgames.games import GAMES_DIR
from agent_eval.benchmarks.arcgames.toolkit_process import TOOLKIT_MISSING, toolkit_python


def start(host: Path, scratch: Path) -> tuple[float, float]:
    """(wall seconds until ready, the host's CPU seconds after its first step) for one start with `host`."""
    game_process.HOST_SCRIPT = host
    started = time.perf_counter()
    with GameProcess(GAMES_DIR, "ae01", "v1", scratch=scratch) as game:
        ready_s = time.perf_counter() - started
        game.step("RESET")
        return ready_s, game.host_cpu_s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=10, help="starts of each kind (default 10)")
    args = ap.parse_args()
    if toolkit_python() is None:
        print(TOOLKIT_MISSING, file=sys.stderr)
        return 1
    deferred = game_process.HOST_SCRIPT
    with tempfile.TemporaryDirectory() as tmp:
        eager = Path(tmp) / "game_host.py"  # the same host without the one call that defers plotting
        source = deferred.read_text()
        assert "        defer_plotting()\n" in source
        eager.write_text(source.replace("        defer_plotting()\n", "", 1))
        samples: dict[str, list[tuple[float, float]]] = {"deferred": [], "eager": []}
        for _ in range(args.starts):
            for name, host in (("deferred", deferred), ("eager", eager)):
                samples[name].append(start(host, Path(tmp)))
    print(f"{'host':10} {'ready s (median)':>17} {'host CPU s (median)':>20}")
    for name, got in samples.items():
        print(f"{name:10} {statistics.median(s[0] for s in got):17.3f} {statistics.median(s[1] for s in got):20.3f}")
    ratio = statistics.median(s[1] for s in samples["deferred"]) / statistics.median(s[1] for s in samples["eager"])
    print(f"deferred / eager host CPU: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
