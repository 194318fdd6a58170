"""A run with more jobs than the provider allows requests at once: how close to the provider's own limit
the gateway's rate limiter keeps the run.

    .venv/bin/python perf/rate_limits.py [--agent codex --agent claude-code] [--per-task 4] [--delay 5]

The scripted model server stands in for a provider that answers each model request after `--delay`
seconds and allows `--concurrency` (4) requests at once: one more gets 429 with `retry-after: 1`. The
run has `--jobs` (16) items at once, each answering in one model request (tool mode none), through the
real CLI, sandboxed, and the real gateway. The ideal wall time is what the provider's limit allows:
requests x delay / concurrency. Also run, for reference: the same items with `--jobs` equal to the
limit and no limit at the server (what a user who knew the limit would have run). Reported per agent:
wall time, the ideal, their ratio (the issue's target: within 1.3x), the reference, the 429s the
gateway absorbed, the 429s any CLI saw (0 expected), the peak at the server, the items per status and
the waits recorded per item. docs/performance.md has the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from rich.console import Console  # noqa: E402

from agent_eval.agents.registry import agent_class, efforts_by_agent, scripted_environ  # noqa: E402
from agent_eval.benchmarks import load_benchmark  # noqa: E402
from agent_eval.benchmarks.activevision.samples import write_sample_set  # noqa: E402
from agent_eval.datamodel.config import RunConfig  # noqa: E402
from agent_eval.engine.runner import Runner  # noqa: E402
from agent_eval.engine.selection import select  # noqa: E402
from agent_eval.scripted import ScriptedServer  # noqa: E402


def one_run(agent: str, data: Path, out: Path, jobs: int, faults: dict) -> dict:
    benchmark, dataset = load_benchmark(data)
    config = RunConfig(
        agent=agent, model=agent_class(agent).demo_model, tools="none", jobs=jobs, timeout_s=600, unpriced=True
    )
    config.validate(efforts_by_agent())
    with ScriptedServer({"turns": ["<answer>1</answer>"]}, faults=faults) as server:
        runner = Runner(
            config,
            benchmark,
            dataset,
            select(dataset),
            out,
            console=Console(file=open(os.devnull, "w")),
            environ=scripted_environ(agent, server.url),
            scripted_model=True,
        )
        started = time.monotonic()
        outcome = runner.run()
        wall = time.monotonic() - started
        kinds = Counter(r.kind for r in server.requests)
        peak = server.peak_in_flight
    records = outcome.store.records()
    waits = [r.provider_wait_s or 0.0 for r in records]
    return {
        "wall": wall,
        "answered": kinds["main"],
        "over_limit": kinds["over_limit"],
        "peak": peak,
        "statuses": dict(Counter(r.status for r in records)),
        "absorbed": sum((r.gateway or {}).get("upstream", {}).get("rate_limited", 0) for r in records),
        "cli_saw_429": sum(429 in (r.api_retries or []) for r in records),
        "wait_median": statistics.median(waits) if waits else 0.0,
        "wait_max": max(waits, default=0.0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", action="append", choices=["codex", "claude-code"])
    parser.add_argument("--per-task", type=int, default=4, help="items per sample task (6 tasks)")
    parser.add_argument("--delay", type=float, default=5.0, help="seconds the provider takes per request")
    parser.add_argument("--concurrency", type=int, default=4, help="requests the provider allows at once")
    parser.add_argument("--jobs", type=int, default=16)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="agent-eval-bench-limits-") as scratch:
        data = Path(scratch) / "data"
        write_sample_set(data, seed=0, per_task=args.per_task)
        for agent in args.agent or ["codex", "claude-code"]:
            limited = one_run(
                agent,
                data,
                Path(scratch) / agent / "limited",
                args.jobs,
                {"delay": args.delay, "concurrency": args.concurrency, "retry_after": 1},
            )
            reference = one_run(
                agent, data, Path(scratch) / agent / "reference", args.concurrency, {"delay": args.delay}
            )
            ideal = limited["answered"] * args.delay / args.concurrency
            print(
                f"{agent}: {limited['answered']} requests of {args.delay:g} s, provider allows {args.concurrency} "
                f"at once, --jobs {args.jobs}"
            )
            print(
                f"  wall {limited['wall']:.1f} s, ideal {ideal:.1f} s: {limited['wall'] / ideal:.2f}x the ideal; "
                f"reference (--jobs {args.concurrency}, no limit met) {reference['wall']:.1f} s"
            )
            print(
                f"  429s: {limited['over_limit']} from the provider, {limited['absorbed']} absorbed at the gateway, "
                f"{limited['cli_saw_429']} seen by a CLI; peak at the provider {limited['peak']}"
            )
            print(
                f"  statuses {limited['statuses']}; provider wait per item: median {limited['wait_median']:.1f} s, "
                f"max {limited['wait_max']:.1f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
