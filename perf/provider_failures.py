"""What a failing provider costs the items of a run: how each ends, its attempts, the time held for the provider,
the requests that reach the provider, the wall time.

    .venv/bin/python perf/provider_failures.py [--agent codex --agent claude-code] [--outage-s 60]
    .venv/bin/python perf/provider_failures.py --single [--hold-minutes 0.5]

Issue 31's scenarios (the default), through the real CLI, sandboxed, the real gateway and the scripted model
server, with the run's defaults (`--outage-hold-minutes 30`) and `--timeout 120`:

- outage: 3 items at once (`--jobs 3`); the provider answers every model request 500 for `--outage-s`
  (side requests too), then answers. On the code before issue 31 all 3 ended upstream_error after 34 s.
- poison: 5 items at once; the provider always fails the 2 whose question matches (500, or a cut stream),
  and the first 6 requests of the 3 others (each fails about twice), which would then be answered. Before,
  the 3 others ended upstream_error too, after waiting 30 s in the run-wide pause.

`--single` measures issue 27's case instead: one item whose every request fails (500, then a cut stream);
nothing is answered, so it is an outage: held for `--hold-minutes`, then `upstream_error`. Beside it, issue 40's:
one item alone that the provider always fails while it is up for everything else (a poisoned question, 500):
the gateway's own probe of the same model is answered, so it ends `upstream_error` at once instead of being
held (before the probe: held for `--hold-minutes`). docs/performance.md has the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
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

THREE = "CCC-0,LIS-0,FDS-0"
FIVE = "CCC-0,LIS-0,FDS-0,MPT-0,RC-0"
POISONED = ("MPT-0", "RC-0")


def scenarios(data: Path, outage_s: float, single: bool) -> list[tuple[str, str, dict, int]]:
    """(name, item ids, faults, jobs)."""
    questions = {
        row["id"]: row["question"] for row in map(json.loads, (data / "metadata.jsonl").read_text().split("\n")[:-1])
    }
    if single:
        alone = re.escape(questions["FDS-0"][:60])
        return [
            ("1 item, HTTP 500 on every request", "FDS-0", {"status": 500}, 1),
            ("1 item, every stream cut", "FDS-0", {"truncate": True}, 1),
            (
                "1 item alone that the provider always fails (500), the provider up",
                "FDS-0",
                {"status": 500, "match": alone},
                1,
            ),
        ]
    poison = "|".join(re.escape(questions[i][:60]) for i in POISONED)
    return [
        (f"3 items, HTTP 500 on every request for {outage_s:g} s", THREE, {"status": 500, "for_s": outage_s}, 3),
        ("5 items, 2 always HTTP 500, the others twice", FIVE, {"status": 500, "times": 6, "poison": poison}, 5),
        ("5 items, 2 always cut, the others twice", FIVE, {"truncate": True, "times": 6, "poison": poison}, 5),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", action="append", choices=["codex", "claude-code"])
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--outage-s", type=float, default=60.0)
    parser.add_argument("--single", action="store_true", help="issue 27's one-item case")
    parser.add_argument("--hold-minutes", type=float, default=None, help="--outage-hold-minutes (default: the run's)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="agent-eval-bench-failures-") as scratch:
        data = Path(scratch) / "data"
        write_sample_set(data, seed=0, per_task=1)
        benchmark, dataset = load_benchmark(data)
        for agent in args.agent or ["codex", "claude-code"]:
            for n, (name, ids, faults, jobs) in enumerate(scenarios(data, args.outage_s, args.single)):
                config = RunConfig(
                    agent=agent,
                    model=agent_class(agent).demo_model,
                    tools="none",
                    jobs=jobs,
                    timeout_s=args.timeout,
                    unpriced=True,
                )
                if args.hold_minutes is not None and hasattr(config, "outage_hold_minutes"):
                    config.outage_hold_minutes = args.hold_minutes
                config.validate(efforts_by_agent())
                with ScriptedServer({"turns": ["<answer>1</answer>"]}, faults=faults) as server:
                    runner = Runner(
                        config,
                        benchmark,
                        dataset,
                        select(dataset, ids=ids),
                        Path(scratch) / f"{agent}{n}",
                        console=Console(file=open(os.devnull, "w")),
                        environ=scripted_environ(agent, server.url),
                        scripted_model=True,
                    )
                    started = time.monotonic()
                    outcome = runner.run()
                    wall = time.monotonic() - started
                    sent = len(server.main_requests())
                    probes = [r.outcome for r in server.requests if r.kind == "health_probe"]
                records = sorted(outcome.store.records(), key=lambda r: r.id)
                ends = ", ".join(
                    f"{r.id} {r.status} ({r.attempts} att., held {getattr(r, 'provider_wait_s', 0) or 0:.0f} s)"
                    for r in records
                )
                tally = dict(Counter(r.status for r in records))
                asked = (
                    f", {len(probes)} probe(s) of the gateway ({probes.count('health_probe')} answered)"
                    if probes
                    else ""
                )
                print(f"{agent}, {name}: {tally}, {sent} request(s) at the provider{asked}, {wall:.1f} s", flush=True)
                print(f"    {ends}", flush=True)


if __name__ == "__main__":
    main()
