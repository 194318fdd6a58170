"""Where the harness's own time per item goes in a tool mode, beside mode none (issue 40, docs/performance.md 6d).

Runs a Runner over N items at --jobs 1 in each mode named, each in its own process (like tool_modes.py), with
clocks around the steps of an attempt (wall per step, summed over the run and divided by N), the MCP host's
requests (count, and the host's time per request), and the CPU of each of the harness's threads (/proc). Its
sandboxes' and CLIs' CPU is counted apart through a cpuacct cgroup where one is writable (tool_modes.py).

    .venv/bin/python perf/tool_modes_profile.py --agent codex --modes none,image --n 8 [--rounds 2] [--yappi]

--yappi adds the MCP host thread's heaviest functions by CPU (needs `pip install yappi`; its overhead inflates
the CPU figures, so read those runs for where, not how much)."""

from __future__ import annotations

import argparse
import contextlib
import functools
import inspect
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

from bench_kit import MODELS, PYTHON, ROOT, ServerProcess, loadavg, log

HERE = Path(__file__).resolve()
ONE_CALL = {"turns": [{"final": "<answer>A</answer>"}]}
CLK_TCK = os.sysconf("SC_CLK_TCK")

STEPS: dict[str, list[float]] = defaultdict(list)
_steps_lock = threading.Lock()


def _add(name: str, seconds: float) -> None:
    with _steps_lock:
        STEPS[name].append(seconds)


def timed(name: str, fn):
    @functools.wraps(fn)
    def wrapper(*a, **k):
        t0 = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            _add(name, time.perf_counter() - t0)

    return wrapper


def timed_async(name: str, fn):
    @functools.wraps(fn)
    async def wrapper(*a, **k):
        t0 = time.perf_counter()
        try:
            return await fn(*a, **k)
        finally:
            _add(name, time.perf_counter() - t0)

    return wrapper


def timed_cm(name: str, fn):
    """A context-manager factory whose entry and exit are timed apart."""

    @functools.wraps(fn)
    @contextlib.contextmanager
    def wrapper(*a, **k):
        t0 = time.perf_counter()
        cm = fn(*a, **k)
        value = cm.__enter__()
        _add(name + " (enter)", time.perf_counter() - t0)
        try:
            yield value
        except BaseException:
            t1 = time.perf_counter()
            if not cm.__exit__(*sys.exc_info()):
                raise
            _add(name + " (exit)", time.perf_counter() - t1)
        else:
            t1 = time.perf_counter()
            cm.__exit__(None, None, None)
            _add(name + " (exit)", time.perf_counter() - t1)

    return wrapper


def instrument() -> None:
    from agent_eval.agents import get_agent
    from agent_eval.benchmarks.activevision.benchmark import ActiveVision
    from agent_eval.engine import attempt, sandbox, session_watch
    from agent_eval.engine.gateway import server as gateway_server
    from agent_eval.tools import mcp_http

    for name in ("parse_item", "record_item", "grade_item", "start_session"):
        setattr(attempt, name, timed(name, getattr(attempt, name)))
    process = attempt.run_process

    def run_process(*a, **k):
        T_PROCESS[0] = t0 = time.perf_counter()
        try:
            return process(*a, **k)
        finally:
            _add("run_process", time.perf_counter() - t0)
            mark("process ended")

    attempt.run_process = run_process
    forward = gateway_server.Gateway._forward

    async def timed_forward(self, request):
        mark(f"gateway: {request.method} {request.path} arrives")
        return await forward(self, request)

    gateway_server.Gateway._forward = timed_forward
    attempt.watched_session = timed_cm("watched_session (surface gate)", attempt.watched_session)
    session_watch.surface_gate = timed_cm("surface_gate", session_watch.surface_gate)
    attempt.Attempt.run = timed("Attempt.run (whole item)", attempt.Attempt.run)
    sandbox.Sandbox.__enter__ = timed("Sandbox enter", sandbox.Sandbox.__enter__)
    sandbox.Sandbox.__exit__ = timed("Sandbox exit", sandbox.Sandbox.__exit__)
    sandbox.Sandbox.__init__ = timed("Sandbox init", sandbox.Sandbox.__init__)
    sandbox.Sandbox.refused_requests = timed("Sandbox.refused_requests", sandbox.Sandbox.refused_requests)
    ActiveVision.setup = timed_cm("benchmark.setup", ActiveVision.setup)
    agent_cls = type(get_agent(ARGS["agent"]))
    for name in ("prune", "prepare", "copy_credentials"):
        wrapped = timed(f"agent.{name}", getattr(agent_cls, name))
        static = isinstance(inspect.getattr_static(agent_cls, name), staticmethod)
        setattr(agent_cls, name, staticmethod(wrapped) if static else wrapped)
    dispatch = mcp_http.McpHost._dispatch

    async def timed_dispatch(self, scope, receive, send):  # uvicorn reads this signature (not a factory)
        t0 = time.perf_counter()
        seen = {"what": scope.get("method", "?")}

        async def peeking_receive():
            message = await receive()
            body = message.get("body") or b""
            if body and seen["what"] == "POST":
                with contextlib.suppress(ValueError, AttributeError):
                    seen["what"] = "POST " + str(json.loads(body).get("method"))
            return message

        arrived = t0 - T_PROCESS[0]
        try:
            return await dispatch(self, scope, peeking_receive, send)
        finally:
            _add("MCP host: one request (host side)", time.perf_counter() - t0)
            _add(f"MCP host: {seen['what']}", time.perf_counter() - t0)
            _add(f"@ MCP {seen['what']} arrives", arrived)

    mcp_http.McpHost._dispatch = timed_dispatch
    original_serve = mcp_http.Mount._serve

    async def serve(self):
        build = self._build

        def timed_build():
            t0 = time.perf_counter()
            try:
                return build()
            finally:
                _add("MCP mount: build_server", time.perf_counter() - t0)

        self._build = timed_build
        return await original_serve(self)

    mcp_http.Mount._serve = serve
    mcp_http.Mount.app = timed_async("MCP mount: app() (first builds)", mcp_http.Mount.app)


def thread_cpu() -> dict[int, tuple[str, float]]:
    names = {t.native_id: t.name for t in threading.enumerate()}
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            fields = open(f"/proc/self/task/{tid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(tid)] = (names.get(int(tid), f"tid {tid}"), (int(fields[11]) + int(fields[12])) / CLK_TCK)
    return out


ARGS: dict = {}
T_PROCESS = [0.0]  # when the current item's CLI process started (--jobs 1: one at a time)


def mark(what: str) -> None:
    """A moment of the item's session, as ms after its CLI process started ("@" rows: a median, not a sum)."""
    _add("@ " + what, time.perf_counter() - T_PROCESS[0])


def child(args: dict) -> dict:
    ARGS.update(args)
    sys.path.insert(0, str(HERE.parent))
    import _bench_child

    instrument()
    profiler = None
    # A first run of one item takes the once-per-process costs (the SDK's import, the MCP host's start, the
    # model catalog): what is left is per item, as tool_modes.py's slope between two run sizes.
    _bench_child.run({**args, "n": 1, "run_name": args["run_name"] + "-warm"})
    STEPS.clear()
    if args.get("yappi"):
        import yappi

        yappi.set_clock_type("cpu")
        yappi.start(builtins=False, profile_threads=True)
    usage = Path(args["cgroup"]) / "cpuacct.usage" if args.get("cgroup") else None
    tree_before = int(usage.read_text()) / 1e9 if usage else 0.0
    before = thread_cpu()
    result = _bench_child.run(args)
    after = thread_cpu()
    result["tree_cpu_s"] = int(usage.read_text()) / 1e9 - tree_before if usage else None
    if args.get("yappi"):
        import yappi

        yappi.stop()
        profiler = []
        idents = {t.ident for t in threading.enumerate() if t.name.startswith("mcp-host")}
        host = [t for t in yappi.get_thread_stats() if t.tid in idents]
        for t in host:
            stats = yappi.get_func_stats(ctx_id=t.id)
            stats.sort("tsub", "desc")
            profiler += [(f"{s.module}:{s.lineno} {s.name}", s.ncall, s.tsub, s.ttot) for s in stats[:25]]
    threads: dict[str, float] = defaultdict(float)
    for tid, (name, cpu) in after.items():
        threads[_kind(name)] += cpu - before.get(tid, (name, 0.0))[1]
    threads["(threads that ended)"] = result["run_cpu_self_s"] - sum(threads.values())
    return {
        **result,
        "steps": {k: (len(v), sum(v), statistics.median(v)) for k, v in STEPS.items()},
        "threads": threads,
        "yappi": profiler,
    }


def _kind(name: str) -> str:
    for prefix in ("mcp-host", "import-", "Thread-", "ThreadPoolExecutor", "asyncio_"):
        if name.startswith(prefix):
            return prefix.rstrip("-_") + "*"
    return name


def run_one(agent: str, mode: str, n: int, data: Path, work: Path, url: str, r: int, use_yappi: bool):
    from tool_modes import CpuCgroup

    group = CpuCgroup(f"agent-eval-prof-{os.getpid()}-{mode}-{r}")
    payload = {
        "cgroup": str(group.path) if group.path else None,
        "agent": agent,
        "model": MODELS[agent],
        "tools": mode,
        "jobs": 1,
        "n": n,
        "data": str(data),
        "out_dir": str(work / "runs"),
        "run_name": f"{agent}-{mode}-{r}",
        "url": url,
        "yappi": use_yappi,
    }
    proc = subprocess.run(
        [PYTHON, str(HERE), "--child", json.dumps(payload)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        preexec_fn=group.join if group.path else None,
    )
    try:
        if proc.returncode:
            raise RuntimeError(proc.stderr[-3000:])
        result = json.loads(proc.stdout.strip().splitlines()[-1])
    finally:
        group.remove()
    if result["statuses"] != {"ok": n}:
        from tool_modes import failures

        raise RuntimeError(
            f"{mode}: {result['statuses']}: {proc.stderr[-3000:]} {failures(work / 'runs' / f'{agent}-{mode}-{r}')}"
        )
    return result


def _value(result: dict, n: int, kind: str, key: str) -> float:
    """One figure of one run, in ms per item (calls: per item)."""
    if kind == "whole":
        return (result[key] or 0.0) * 1000 / n
    if kind == "thread":
        return result["threads"].get(key, 0.0) * 1000 / n
    calls, total, median = result["steps"].get(key, (0, 0.0, 0.0))
    return {"step": total * 1000 / n, "moment": median * 1000, "calls": calls / n}[kind]


def report(agent: str, n: int, results: dict[str, list[dict]]) -> None:
    modes = list(results)
    print(f"\n{agent}, {n} items per run, ms per item (medians over {len(results[modes[0]])} runs)")
    rows = [
        ("Runner.run wall", "whole", "run_s"),
        ("harness process CPU", "whole", "run_cpu_self_s"),
        ("whole tree CPU (cgroup)", "whole", "tree_cpu_s"),
    ]
    steps = sorted({s for rs in results.values() for r in rs for s in r["steps"]})
    rows += [(f"step: {s}", "step", s) for s in steps if not s.startswith("@")]
    rows += [(s, "moment", s) for s in steps if s.startswith("@")]
    rows += [(f"  calls: {s}", "calls", s) for s in steps if not s.startswith("@")]
    threads = sorted({t for rs in results.values() for r in rs for t in r["threads"]})
    rows += [(f"CPU thread {t}", "thread", t) for t in threads]
    print(f"{'':58}" + "".join(f"{m:>12}" for m in modes) + f"{'diff':>12}")
    for label, kind, key in rows:
        vals = [statistics.median(_value(r, n, kind, key) for r in results[m]) for m in modes]
        digits = 2 if kind == "calls" else 1
        print(f"{label[:58]:58}" + "".join(f"{v:>12.{digits}f}" for v in vals) + f"{vals[-1] - vals[0]:>12.{digits}f}")
    for m in modes:
        for r in results[m][:1]:
            if r.get("yappi"):
                print(f"\nyappi, {m}, MCP host thread, top by own CPU (ncall, tsub s, ttot s):")
                for row in r["yappi"]:
                    print(f"  {row[1]:>6} {row[2]:8.3f} {row[3]:8.3f}  {row[0][-110:]}")


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(child(json.loads(sys.argv[2]))), flush=True)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="codex", choices=sorted(MODELS))
    ap.add_argument("--modes", default="none,image")
    ap.add_argument("--n", type=int, default=8, help="Items per run.")
    ap.add_argument("--rounds", type=int, default=2, help="Runs of each mode, interleaved.")
    ap.add_argument("--yappi", action="store_true")
    args = ap.parse_args()
    from agent_eval.benchmarks.activevision.samples import write_sample_set

    work = Path(tempfile.mkdtemp(prefix="agent-eval-prof-"))
    try:
        data = work / "samples"
        write_sample_set(data, seed=0, per_task=-(-args.n // 6))
        modes = args.modes.split(",")
        results: dict[str, list[dict]] = {m: [] for m in modes}
        with ServerProcess(work, "prof", ONE_CALL) as server:
            for r in range(args.rounds):
                for mode in modes if r % 2 == 0 else modes[::-1]:
                    log(f"{args.agent} {mode} round {r} (load {loadavg()})")
                    results[mode].append(run_one(args.agent, mode, args.n, data, work, server.url, r, args.yappi))
        report(args.agent, args.n, results)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
