"""Part 5 of run_bench.py: what a tool mode costs per item and per run (`--parts modes`), and the
throughput at --jobs 1/8/32 in mode python.

Per item and fixed start-up, as issue 16 measured them: the scripted model answers in one call, a
Runner (its own process, perf/_bench_child.py) runs 3 and then 12 items at --jobs 1 in each
mode; the slope between the two sizes is the cost of one more item, the intercept the fixed
start-up of a run (Runner construction and run: the interpreter and the harness's own imports are
not in it, being the same in every mode and measured in part 4). The sizes and modes alternate
their order over the rounds; the median slope and intercept are kept. The reference is the bare
CLI answering the same one-call episode with no tools (mode none, image inline), run directly,
on the very items the slope is made of (their images differ in size); its episodes are interleaved
with the runs, in every round, so that both see the same load. Beside it, the bare CLI offered
each mode's tools (the image tools served as the harness serves them, the CLI's own CPU): what the
CLI itself spends on having tools, which no harness can remove; each mode's ratio against it is
what the harness itself adds.

Run alone (part 5 only, both CLIs side by side in one run, several repeats of each measure):

    .venv/bin/python perf/tool_modes.py [--agents claude-code,codex] [--rounds 4] [--bare-runs 5] [--json OUT]

CPU is counted exactly where the machine allows it: each Runner process starts inside its own
cpuacct cgroup, which holds its sandboxes too (bwrap's pid namespace hides them from getrusage).
Without a writable cgroup the sandboxes' CPU is sampled from /proc (a lower bound, marked ≥).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_kit import (
    CHILD,
    DELAY_S,
    MODELS,
    PYTHON,
    ROOT,
    ServerProcess,
    TreeSampler,
    bare_episode,
    console,
    loadavg,
    log,
    machine_info,
    scripted_env,
    verdict,
)
from rich.table import Table

MODES = ("none", "image", "python")
SIZES = (3, 12)
WALL_TARGET = 1.15  # per extra item, every mode against the bare CLI with no tools
CPU_TARGET = 1.20
STARTUP_TARGET_S = 0.5
ONE_CALL = {"turns": [{"final": "<answer>A</answer>"}]}
CGROUP_ROOTS = (Path("/sys/fs/cgroup/cpuacct"), Path("/sys/fs/cgroup/cpu,cpuacct"))


class CpuCgroup:
    """A cpuacct cgroup (v1) that a child joins before it execs: its CPU and all its descendants'."""

    def __init__(self, name: str):
        self.path = None
        for root in CGROUP_ROOTS:
            if (root / "cpuacct.usage").is_file():
                try:
                    (root / name).mkdir(exist_ok=True)
                    self.path = root / name
                    break
                except OSError:
                    continue

    def join(self) -> None:  # preexec_fn: runs in the child, before exec
        (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def usage_s(self) -> float:
        return int((self.path / "cpuacct.usage").read_text()) / 1e9

    def remove(self) -> None:
        if self.path is not None:
            try:
                self.path.rmdir()
            except OSError:
                pass


def run_counted(mode: str, args: dict, name: str) -> tuple[dict, float, bool]:
    """One _bench_child run: its result, its CPU (the whole process tree) and whether that is exact."""
    group = CpuCgroup(name)
    exact = group.path is not None
    before = group.usage_s() if exact else 0.0
    proc = subprocess.Popen(
        [PYTHON, CHILD, mode, json.dumps(args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        preexec_fn=group.join if exact else None,
    )
    sampler = None if exact else TreeSampler(proc.pid, interval=0.05, pss=False)
    if sampler:
        sampler.start()
    out, err = proc.communicate()
    if sampler:
        sampler.stop()
    try:
        if proc.returncode != 0:
            raise RuntimeError(f"child {mode} failed with exit {proc.returncode}: {err[-2000:]}")
        result = json.loads(out.strip().splitlines()[-1])
        cpu = group.usage_s() - before if exact else result["cpu_self_s"] + result["cpu_children_s"] + sampler.cpu_s
    finally:
        group.remove()
    return result, cpu, exact


def failures(run_dir: Path) -> list[str]:
    """What went wrong in a run's records that are not ok (for the error message: the scratch dir goes)."""
    out = []
    for path in run_dir.glob("*/items.jsonl"):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if record.get("status") != "ok":
                out.append(f"{record.get('id')}: {record.get('status')}: {str(record.get('error'))[:600]}")
    return out[:5]


def fit(points: dict[int, float]) -> tuple[float, float]:
    """(slope, intercept) through the two run sizes."""
    small, large = sorted(points)
    slope = (points[large] - points[small]) / (large - small)
    return slope, points[small] - small * slope


def measure_modes(agent: str, data_dir: Path, work: Path, rounds: int, bare_runs: int) -> dict:
    """Runs of each size in each mode, and bare CLI episodes (no tools; and with the image tools served
    as the harness serves them, to show what the CLI itself spends on offering tools), interleaved in
    every round so that all see the same machine load."""
    from agent_eval.agents import get_agent
    from agent_eval.benchmarks import load_benchmark
    from agent_eval.benchmarks.activevision.benchmark import IMAGE_TOOLS_MODULE
    from agent_eval.datamodel.prompts import load_template
    from agent_eval.engine.selection import select
    from agent_eval.tools.mcp_http import load_sdk_module

    benchmark, dataset = load_benchmark(data_dir)
    load_sdk_module(IMAGE_TOOLS_MODULE)  # the bare CLI's image tools are served from here: SDK loaded beforehand
    with ServerProcess(work, f"modes-{agent}", ONE_CALL) as server:
        auth = get_agent(agent).find_auth(scripted_env(agent, server.url, work / "nohome"))
        templates = {mode: load_template(mode, benchmark.prompts_dir()).text for mode in MODES}
        bare: dict[str, list[tuple[float, float]]] = {mode: [] for mode in MODES}

        # The reference answers the items the slope is made of (the runs' 4th to 12th, in the runs' order), in turn
        # over the rounds: the sample set's images differ in size (7-112 KB), and a mode-none episode sends its own.
        measured = select(dataset)[SIZES[0] : SIZES[1]]

        def bare_batch(mode: str, r: int) -> None:
            for k in range(bare_runs):
                item = measured[(r * bare_runs + k) % len(measured)]
                wall, cpu, _ = bare_episode(
                    agent, benchmark, item, mode, templates[mode], auth, work / "bare" / f"{mode}-{r}-{k}"
                )
                bare[mode].append((wall, cpu))

        runs: dict[str, dict[int, list]] = {mode: {n: [] for n in SIZES} for mode in MODES}
        exact = True
        bare_batch("none", -1)  # warm-up, dropped
        bare["none"].clear()
        for r in range(rounds):
            order = [("bare", mode) for mode in bare] + [(mode, n) for n in SIZES for mode in MODES]
            order = order[r % len(order) :] + order[: r % len(order)]
            for mode, n in order:
                if mode == "bare":
                    bare_batch(n, r)
                    continue
                result, cpu, exact_here = run_counted(
                    "run",
                    {
                        "agent": agent,
                        "model": MODELS[agent],
                        "tools": mode,
                        "jobs": 1,
                        "n": n,
                        "data": str(data_dir),
                        "out_dir": str(work / "runs"),
                        "run_name": f"{agent}-{mode}-{n}-{r}",
                        "url": server.url,
                    },
                    f"agent-eval-bench-{os.getpid()}-{agent}-{mode}-{n}-{r}",
                )
                if result["statuses"] != {"ok": n}:
                    raise RuntimeError(
                        f"{agent} mode {mode}, {n} items: statuses {result['statuses']}; "
                        f"errors: {failures(work / 'runs' / f'{agent}-{mode}-{n}-{r}')}"
                    )
                exact &= exact_here
                runs[mode][n].append({"wall_s": result["init_s"] + result["run_s"], "cpu_s": cpu})
        outcomes = server.main_outcomes()
    if set(outcomes) != {"final"}:
        raise RuntimeError(f"{agent}: the scripted server saw unexpected requests: {sorted(set(outcomes))}")
    rows = {}
    for mode, by_size in runs.items():
        walls = [fit({n: by_size[n][r]["wall_s"] for n in SIZES}) for r in range(rounds)]
        cpus = [fit({n: by_size[n][r]["cpu_s"] for n in SIZES}) for r in range(rounds)]
        rows[mode] = {
            "item_wall_s": statistics.median(s for s, _ in walls),
            "startup_s": statistics.median(i for _, i in walls),
            "item_cpu_s": statistics.median(s for s, _ in cpus),
            "startup_cpu_s": statistics.median(i for _, i in cpus),
            "runs": by_size,
        }
    bare_wall = statistics.median(w for w, _ in bare["none"])
    bare_cpu = statistics.median(c for _, c in bare["none"])
    same_tools = {
        mode: (statistics.median(w for w, _ in bare[mode]), statistics.median(c for _, c in bare[mode]))
        for mode in MODES
    }
    for mode, row in rows.items():
        row["wall_ratio"], row["cpu_ratio"] = row["item_wall_s"] / bare_wall, row["item_cpu_s"] / bare_cpu
        # What the harness itself adds: against the bare CLI offered the same tools (its own cost of them included).
        row["bare_same_wall_s"], row["bare_same_cpu_s"] = same_tools[mode]
        row["wall_ratio_same"] = row["item_wall_s"] / same_tools[mode][0]
        row["cpu_ratio_same"] = row["item_cpu_s"] / same_tools[mode][1]
    return {
        "rows": rows,
        "bare_wall_s": bare_wall,
        "bare_cpu_s": bare_cpu,
        "rounds": rounds,
        "cpu_exact": exact,
        "bare_image_wall_s": same_tools["image"][0],
        "bare_image_cli_cpu_s": same_tools["image"][1],
        "bare_python_wall_s": same_tools["python"][0],
        "bare_python_cli_cpu_s": same_tools["python"][1],
        "bare_runs": bare_runs,
        "model_requests": len(outcomes),
    }


def measure_python_throughput(agent: str, data_dir: Path, work: Path, sizes: dict[int, int]) -> dict:
    """Part 2's runs (the model waiting DELAY_S per call) in mode python: the tools offered, not called."""
    rows = {}
    with ServerProcess(work, f"tp-python-{agent}", ONE_CALL, delay=DELAY_S) as server:
        for jobs, n in sizes.items():
            log(f"  {agent}: mode python, --jobs {jobs}, {n} items (load {loadavg()})")
            t0 = time.perf_counter()
            result, cpu, exact = run_counted(
                "run",
                {
                    "agent": agent,
                    "model": MODELS[agent],
                    "tools": "python",
                    "jobs": jobs,
                    "n": n,
                    "data": str(data_dir),
                    "out_dir": str(work / "runs"),
                    "run_name": f"{agent}-python-j{jobs}",
                    "url": server.url,
                },
                f"agent-eval-bench-{os.getpid()}-{agent}-tp-{jobs}",
            )
            if result["statuses"] != {"ok": n}:
                raise RuntimeError(
                    f"{agent} mode python, jobs {jobs}: statuses {result['statuses']}; "
                    f"errors: {failures(work / 'runs' / f'{agent}-python-j{jobs}')}"
                )
            rows[jobs] = {
                "n": n,
                "run_s": result["run_s"],
                "child_wall_s": time.perf_counter() - t0,
                "items_per_s": n / result["run_s"],
                "cpu_per_item_s": cpu / n,
                "cpu_exact": exact,
                "item_elapsed_median_s": statistics.median(result["item_elapsed_s"]),
                "vm_hwm_kb": result["vm_hwm_kb"],
            }
    rate1 = rows[min(rows)]["items_per_s"]
    for jobs, row in rows.items():
        row["speedup"] = row["items_per_s"] / rate1
        row["efficiency"] = row["speedup"] / jobs
    return {"rows": rows}


def print_modes(modes: dict, python_tp: dict, throughput_none: dict) -> list[tuple]:
    """The tables; returns the target rows (measure, target, measured, verdict) for the summary."""
    targets = []
    if modes:
        table = Table(
            title=f"5. cost of a tool mode: runs of {SIZES[0]} and {SIZES[1]} items at --jobs 1, the model "
            f"answering in one call; slope = one more item, intercept = fixed start-up of a run"
        )
        for column in (
            "agent",
            "mode",
            "per item",
            "x bare",
            "CPU s / item",
            "x bare CPU",
            "x bare with the same tools (wall / CPU)",
            "start-up per run",
            "start-up CPU",
        ):
            table.add_column(column, justify="right")
        for agent, m in modes.items():
            mark = "" if m["cpu_exact"] else "≥"
            table.add_row(
                agent,
                "bare CLI, no tools",
                f"{m['bare_wall_s']:.3f} s",
                "1.00",
                f"{m['bare_cpu_s']:.2f}",
                "1.00",
                "",
                "",
                "",
            )
            for tools in ("image", "python"):
                wall, cpu = m[f"bare_{tools}_wall_s"], m[f"bare_{tools}_cli_cpu_s"]
                table.add_row(
                    agent,
                    f"[dim]bare CLI + {tools}-mode tools (its own CPU)[/]",
                    f"{wall:.3f} s",
                    f"{wall / m['bare_wall_s']:.2f}",
                    f"{cpu:.2f}",
                    f"{cpu / m['bare_cpu_s']:.2f}",
                    "",
                    "",
                    "",
                )
            for mode, row in m["rows"].items():
                table.add_row(
                    agent,
                    mode,
                    f"{row['item_wall_s']:.3f} s",
                    f"{row['wall_ratio']:.2f}",
                    f"{mark}{row['item_cpu_s']:.2f}",
                    f"{row['cpu_ratio']:.2f}",
                    f"{row['wall_ratio_same']:.2f} / {row['cpu_ratio_same']:.2f}",
                    f"{row['startup_s']:.2f} s",
                    f"{mark}{row['startup_cpu_s']:.2f}",
                    end_section=mode == MODES[-1],
                )
                targets.append(
                    (
                        f"{agent}, mode {mode}: wall per extra item / bare CLI",
                        f"≤ {WALL_TARGET:.2f}x",
                        f"{row['wall_ratio']:.2f}x",
                        verdict(row["wall_ratio"] <= WALL_TARGET),
                    )
                )
                targets.append(
                    (
                        f"{agent}, mode {mode}: CPU per extra item / bare CLI",
                        f"≤ {CPU_TARGET:.2f}x",
                        f"{row['cpu_ratio']:.2f}x",
                        verdict(row["cpu_ratio"] <= CPU_TARGET),
                    )
                )
                targets.append(
                    (
                        f"{agent}, mode {mode}: fixed start-up of a run",
                        f"< {STARTUP_TARGET_S:.1f} s",
                        f"{row['startup_s']:.2f} s",
                        verdict(row["startup_s"] < STARTUP_TARGET_S),
                    )
                )
        console.print(table)
        console.print(
            "  CPU: "
            + (
                "exact (each Runner process and its sandboxes in a cpuacct cgroup)"
                if all(m["cpu_exact"] for m in modes.values())
                else "≥: the sandboxes' CPU sampled from /proc (no writable cgroup here)"
            )
            + f"; medians of {next(iter(modes.values()))['rounds']} rounds."
        )
    if python_tp:
        table = Table(
            title=f"5b. throughput in mode python (tools offered, not called), the model waits {DELAY_S:g} s "
            f"per call; mode none from part 2 beside it"
        )
        for column in (
            "agent",
            "jobs",
            "items",
            "items/s python",
            "speed-up",
            "efficiency",
            "item wall (median)",
            "CPU s / item",
            "runner peak RSS",
            "items/s none",
            "python / none",
        ):
            table.add_column(column, justify="right")
        for agent, t in python_tp.items():
            for jobs, row in t["rows"].items():
                none_row = throughput_none.get(agent, {}).get("rows", {}).get(jobs)
                table.add_row(
                    agent,
                    str(jobs),
                    str(row["n"]),
                    f"{row['items_per_s']:.2f}",
                    f"{row['speedup']:.2f}",
                    f"{row['efficiency']:.0%}",
                    f"{row['item_elapsed_median_s']:.2f} s",
                    f"{'' if row['cpu_exact'] else '≥'}{row['cpu_per_item_s']:.2f}",
                    f"{row['vm_hwm_kb'] / 1024:.0f} MiB",
                    f"{none_row['items_per_s']:.2f}" if none_row else "-",
                    f"{row['items_per_s'] / none_row['items_per_s']:.2f}" if none_row else "-",
                    end_section=jobs == max(t["rows"]),
                )
        console.print(table)
    return targets


def main() -> int:
    ap = argparse.ArgumentParser(description="Part 5 of run_bench.py alone: what a tool mode costs per item.")
    ap.add_argument(
        "--agents", default="claude-code,codex", help="Comma-separated agents, measured one after the other."
    )
    # 8: the tool modes sit within 0.02-0.04 of their targets, and 4-6 rounds moved 0.02-0.06 from run to run.
    ap.add_argument("--rounds", type=int, default=8, help="Rounds of runs of each size in each mode (median kept).")
    ap.add_argument("--bare-runs", type=int, default=5, help="Bare CLI episodes per mode in each round.")
    ap.add_argument("--json", type=Path, default=None, help="Also write every figure to this JSON file.")
    ap.add_argument("--keep", action="store_true", help="Keep the scratch dir (runs, transcripts, request logs).")
    args = ap.parse_args()
    from agent_eval.benchmarks.activevision.samples import write_sample_set

    work = Path(tempfile.mkdtemp(prefix="agent-eval-modes-"))
    m = machine_info()
    console.print(
        f"[bold]tool modes[/] in {work}: {m['nproc']} cores, {m['claude']}, {m['codex']}, load {m['loadavg_at_start']}"
    )
    try:
        data_dir = work / "samples"
        write_sample_set(data_dir, seed=0, per_task=-(-max(SIZES) // 6))
        modes = {}
        for agent in [a.strip() for a in args.agents.split(",") if a.strip()]:
            log(f"5. tool modes: {agent}, {args.rounds} rounds (load {loadavg()})")
            modes[agent] = measure_modes(agent, data_dir, work / f"modes-{agent}", args.rounds, args.bare_runs)
        targets = print_modes(modes, {}, {})
        table = Table(title="Targets")
        for column in ("measure", "target", "measured", ""):
            table.add_column(column, justify="right" if column in ("target", "measured") else "left")
        for row in targets:
            table.add_row(*row)
        console.print(table)
        if args.json:
            args.json.write_text(json.dumps({"machine": m, "modes": modes}, indent=1, default=str))
        log(f"done (load {loadavg()})")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
