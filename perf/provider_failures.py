"""What one item costs when the provider fails every request: the requests that reach it, the status
the item ends with, and how long it takes.

    .venv/bin/python perf/provider_failures.py [--agent codex --agent claude-code] [--timeout 120]

The scripted model server answers every model request with HTTP 500, then (separately) cuts every
answer's stream mid-message. One item runs through the real CLI, sandboxed, and the real gateway,
with the run's defaults (4 attempts for a rate-limited item) and `--timeout`. Issue 27 measured on
the code before the gateway met these failures: Codex 120 requests and `rate_limited` (106 s) for
500s, 6 and `agent_error` for cut streams; Claude Code 9 requests and `timeout` for 500s.
docs/benchmarks.md has the figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
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

FAULTS = {"HTTP 500 on every request": {"status": 500}, "every stream cut": {"truncate": True}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", action="append", choices=["codex", "claude-code"])
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="agent-eval-bench-failures-") as scratch:
        data = Path(scratch) / "data"
        write_sample_set(data, seed=0, per_task=1)
        benchmark, dataset = load_benchmark(data)
        for agent in args.agent or ["codex", "claude-code"]:
            for n, (name, faults) in enumerate(FAULTS.items()):
                config = RunConfig(
                    agent=agent,
                    model=agent_class(agent).demo_model,
                    tools="none",
                    jobs=1,
                    timeout_s=args.timeout,
                    unpriced=True,
                )
                config.validate(efforts_by_agent())
                with ScriptedServer({"turns": ["<answer>1</answer>"]}, faults=faults) as server:
                    runner = Runner(
                        config,
                        benchmark,
                        dataset,
                        select(dataset, ids="FDS-0"),
                        Path(scratch) / f"{agent}{n}",
                        console=Console(file=open(os.devnull, "w")),
                        environ=scripted_environ(agent, server.url),
                        scripted_model=True,
                    )
                    started = time.monotonic()
                    outcome = runner.run()
                    wall = time.monotonic() - started
                    sent = len(server.main_requests())
                (record,) = outcome.store.records()
                print(
                    f"{agent}, {name}: {record.status} after {sent} request(s) at the provider, "
                    f"{record.attempts} attempt(s), {wall:.1f} s",
                    flush=True,
                )


if __name__ == "__main__":
    main()
