"""Load and speed of the harness, measured side by side in one run on the scripted model.

    .venv/bin/python perf/run_bench.py [--quick] [--agents claude-code,codex] [--json OUT]
    make bench

Five measurements, all with the real CLIs (node_modules/.bin) against the scripted model
server (agent_eval/scripted, run as its own process), the bwrap sandbox on:

1. overhead   per-item wall time of the harness (an in-process Runner running one item,
              sandboxed) against the bare CLI doing the same episode (the same files, prompt,
              command line, environment and fresh private config dir from the benchmark and
              the adapter, run with subprocess: no runner, no sandbox). Mode python, two model
              calls (one shell call, then the answer). Rounds alternate which side goes first;
              one warm-up round is dropped. Target: median(harness) / median(bare) <= 1.15.
2. throughput `--jobs 1, 8, 32`, mode none (one model call per item), the model waiting 3 s
              per call: items/s, speed-up over jobs 1, efficiency = speed-up / jobs (target
              >= 0.80 at jobs 32). Beside it what bounds it: the bare CLI's CPU per item
              (cores / that = the most items/s the machine can start), the CPU a CLI burns
              while it waits, and the bare CLIs run 32 at a time with no harness at all.
3. memory     while the jobs-8 runs go, every 0.25 s the process trees under the runner are
              read from /proc (RSS and PSS per tree: the sandboxed agent, its proxy jail);
              the runner's own peak is its VmHWM. Also one python-mode item per agent.
4. rerun      an 85-item dataset (the real question bank with generated images, or 85
              generated sample items if the bank is absent) run once in mode none with
              --jobs 16, then `agent-eval run` again: no agent may start (0 model requests, no
              new sandbox dir) and it must finish in under 1 s. The time is broken down
              (start-up, imports, each step, exit), the imports profiled, and the same re-run
              timed importing only what it needs.
5. modes      what a tool mode costs (perf/tool_modes.py): runs of 3 and 12 items per
              mode at --jobs 1, the model answering in one call; slope = one more item,
              intercept = the run's fixed start-up, against the bare CLI with no tools. Part 2
              also runs in mode python (2b). Targets: per item <= 1.15x wall, <= 1.2x CPU;
              start-up < 0.5 s.

Each runner runs in its own process (perf/_bench_child.py) so it shares nothing with
the scripted server or this script; the CPU of every phase is split into ours and the rest
of the machine's. Results go to a temporary dir, removed at the end (--keep keeps it). A
compact target/measured/PASS-MISS table closes the output. docs/performance.md has the figures.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_kit import (  # puts the project on sys.path, before any agent_eval import
    AGENT_EVAL,
    BANK,
    CHILD,
    DELAY_S,
    EFFICIENCY_TARGET,
    IDLE_PROBE_S,
    MODELS,
    OVERHEAD_TARGET,
    PYTHON,
    RERUN_TARGET_S,
    ROOT,
    SAMPLED_CPU,
    CpuMeter,
    ServerProcess,
    TreeSampler,
    bare_episode,
    cmdline,
    console,
    loadavg,
    log,
    machine_info,
    memory_summary,
    overhead_scenario,
    scripted_env,
    verdict,
)
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402


def measure_overhead(agent: str, data_dir: Path, work: Path, rounds: int) -> dict:
    from agent_eval.agents import get_agent
    from agent_eval.benchmarks import load_benchmark
    from agent_eval.datamodel.config import RunConfig
    from agent_eval.engine.runner import Runner

    benchmark, dataset = load_benchmark(data_dir)
    item = dataset.items[0]
    with ServerProcess(work, f"overhead-{agent}", overhead_scenario()) as server:
        environ = scripted_env(agent, server.url, work / "nohome")
        config = RunConfig(
            agent=agent, model=MODELS[agent], tools="python", jobs=1, timeout_s=120, unpriced=True
        )  # a scripted model has no price
        quiet = Console(file=open(os.devnull, "w"))
        runner = Runner(
            config,
            benchmark,
            dataset,
            [item],
            work / "harness",
            run_name=f"overhead-{agent}",
            console=quiet,
            environ=environ,
            scripted_model=True,
        )
        # The same runner without the sandbox (a third arm): splits the added time into runner and sandbox.
        plain_config = dataclasses.replace(config, sandbox="none")
        plain = Runner(
            plain_config,
            benchmark,
            dataset,
            [item],
            work / "harness-nosandbox",
            run_name=f"overhead-{agent}-nosandbox",
            console=quiet,
            environ=environ,
            scripted_model=True,
        )
        auth = get_agent(agent).find_auth(environ)
        bare_cpu: list[float] = []

        def bare(k: int) -> float:
            elapsed, cpu, stdout = bare_episode(
                agent, benchmark, item, "python", runner.template.text, auth, work / "bare" / str(k)
            )
            if b"<answer>(" not in stdout:
                raise RuntimeError(f"bare {agent} round {k}: the shell call did not work: {stdout[-800:]!r}")
            bare_cpu.append(cpu)
            return elapsed

        def harness(k: int, which: Runner = runner) -> float:
            which.config.repeats = k + 1  # exactly one new attempt: (item, k)
            t0 = time.perf_counter()
            outcome = which.run()
            elapsed = time.perf_counter() - t0
            record = outcome.store.latest_records()[(item.id, k)]
            if outcome.ran != 1 or record.status != "ok" or "<answer>(" not in (record.answer_text or ""):
                raise RuntimeError(
                    f"harness {agent} round {k}: ran {outcome.ran}, status {record.status}: "
                    f"{record.error} {record.answer_text!r}"
                )
            return elapsed

        arms = {"bare": bare, "bwrap": harness, "nosandbox": lambda k: harness(k, plain)}
        # CPU of the sandboxed trees, for the machine-load figures (cheap: no PSS, 4 reads a second).
        phase_sampler = TreeSampler(os.getpid(), exclude={server.proc.pid}, interval=0.25, pss=False)
        phase_sampler.start()
        for run_arm in arms.values():  # warm-up round, dropped
            run_arm(0)
        bare_cpu.clear()
        times: dict[str, list[float]] = {name: [] for name in arms}
        names = list(arms)
        for k in range(1, rounds + 1):
            for name in names[k % 3 :] + names[: k % 3]:  # each arm goes first, second, third in turn
                times[name].append(arms[name](k))
        pairs = list(zip(times["bare"], times["bwrap"]))
        # One more item, sampled: memory and CPU of a python-mode agent (CLI + MCP image tools + shell).
        phase_sampler.stop()
        sampler = TreeSampler(os.getpid(), exclude={server.proc.pid}, interval=0.05, count_cpu=False)
        sampler.start()
        harness(rounds + 1)
        sampler.stop()
        SAMPLED_CPU[0] += sampler.cpu_s
        outcomes = server.main_outcomes()
    bad = [o for o in outcomes if not (o.startswith("call:") or o == "final")]
    if bad:
        raise RuntimeError(f"{agent}: the scripted server saw unexpected requests: {bad[:5]}")
    bare_s, harness_s = [b for b, _ in pairs], [h for _, h in pairs]
    return {
        "rounds": rounds,
        "bare_s": bare_s,
        "harness_s": harness_s,
        "bare_median_s": statistics.median(bare_s),
        "harness_median_s": statistics.median(harness_s),
        "ratio": statistics.median(harness_s) / statistics.median(bare_s),
        "median_pair_ratio": statistics.median(h / b for b, h in pairs),
        "median_added_s": statistics.median(h - b for b, h in pairs),
        "nosandbox_s": times["nosandbox"],
        "nosandbox_median_s": statistics.median(times["nosandbox"]),
        "nosandbox_added_s": statistics.median(n - b for b, n in zip(times["bare"], times["nosandbox"])),
        "bare_cpu_median_s": statistics.median(bare_cpu),
        "harness_cpu_sampled_s": sampler.cpu_s,
        "model_requests": len(outcomes),
        "python_mode_memory": memory_summary(sampler),
    }


# ---------------------------------------------------------------------------------------------
# 2 + 3. throughput at jobs 1, 8, 32 and memory at jobs 8
# ---------------------------------------------------------------------------------------------
def run_sampled(
    argv: list[str], env: dict | None = None, interval: float = 0.5, pss: bool = False
) -> tuple[subprocess.CompletedProcess, float, TreeSampler]:
    """Run a command to the end while a TreeSampler watches the process trees under it."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    sampler = TreeSampler(proc.pid, interval=interval, pss=pss)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    sampler.stop()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err), wall, sampler


def run_child(
    mode: str, args: dict, interval: float = 0.5, pss: bool = False, env: dict | None = None
) -> tuple[dict, float, TreeSampler]:
    done, wall, sampler = run_sampled([PYTHON, CHILD, mode, json.dumps(args)], env, interval, pss)
    if done.returncode != 0:
        raise RuntimeError(f"child {mode} failed with exit {done.returncode}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1]), wall, sampler


def measure_throughput(agent: str, data_dir: Path, work: Path, sizes: dict[int, int], bare_runs: int) -> dict:
    from agent_eval.agents import get_agent
    from agent_eval.benchmarks import load_benchmark
    from agent_eval.datamodel.prompts import load_template

    rows = {}
    with ServerProcess(
        work, f"throughput-{agent}", {"turns": [{"final": "<answer>A</answer>"}]}, delay=DELAY_S
    ) as server:
        # The CPU one item costs the bare CLI (its own rusage): what bounds throughput on few cores.
        benchmark, dataset = load_benchmark(data_dir)
        auth = get_agent(agent).find_auth(scripted_env(agent, server.url, work / "nohome"))
        template = load_template("none", benchmark.prompts_dir())
        bare = [
            bare_episode(agent, benchmark, dataset.items[0], "none", template.text, auth, work / "bare" / str(k))
            for k in range(bare_runs)
        ]
        bare_cpu = statistics.median(cpu for _, cpu, _ in bare)
        # What a CLI burns while it waits on the model: one episode with a 10 s wait against the same
        # without a wait (a 10 s difference stands well above the run-to-run noise).
        idle_cpu = {}
        for wait in (None, IDLE_PROBE_S):
            with ServerProcess(
                work, f"idle-{agent}-{wait}", {"turns": [{"final": "<answer>A</answer>"}]}, delay=wait
            ) as probe:
                probe_auth = get_agent(agent).find_auth(scripted_env(agent, probe.url, work / "nohome"))
                idle_cpu[wait] = statistics.median(
                    bare_episode(
                        agent,
                        benchmark,
                        dataset.items[0],
                        "none",
                        template.text,
                        probe_auth,
                        work / f"bare-idle-{wait}" / str(k),
                    )[1]
                    for k in range(1 if wait else bare_runs)
                )
        idle_cores = max(0.0, (idle_cpu[IDLE_PROBE_S] - idle_cpu[None]) / IDLE_PROBE_S)
        # The bare CLIs at the top --jobs on the same items, no harness: what this machine allows.
        top, n_top = max(sizes), sizes[max(sizes)]
        log(f"  {agent}: bare CLIs, {top} at a time, {n_top} items (load {loadavg()})")
        from concurrent.futures import ThreadPoolExecutor

        with CpuMeter() as bare_meter, ThreadPoolExecutor(max_workers=top) as pool:
            list(
                pool.map(
                    lambda k: bare_episode(
                        agent, benchmark, dataset.items[k], "none", template.text, auth, work / "bare-pool" / str(k)
                    ),
                    range(n_top),
                )
            )
        bare_pool = {
            "jobs": top,
            "n": n_top,
            "wall_s": bare_meter.wall_s,
            "items_per_s": n_top / bare_meter.wall_s,
            "machine": bare_meter.describe(),
        }
        for jobs, n in sizes.items():
            log(f"  {agent}: --jobs {jobs}, {n} items (load {loadavg()})")
            # The process trees are read every 0.05 s at jobs 1 (CPU per item), with PSS every 0.25 s at
            # jobs 8 (memory per agent), every 0.5 s at jobs 32 (CPU only, to disturb it least).
            every, pss = {1: (0.05, False), 8: (0.25, True)}.get(jobs, (0.5, False))
            with CpuMeter() as meter:
                result, wall, sampler = run_child(
                    "run",
                    {
                        "agent": agent,
                        "model": MODELS[agent],
                        "tools": "none",
                        "jobs": jobs,
                        "n": n,
                        "data": str(data_dir),
                        "out_dir": str(work / "throughput"),
                        "run_name": f"{agent}-j{jobs}",
                        "url": server.url,
                    },
                    interval=every,
                    pss=pss,
                )
            if result["statuses"] != {"ok": n}:
                raise RuntimeError(f"{agent} jobs {jobs}: statuses {result['statuses']}")
            rows[jobs] = {
                **result,
                "child_wall_s": wall,
                "items_per_s": n / result["run_s"],
                "memory": memory_summary(sampler) if pss else None,
                "harness_cpu_per_item_s": (result["run_cpu_self_s"] + sampler.cpu_s) / n,
                "runner_cpu_per_item_s": result["run_cpu_self_s"] / n,
                "item_elapsed_median_s": statistics.median(result["item_elapsed_s"]),
                "machine": meter.describe(),
            }
        requests = len(server.main_outcomes())
    nproc = len(os.sched_getaffinity(0))
    rate1 = rows[1]["items_per_s"]
    cpu_ceiling = nproc / bare_cpu
    for jobs, row in rows.items():
        row["speedup"] = row["items_per_s"] / rate1
        row["efficiency"] = row["speedup"] / jobs
        # The best any harness could do here: jobs x the jobs-1 rate, but no more items/s than the
        # cores can start CLIs (cores / bare CPU per item).
        row["ceiling_items_per_s"] = min(jobs * rate1, cpu_ceiling)
        row["of_ceiling"] = row["items_per_s"] / row["ceiling_items_per_s"]
    return {
        "rows": rows,
        "model_requests": requests,
        "bare_cpu_per_item_s": bare_cpu,
        "bare_cpu_no_wait_s": idle_cpu[None],
        "bare_cpu_long_wait_s": idle_cpu[IDLE_PROBE_S],
        "idle_cores_per_waiting_agent": idle_cores,
        "bare_pool": bare_pool,
        "bare_wall_s": statistics.median(w for w, _, _ in bare),
        "cpu_ceiling_items_per_s": cpu_ceiling,
        "nproc": nproc,
    }


# ---------------------------------------------------------------------------------------------
# 4. re-running a finished 85-item run
# ---------------------------------------------------------------------------------------------
def write_bank_dataset(root: Path) -> tuple[Path, str]:
    """The real question bank in the released metadata.jsonl layout, with small generated images
    (as tests/conftest.py's write_metadata_layout does); without the bank, 85 generated items."""
    from PIL import Image

    if not BANK.is_file():
        from agent_eval.benchmarks.activevision.samples import write_sample_set

        write_sample_set(root, seed=0, per_task=15)
        lines = (root / "metadata.jsonl").read_text().splitlines()
        (root / "metadata.jsonl").write_text("\n".join(lines[:85]) + "\n")
        return root, f"85 generated sample items (no question bank at {BANK}; set AGENT_EVAL_BANK)"
    rows = [json.loads(line) for line in BANK.read_text().splitlines() if line.strip()]
    root.mkdir(parents=True)
    with (root / "metadata.jsonl").open("w") as handle:
        for index, row in enumerate(rows):
            Image.new("RGB", (64, 48), ((index * 37) % 256, (index * 91) % 256, 120)).save(root / f"{row['id']}.png")
            handle.write(json.dumps({**row, "file_name": f"{row['id']}.png"}) + "\n")
    return root, f"the real question bank ({BANK}, {len(rows)} items) with generated 64x48 images"


def median_wall(argv: list[str], runs: int, env: dict | None = None) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, env=env, cwd=ROOT)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def import_tree(stderr: str, min_ms: float = 40, max_depth: int = 3) -> list[tuple[int, str, float]]:
    """The heavy imports of a `python -X importtime` run, as (depth, module, cumulative ms) in tree
    order: every import of at least `min_ms`, down to `max_depth` levels (an import done inside a
    function, such as a lazily loaded module, shows at depth 0)."""
    pending: dict[int, list] = {}  # importtime prints a module after its children
    for line in stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \| ( *)(\S+)", line)
        if match:
            depth = len(match.group(2)) // 2
            node = (depth, match.group(3), int(match.group(1)) / 1000, pending.pop(depth + 1, []))
            pending.setdefault(depth, []).append(node)
    out: list[tuple[int, str, float]] = []

    def walk(nodes: list) -> None:
        for depth, name, ms, children in nodes:
            if ms >= min_ms and depth <= max_depth:
                out.append((depth, name, ms))
                walk(children)

    walk(pending.get(0, []))
    return out


MINIMAL_RUN_IMPORTS = (
    "click, rich.console, agent_eval.datamodel.config, agent_eval.engine.selection, agent_eval.engine.runner, "
    "agent_eval.analysis.tables, "
    "agent_eval.benchmarks.activevision.benchmark"
)


def measure_rerun(agent: str, work: Path, runs: int, jobs: int = 16) -> dict:
    data_dir, dataset_note = write_bank_dataset(work / "bank")
    out_dir = work / "rerun"
    run_name = "bank85"
    argv = [
        AGENT_EVAL,
        "run",
        "--agent",
        agent,
        "--model",
        MODELS[agent],
        "--tools",
        "none",
        "--data",
        str(data_dir),
        "--jobs",
        str(jobs),
        "--out-dir",
        str(out_dir),
        "--run-name",
        run_name,
        "--unpriced",
    ]
    home = work / "rerun-home"
    home.mkdir()
    sandboxes = out_dir / run_name / "sandboxes"
    with ServerProcess(work, "rerun", {"turns": [{"final": "<answer>A</answer>"}]}) as server:
        env = scripted_env(agent, server.url, home)
        log(f"  first run: 85 items, --jobs {jobs} (load {loadavg()})")
        first, first_s, first_sampler = run_sampled(argv, env)
        if first.returncode != 0:
            raise RuntimeError(f"first 85-item run failed ({first.returncode}): {first.stderr[-1000:]}")
        records = [
            json.loads(line)
            for path in (out_dir / run_name).glob("*/items.jsonl")
            for line in path.read_text().splitlines()
            if line.strip()
        ]
        n_items = len({r["id"] for r in records})
        statuses = sorted({r["status"] for r in records})
        if n_items != 85 or statuses != ["ok"]:
            raise RuntimeError(f"the first 85-item run recorded {n_items} items with statuses {statuses}")
        requests_before = len(server.requests())
        dirs_before = sorted(p.name for p in sandboxes.iterdir())
        log(f"  re-running it {runs} times (load {loadavg()})")
        times, outputs = [], []
        for _ in range(runs):
            t0 = time.perf_counter()
            again = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
            times.append(time.perf_counter() - t0)
            if again.returncode != 0:
                raise RuntimeError(f"re-run failed ({again.returncode}): {again.stderr[-1000:]}")
            outputs.append(again.stdout)
        child_args = json.dumps(
            {
                "agent": agent,
                "model": MODELS[agent],
                "tools": "none",
                "jobs": jobs,
                "data": str(data_dir),
                "out_dir": str(out_dir),
                "run_name": run_name,
            }
        )
        t0 = time.time()
        profiled = subprocess.run(
            [PYTHON, CHILD, "rerun-profile", child_args], capture_output=True, text=True, env=env, cwd=ROOT, check=True
        )
        t1 = time.time()
        profile = json.loads(profiled.stdout.strip().splitlines()[-1])
        profile.update(wall_s=t1 - t0, startup_s=profile["epoch_start"] - t0, exit_s=t1 - profile["epoch_end"])
        # The same once more under -X importtime: which imports the re-run pays for (lazy ones included).
        imports = subprocess.run(
            [PYTHON, "-X", "importtime", CHILD, "rerun-profile", child_args],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            check=True,
        ).stderr
        lean = median_wall([PYTHON, CHILD, "rerun-lean", child_args], runs, env=env)
        new_requests = len(server.requests()) - requests_before
        new_dirs = sorted(set(p.name for p in sandboxes.iterdir()) - set(dirs_before))
    resumed_line = next((line for line in outputs[-1].splitlines() if "resuming" in line), "")
    return {
        "dataset": dataset_note,
        "first_run_s": first_s,
        "first_run_items": n_items,
        "first_run_statuses": statuses,
        "first_run_agent_eval_hwm_kb": first_sampler.root_hwm_kb,
        "first_run_jobs": jobs,
        "rerun_s": times,
        "rerun_median_s": statistics.median(times),
        "resumed_line": resumed_line.strip(),
        "new_model_requests": new_requests,
        "new_sandbox_dirs": new_dirs,
        "profile": profile,
        "import_tree": import_tree(imports),
        "rerun_lean_s": lean,
        "python_start_s": median_wall([PYTHON, "-c", "pass"], 5),
        "import_cli_s": median_wall([PYTHON, "-c", "import agent_eval.cli"], 3),
        "import_minimal_s": median_wall([PYTHON, "-c", f"import {MINIMAL_RUN_IMPORTS}"], 3),
    }


# ---------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------
def print_report(results: dict) -> None:
    import tool_modes

    overhead, throughput, rerun = results.get("overhead", {}), results.get("throughput", {}), results.get("rerun")
    mode_targets = tool_modes.print_modes(results.get("modes", {}), results.get("throughput_python", {}), throughput)
    if overhead:
        table = Table(title="1. per-item overhead, mode python, 2 model calls (median of rounds)")
        for column in (
            "agent",
            "rounds",
            "bare CLI",
            "agent-eval (bwrap)",
            "added / item",
            "ratio",
            "median per-round ratio",
            "agent-eval --sandbox none (added)",
            "CPU s: bare (rusage) / agent-eval (sampled, ≥)",
        ):
            table.add_column(column, justify="right")
        for agent, r in overhead.items():
            table.add_row(
                agent,
                str(r["rounds"]),
                f"{r['bare_median_s']:.3f} s",
                f"{r['harness_median_s']:.3f} s",
                f"{r['median_added_s'] * 1000:+.0f} ms",
                f"{r['ratio']:.3f}",
                f"{r['median_pair_ratio']:.3f}",
                f"{r['nosandbox_median_s']:.3f} s ({r['nosandbox_added_s'] * 1000:+.0f} ms)",
                f"{r['bare_cpu_median_s']:.2f} / {r['harness_cpu_sampled_s']:.2f}",
            )
        console.print(table)
    if throughput:
        table = Table(
            title=f"2. throughput, mode none, the model waits {DELAY_S:g} s per call; ceiling = "
            f"min(jobs x the jobs-1 rate, cores / bare CLI CPU per item)"
        )
        for column in (
            "agent",
            "jobs",
            "items",
            "wall",
            "items/s",
            "speed-up",
            "efficiency",
            "CPU ceiling",
            "of ceiling",
            "item wall (median)",
            "CPU s / item",
            "runner peak RSS",
            "other load",
        ):
            table.add_column(column, justify="right")
        for agent, t in throughput.items():
            for jobs, row in t["rows"].items():
                cpu = row["harness_cpu_per_item_s"]
                table.add_row(
                    agent,
                    str(jobs),
                    str(row["n"]),
                    f"{row['run_s']:.1f} s",
                    f"{row['items_per_s']:.2f}",
                    f"{row['speedup']:.2f}",
                    f"{row['efficiency']:.0%}",
                    f"{row['ceiling_items_per_s']:.2f}/s",
                    f"{row['of_ceiling']:.0%}",
                    f"{row['item_elapsed_median_s']:.2f} s",
                    f"≥{cpu:.2f}" if cpu is not None else "-",
                    f"{row['vm_hwm_kb'] / 1024:.0f} MiB",
                    f"{row['machine']['other_cores']:.2f} cores",
                )
            bp = t["bare_pool"]
            table.add_row(
                agent,
                "bare 1",
                "1",
                f"{t['bare_wall_s']:.2f} s",
                f"{1 / t['bare_wall_s']:.2f}",
                "",
                "",
                f"{t['cpu_ceiling_items_per_s']:.2f}/s",
                "",
                "",
                f"{t['bare_cpu_per_item_s']:.2f}",
                "",
                "",
            )
            table.add_row(
                agent,
                f"bare {bp['jobs']}",
                str(bp["n"]),
                f"{bp['wall_s']:.1f} s",
                f"{bp['items_per_s']:.2f}",
                f"{bp['items_per_s'] * t['bare_wall_s']:.2f}",
                f"{bp['items_per_s'] * t['bare_wall_s'] / bp['jobs']:.0%}",
                "",
                "",
                "",
                "",
                "",
                f"{bp['machine']['other_cores']:.2f} cores",
                end_section=True,
            )
        console.print(table)
        for agent, t in throughput.items():
            idle = t["idle_cores_per_waiting_agent"]
            console.print(
                f"  {agent}: the bare CLI uses {t['bare_cpu_no_wait_s']:.2f} CPU s per item without a wait, "
                f"{t['bare_cpu_per_item_s']:.2f} with the {DELAY_S:g} s wait, {t['bare_cpu_long_wait_s']:.2f} with "
                f"{IDLE_PROBE_S:g} s: {idle:.3f} cores per agent while it waits, so {idle * max(t['rows']):.2f} "
                f"cores for {max(t['rows'])} waiting agents."
            )
    if throughput or overhead or rerun:
        table = Table(title="3. memory per concurrent agent (peak of each process tree; PSS counts shared pages once)")
        for column in (
            "agent",
            "when",
            "agents seen",
            "agent tree PSS med / max",
            "agent tree RSS med / max",
            "procs / tree",
            "proxy jail PSS",
            "all trees PSS peak",
            "runner VmHWM",
        ):
            table.add_column(column, justify="right")
        for agent, t in throughput.items():
            if t["rows"].get(8, {}).get("memory"):
                m, row = t["rows"][8]["memory"], t["rows"][8]
                table.add_row(
                    agent,
                    "mode none, --jobs 8",
                    f"{m['agent_trees']} (≤{m['peak_concurrent_agents']} at once)",
                    _medmax(m["agent_pss_mib"]),
                    _medmax(m["agent_rss_mib"]),
                    str(m["agent_procs_max"]),
                    _medmax(m["proxy_pss_mib"]),
                    f"{m['peak_total_pss_mib']:.0f} MiB",
                    f"{row['vm_hwm_kb'] / 1024:.0f} MiB",
                )
        for agent, r in overhead.items():
            m = r["python_mode_memory"]
            table.add_row(
                agent,
                "mode python, 1 item",
                str(m["agent_trees"]),
                _medmax(m["agent_pss_mib"]),
                _medmax(m["agent_rss_mib"]),
                str(m["agent_procs_max"]),
                _medmax(m["proxy_pss_mib"]),
                f"{m['peak_total_pss_mib']:.0f} MiB",
                "-",
            )
        console.print(table)
        console.print(
            "  runner VmHWM: the runner process's own peak RSS (perf/_bench_child.py, which imports "
            "only what a run needs)"
            + (
                f"; the real `agent-eval run` process of part 4 (85 items, --jobs "
                f"{rerun['first_run_jobs']}, {results.get('rerun_agent')}): "
                f"{rerun['first_run_agent_eval_hwm_kb'] / 1024:.0f} MiB"
                if rerun
                else ""
            )
            + "."
        )
    if rerun:
        table = Table(
            title=f"4. re-run of a finished 85-item run: {rerun['rerun_median_s']:.2f} s median "
            f"(interpreter alone {rerun['python_start_s'] * 1000:.0f} ms)"
        )
        table.add_column("step (in-process, one re-run)")
        table.add_column("time", justify="right")
        profile = rerun["profile"]
        table.add_row(
            "interpreter start-up (spawn to the script's first line)", f"{profile['startup_s'] * 1000:.0f} ms"
        )
        for name, seconds in profile["steps"]:
            table.add_row(name, f"{seconds * 1000:.0f} ms")
        table.add_row(
            "interpreter exit (the script's last line to the process reaped)", f"{profile['exit_s'] * 1000:.0f} ms"
        )
        table.add_row("[dim]total of this profiled re-run (whole process)[/]", f"{profile['wall_s'] * 1000:.0f} ms")
        table.add_row(
            "[dim]python -c 'import agent_eval.cli' (whole process)[/]", f"{rerun['import_cli_s'] * 1000:.0f} ms"
        )
        table.add_row(
            f"[dim]python -c 'import {MINIMAL_RUN_IMPORTS}' (what `run` needs)[/]",
            f"{rerun['import_minimal_s'] * 1000:.0f} ms",
        )
        console.print(
            f"  {rerun['dataset']}; first run: {rerun['first_run_items']} items, --jobs {rerun['first_run_jobs']}, "
            f"{rerun['first_run_s']:.0f} s, all ok. Re-run: {rerun['resumed_line']!r}, "
            f"{rerun['new_model_requests']} model requests, {len(rerun['new_sandbox_dirs'])} new sandbox dirs."
        )
        for depth, name, ms in rerun["import_tree"]:
            table.add_row(f"[dim]  importtime: {'  ' * depth}{name}[/]", f"{ms:.0f} ms")
        table.add_row(
            "[bold]the same re-run, whole process, importing only what it needs[/] "
            "(perf/_bench_child.py rerun-lean: a lower bound)",
            f"{rerun['rerun_lean_s'] * 1000:.0f} ms",
        )
        console.print(table)

    phases = [(f"1. overhead, {a}", r.get("cpu")) for a, r in overhead.items()]
    phases += [(f"2-3. throughput, {a}", t.get("cpu")) for a, t in throughput.items()]
    phases += [("4. re-run", rerun.get("cpu"))] if rerun else []
    if any(cpu for _, cpu in phases):
        table = Table(title=f"machine load during each phase ({results['machine']['nproc']} cores)")
        for column in ("phase", "wall", "CPU used by the benchmark", "CPU used by everything else"):
            table.add_column(column, justify="right" if column != "phase" else "left")
        for name, cpu in phases:
            if cpu:
                table.add_row(
                    name, f"{cpu['wall_s']:.0f} s", f"{cpu['own_cores']:.2f} cores", f"{cpu['other_cores']:.2f} cores"
                )
        console.print(table)

    table = Table(title="Targets")
    for column in ("measure", "target", "measured", ""):
        table.add_column(column, justify="right" if column in ("target", "measured") else "left")
    for row in mode_targets:
        table.add_row(*row)
    for agent, r in overhead.items():
        table.add_row(
            f"overhead per item, {agent}, python, bwrap",
            f"≤ {OVERHEAD_TARGET:.2f}x",
            f"{r['ratio']:.3f}x ({r['median_added_s'] * 1000:+.0f} ms)",
            verdict(r["ratio"] <= OVERHEAD_TARGET),
        )
    for agent, t in throughput.items():
        top = max(t["rows"])
        eff = t["rows"][top]["efficiency"]
        table.add_row(
            f"parallel efficiency at --jobs {top}, {agent}",
            f"≥ {EFFICIENCY_TARGET:.0%}",
            f"{eff:.0%} (speed-up {t['rows'][top]['speedup']:.1f})",
            verdict(eff >= EFFICIENCY_TARGET),
        )
        table.add_row(
            f"  same, against the CPU ceiling ({t['nproc']} cores / {t['bare_cpu_per_item_s']:.2f} CPU s "
            f"per bare CLI item = {t['cpu_ceiling_items_per_s']:.1f} items/s)",
            "report",
            f"{t['rows'][top]['of_ceiling']:.0%}",
            "",
        )
        bp = t["bare_pool"]
        table.add_row(
            f"  bare CLIs, {bp['jobs']} at a time, no harness: efficiency / agent-eval's items/s over theirs",
            "report",
            f"{bp['items_per_s'] * t['bare_wall_s'] / bp['jobs']:.0%} / "
            f"{t['rows'][top]['items_per_s'] / bp['items_per_s']:.0%}",
            "",
        )
        if 8 in t["rows"]:
            m = t["rows"][8]["memory"]
            table.add_row(
                f"memory per agent, {agent}, --jobs 8 (PSS, max)",
                "report",
                f"{m['agent_pss_mib']['max']:.0f} MiB" if m["agent_pss_mib"] else "-",
                "",
            )
            table.add_row(
                f"runner peak RSS, {agent}, --jobs 8 (importing only what a run needs)",
                "report",
                f"{t['rows'][8]['vm_hwm_kb'] / 1024:.0f} MiB",
                "",
            )
    if rerun:
        no_agent = rerun["new_model_requests"] == 0 and not rerun["new_sandbox_dirs"]
        table.add_row(
            f"`agent-eval run` process peak RSS, {results.get('rerun_agent')}, 85 items, "
            f"--jobs {rerun['first_run_jobs']}",
            "report",
            f"{rerun['first_run_agent_eval_hwm_kb'] / 1024:.0f} MiB",
            "",
        )
        table.add_row(
            "re-run of a finished 85-item run: no agent started",
            "0 requests, 0 sandboxes",
            f"{rerun['new_model_requests']} requests, {len(rerun['new_sandbox_dirs'])} sandboxes",
            verdict(no_agent),
        )
        table.add_row(
            "re-run of a finished 85-item run: wall",
            f"< {RERUN_TARGET_S:.1f} s",
            f"{rerun['rerun_median_s']:.2f} s",
            verdict(rerun["rerun_median_s"] < RERUN_TARGET_S),
        )
        table.add_row(
            "  same, importing only what a run needs (lower bound)", "report", f"{rerun['rerun_lean_s']:.2f} s", ""
        )
    console.print(table)


def _medmax(stats: dict | None) -> str:
    return f"{stats['median']:.0f} / {stats['max']:.0f} MiB" if stats else "-"


# ---------------------------------------------------------------------------------------------
def leftovers(marker: str) -> list[int]:
    """Processes still mentioning our scratch dir (there should be none)."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        if int(name) != os.getpid() and marker in cmdline(int(name)):
            found.append(int(name))
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="Fewer rounds and items (about 3 minutes).")
    ap.add_argument("--agents", default="claude-code,codex", help="Comma-separated agents for parts 1-3.")
    ap.add_argument(
        "--parts",
        default="overhead,throughput,rerun,modes",
        help="Comma-separated: overhead, throughput, rerun, modes (part 5 and 2b, mode python).",
    )
    ap.add_argument("--rounds", type=int, default=None, help="Overhead rounds per agent (default 15, quick 4).")
    ap.add_argument("--rerun-agent", default="claude-code", help="Agent for the 85-item run and its re-run.")
    ap.add_argument("--json", type=Path, default=None, help="Also write every figure to this JSON file.")
    ap.add_argument("--keep", action="store_true", help="Keep the scratch dir (results, transcripts, request logs).")
    args = ap.parse_args()
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    parts = {p.strip() for p in args.parts.split(",")}
    rounds = args.rounds or (4 if args.quick else 15)
    sizes = {1: 2, 8: 8, 32: 32} if args.quick else {1: 4, 8: 24, 32: 64}

    work = Path(tempfile.mkdtemp(prefix="agent-eval-bench-"))
    results: dict = {"machine": machine_info(), "quick": args.quick, "command": " ".join(sys.argv)}
    m = results["machine"]
    console.print(
        f"[bold]agent-eval benchmark[/] {'(quick) ' if args.quick else ''}in {work}\n"
        f"{m['nproc']} cores ({m['cpu_model']}), {m['memory_gib']} GiB, kernel {m['kernel']}, "
        f"Python {m['python']}, {m['claude']}, {m['codex']}, {m['bwrap']}, load {m['loadavg_at_start']}"
    )
    started = time.perf_counter()
    try:
        from agent_eval.benchmarks.activevision.samples import write_sample_set

        need = max(sizes.values()) if parts & {"throughput", "modes"} else 1
        data_dir = work / "samples"
        write_sample_set(data_dir, seed=0, per_task=-(-need // 6))
        if "overhead" in parts:
            results["overhead"] = {}
            for agent in agents:
                log(
                    f"1. overhead: {agent}, {rounds} rounds + 1 warm-up of bare CLI, agent-eval and agent-eval "
                    f"--sandbox none in turn (load {loadavg()})"
                )
                with CpuMeter() as meter:
                    results["overhead"][agent] = measure_overhead(agent, data_dir, work / f"overhead-{agent}", rounds)
                results["overhead"][agent]["cpu"] = meter.describe()
        if "throughput" in parts:
            results["throughput"] = {}
            for agent in agents:
                log(f"2-3. throughput and memory: {agent}, --jobs {', '.join(map(str, sizes))}")
                with CpuMeter() as meter:
                    results["throughput"][agent] = measure_throughput(
                        agent, data_dir, work / f"tp-{agent}", sizes, bare_runs=2 if args.quick else 3
                    )
                results["throughput"][agent]["cpu"] = meter.describe()
        if "modes" in parts:
            import tool_modes

            results["throughput_python"] = {}
            for agent in agents:
                log(f"2b. throughput in mode python: {agent}, --jobs {', '.join(map(str, sizes))}")
                results["throughput_python"][agent] = tool_modes.measure_python_throughput(
                    agent, data_dir, work / f"tp-python-{agent}", sizes
                )
            results["modes"] = {}
            for agent in agents:
                log(
                    f"5. tool modes: {agent}, runs of {' and '.join(map(str, tool_modes.SIZES))} items in modes "
                    f"{', '.join(tool_modes.MODES)}, {2 if args.quick else 4} rounds (load {loadavg()})"
                )
                results["modes"][agent] = tool_modes.measure_modes(
                    agent,
                    data_dir,
                    work / f"modes-{agent}",
                    rounds=2 if args.quick else 4,
                    bare_runs=3 if args.quick else 5,
                )
        if "rerun" in parts:
            log(f"4. re-run of a finished 85-item run ({args.rerun_agent})")
            results["rerun_agent"] = args.rerun_agent
            with CpuMeter() as meter:
                results["rerun"] = measure_rerun(args.rerun_agent, work / "rerun", runs=3 if args.quick else 5)
            results["rerun"]["cpu"] = meter.describe()
    finally:
        stray = leftovers(str(work))
        if stray:
            console.print(f"[bold red]processes left running (killed): {stray}[/]")
            for pid in stray:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        results["leftover_processes"] = stray
        results["total_s"] = time.perf_counter() - started
        results["loadavg_at_end"] = loadavg()
        if args.json:
            args.json.write_text(json.dumps(results, indent=1, default=str))
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print_report(results)
    console.print(
        f"total {results['total_s'] / 60:.1f} min, load at end {results['loadavg_at_end']}"
        + (f"; kept {work}" if args.keep else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
