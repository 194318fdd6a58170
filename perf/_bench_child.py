"""Child processes for run_bench.py (not meant to be run by hand).

    python perf/_bench_child.py run '<json>'            one Runner.run(), timed in-process
    python perf/_bench_child.py rerun-profile '<json>'  the steps of `agent-eval run`, timed

Each prints one JSON line on stdout. Running the runner in its own process gives it its own
interpreter (no GIL shared with the benchmark) and lets the parent read its own peak memory
and the process trees of its agents.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time

T_START = time.perf_counter()
EPOCH_START = time.time()  # the parent compares these with its own clock: start-up and exit apart


def _rusage() -> dict:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "maxrss_kb": me.ru_maxrss,
        "cpu_self_s": me.ru_utime + me.ru_stime,
        "cpu_children_s": kids.ru_utime + kids.ru_stime,
    }


def _vm_hwm_kb() -> int:
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def scripted_environ(agent: str, url: str) -> dict[str, str]:
    """agent_eval.agents.registry.scripted_environ, repeated here so that this process imports only what a run
    needs: its peak RSS is the runner's."""
    if agent == "claude-code":
        return {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "scripted-key", "HOME": "/nonexistent"}
    return {"OPENAI_BASE_URL": url + "/v1", "OPENAI_API_KEY": "scripted-key", "HOME": "/nonexistent"}


def run(args: dict) -> dict:
    from collections import Counter
    from pathlib import Path

    from rich.console import Console

    from agent_eval.agents.registry import efforts_by_agent
    from agent_eval.benchmarks import get_benchmark
    from agent_eval.datamodel.config import RunConfig
    from agent_eval.engine.runner import Runner
    from agent_eval.engine.selection import select

    # Named, not detected: detection imports the activeobs package and with it the MCP SDK, which a
    # run of ActiveVision items never uses (see the re-run profile); this process's peak RSS is then
    # what the runner needs.
    benchmark = get_benchmark("activevision")
    dataset = benchmark.load(Path(args["data"]))
    items = select(dataset)[: args.get("n") or None]
    config = RunConfig(
        agent=args["agent"],
        model=args["model"],
        tools=args["tools"],
        jobs=args["jobs"],
        timeout_s=args.get("timeout_s", 180),
        sandbox=args.get("sandbox", "bwrap"),
        unpriced=True,
    )  # a scripted model has no price
    config.validate(efforts_by_agent())
    t0 = time.perf_counter()
    runner = Runner(
        config,
        benchmark,
        dataset,
        items,
        Path(args["out_dir"]),
        run_name=args["run_name"],
        console=Console(file=open(os.devnull, "w")),
        environ=scripted_environ(args["agent"], args["url"]),
        scripted_model=True,
    )
    t1, cpu1 = time.perf_counter(), _rusage()["cpu_self_s"]
    outcome = runner.run()
    t2, cpu2 = time.perf_counter(), _rusage()["cpu_self_s"]
    records = outcome.store.records()
    return {
        "n": len(items),
        "ran": outcome.ran,
        "skipped": outcome.skipped,
        "init_s": t1 - t0,
        "run_s": t2 - t1,
        "run_cpu_self_s": cpu2 - cpu1,  # the runner's own CPU while it ran the items
        "statuses": dict(Counter(r.status for r in records)),
        "item_elapsed_s": sorted(r.elapsed_s for r in records if r.elapsed_s is not None),
        "vm_hwm_kb": _vm_hwm_kb(),
        **_rusage(),
    }


def rerun_profile(args: dict) -> dict:
    """What `agent-eval run` does (agent_eval.cli.run), step by step, with a clock on each."""
    steps: list[tuple[str, float]] = []
    last = [T_START]

    def mark(name: str) -> None:
        now = time.perf_counter()
        steps.append((name, now - last[0]))
        last[0] = now

    import agent_eval.cli  # noqa: F401  (what the agent-eval entry point imports)

    mark("import agent_eval.cli (click, rich, every subcommand module)")
    from pathlib import Path

    from rich.console import Console

    from agent_eval.agents import get_agent
    from agent_eval.agents.registry import efforts_by_agent
    from agent_eval.analysis.tables import accuracy_table
    from agent_eval.benchmarks import load_benchmark
    from agent_eval.datamodel.config import RunConfig
    from agent_eval.engine.runner import Runner
    from agent_eval.engine.selection import select

    console = Console(file=open(os.devnull, "w"))
    config = RunConfig(agent=args["agent"], model=args["model"], tools=args["tools"], jobs=args["jobs"], unpriced=True)
    config.validate(efforts_by_agent())
    benchmark, dataset = load_benchmark(Path(args["data"]))
    mark(f"load_benchmark: detect the kind, load {len(dataset.items)} items (metadata, every image opened)")
    items = select(dataset)
    mark("select")
    agent = get_agent(args["agent"])
    agent.version()
    mark(f"Runner init: {agent.binary} version (agent.version())")
    dataset.content_hash()
    mark("Runner init: dataset.content_hash() (sha256 of every image)")
    runner = Runner(
        config, benchmark, dataset, items, Path(args["out_dir"]), run_name=args["run_name"], console=console
    )
    mark("Runner(...) whole (repeats the two steps above, plus prompt/scorer hash, store)")
    outcome = runner.run()
    mark(f"Runner.run() (manifest, done_keys, progress bar, summaries; ran {outcome.ran}, skipped {outcome.skipped})")
    console.print(accuracy_table(outcome.rollup, runner.run_name))
    mark("accuracy table")
    return {
        "steps": steps,
        "total_in_script_s": time.perf_counter() - T_START,
        "ran": outcome.ran,
        "skipped": outcome.skipped,
        "epoch_start": EPOCH_START,
        "epoch_end": time.time(),
    }


def rerun_lean(args: dict) -> dict:
    """The same re-run with only the imports it needs: no other subcommand's module, and the
    ActiveVision benchmark named instead of detected (detection imports the activeobs package).
    A lower bound for what the CLI's start-up can reach."""
    from pathlib import Path

    from rich.console import Console

    from agent_eval.agents.registry import efforts_by_agent
    from agent_eval.analysis.tables import accuracy_table
    from agent_eval.benchmarks import get_benchmark
    from agent_eval.datamodel.config import RunConfig
    from agent_eval.engine.runner import Runner
    from agent_eval.engine.selection import select

    console = Console(file=open(os.devnull, "w"))
    config = RunConfig(agent=args["agent"], model=args["model"], tools=args["tools"], jobs=args["jobs"], unpriced=True)
    config.validate(efforts_by_agent())
    benchmark = get_benchmark("activevision")
    dataset = benchmark.load(Path(args["data"]))
    runner = Runner(
        config, benchmark, dataset, select(dataset), Path(args["out_dir"]), run_name=args["run_name"], console=console
    )
    outcome = runner.run()
    console.print(accuracy_table(outcome.rollup, runner.run_name))
    return {"ran": outcome.ran, "skipped": outcome.skipped, "total_in_script_s": time.perf_counter() - T_START}


if __name__ == "__main__":
    mode, payload = sys.argv[1], json.loads(sys.argv[2])
    result = {"run": run, "rerun-profile": rerun_profile, "rerun-lean": rerun_lean}[mode](payload)
    print(json.dumps(result), flush=True)
