"""How much start time the OS sandbox adds: per command, and per item (its proxy).

    .venv/bin/python benchmarks/sandbox_startup.py [--runs 20]

Per command: median wall time of `true` and `python3 -c pass` run plainly and through
`Sandbox.wrap` (with no endpoint, i.e. no network at all, and with one loopback endpoint,
i.e. the in-sandbox proxy relay). Per item: median time to enter and leave a `Sandbox` with
one endpoint (generated files + tinyproxy and its relay in their jail, ready-checked).
The item's added cost is one "enter + exit" plus one wrapped command (the agent CLI).
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
from agent_eval.sandbox import Sandbox, SandboxSpec  # noqa: E402


def median_ms(fn, runs: int) -> float:
    fn()                                   # warm caches once
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    runs = ap.parse_args().runs
    root = Path(tempfile.mkdtemp(prefix="agent-eval-bench-", dir=Path.home()))
    try:
        (root / "work").mkdir()
        (root / "home").mkdir()
        commands = {"true": ["/bin/true"], "python3 -c pass": [sys.executable, "-c", "pass"]}
        rows = []
        for endpoints, label in (([], "no network"), (["127.0.0.1:9"], "1 endpoint")):
            with Sandbox(SandboxSpec(root / "work", root / "home", endpoints=endpoints)) as sb:
                for name, argv in commands.items():
                    wrapped, env = sb.wrap(argv)
                    plain = median_ms(lambda: subprocess.run(argv, check=True), runs)
                    boxed = median_ms(lambda: subprocess.run(wrapped, env=env, check=True), runs)
                    rows.append((f"{name} ({label})", plain, boxed))

        def item():
            with Sandbox(SandboxSpec(root / "work", root / "home", endpoints=["127.0.0.1:9"])):
                pass
        enter_exit = median_ms(item, runs)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    print(f"median of {runs} runs, ms")
    print(f"{'command':32} {'plain':>8} {'sandboxed':>10} {'added':>8}")
    for name, plain, boxed in rows:
        print(f"{name:32} {plain:8.1f} {boxed:10.1f} {boxed - plain:8.1f}")
    print(f"{'Sandbox enter+exit (proxy)':32} {'':8} {enter_exit:10.1f} {enter_exit:8.1f}")
    per_item = enter_exit + max(b - p for n, p, b in rows if "1 endpoint" in n)
    print(f"added per item (enter+exit + one wrapped command): {per_item:.1f} ms")


if __name__ == "__main__":
    main()
