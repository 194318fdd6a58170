"""How much start time the OS sandbox adds, per command and per item.

    .venv/bin/python perf/sandbox_startup.py [--runs 20]

Each figure is a median over --runs rounds; within a round the plain and the sandboxed run
go back to back, so both see the same machine load.

* per command: `true` and `python3 -c pass`, plainly and through `Sandbox.wrap`, with no
  endpoint (no network at all) and with one loopback endpoint (the in-sandbox proxy relay).
* per item: what the runner does for one item -- enter a `Sandbox` with one endpoint
  (generated /etc files, tinyproxy and its relay started in their jail and ready-checked),
  run the command in it, leave (proxy stopped, files removed) -- against running the
  command plainly.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from agent_eval.engine.sandbox import Sandbox, SandboxSpec  # noqa: E402

COMMANDS = {"true": ["/bin/true"], "python3 -c pass": [sys.executable, "-c", "pass"]}


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def side_by_side(plain, boxed, runs: int) -> tuple[float, float, float]:
    """Medians of plain, sandboxed and of their per-round difference, in ms."""
    plain(), boxed()  # warm caches once
    pairs = [(timed(plain), timed(boxed)) for _ in range(runs)]
    return (
        statistics.median(p for p, _ in pairs),
        statistics.median(b for _, b in pairs),
        statistics.median(b - p for p, b in pairs),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    runs = ap.parse_args().runs
    root = Path(tempfile.mkdtemp(prefix="agent-eval-bench-", dir=Path.home()))
    (root / "work").mkdir()
    (root / "home").mkdir()

    def spec(endpoints):
        return SandboxSpec(root / "work", root / "home", endpoints=endpoints)

    rows = []
    try:
        for endpoints, label in (([], "no network"), (["127.0.0.1:9"], "1 endpoint")):
            with Sandbox(spec(endpoints)) as sb:
                for name, argv in COMMANDS.items():
                    wrapped, env = sb.wrap(argv)
                    rows.append(
                        (
                            f"{name}, {label}",
                            *side_by_side(
                                lambda argv=argv: subprocess.run(argv, check=True),
                                lambda wrapped=wrapped, env=env: subprocess.run(
                                    wrapped, env=env, check=True, pass_fds=sb.pass_fds
                                ),
                                runs,
                            ),
                        )
                    )
        for name, argv in COMMANDS.items():

            def item(argv=argv):
                with Sandbox(spec(["127.0.0.1:9"])) as sb:
                    wrapped, env = sb.wrap(argv)
                    subprocess.run(wrapped, env=env, check=True, pass_fds=sb.pass_fds)

            rows.append(
                (f"whole item: {name}", *side_by_side(lambda argv=argv: subprocess.run(argv, check=True), item, runs))
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)

    print(f"median of {runs} rounds, ms")
    print(f"{'':34} {'plain':>7} {'sandboxed':>10} {'added':>7}")
    for name, plain, boxed, added in rows:
        print(f"{name:34} {plain:7.1f} {boxed:10.1f} {added:7.1f}")


if __name__ == "__main__":
    main()
