"""What perf/run_bench.py and its parts (perf/tool_modes.py) share: its constants and console, the machine's CPU
and load, the scripted model server as its own process, the process-tree memory sampler, the bare CLI's episode."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402

PYTHON = sys.executable
AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")
CHILD = str(Path(__file__).resolve().parent / "_bench_child.py")
BANK = Path(os.environ.get("AGENT_EVAL_BANK", ROOT.parent / "shared" / "activevision" / "items.jsonl"))
MODELS = {"claude-code": "claude-opus-4-8", "codex": "gpt-5.5"}
PAGE = os.sysconf("SC_PAGE_SIZE")

OVERHEAD_TARGET = 1.15
EFFICIENCY_TARGET = 0.80
RERUN_TARGET_S = 1.0
DELAY_S = 3.0
IDLE_PROBE_S = 10.0
# The tools' Python by its absolute path: Codex runs commands in a login shell, whose PATH comes from
# /etc/profile (the sandbox's puts the venv first, the host's does not), so `python3` would differ.
SHELL_COMMAND = f"{PYTHON} -c \"from PIL import Image; print(Image.open('image.png').size)\""

console = Console(highlight=False, width=None if sys.stdout.isatty() else 150)


def log(message: str) -> None:
    console.print(f"[dim]{time.strftime('%H:%M:%S')}[/] {message}")


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def own_cpu() -> float:
    """CPU-seconds of this process and every child it has reaped (their reaped children included).
    Not the sandboxes': bwrap's pid namespace keeps their CPU out of RUSAGE_CHILDREN."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


SAMPLED_CPU = [0.0]  # CPU-seconds of our process trees read from /proc by finished TreeSamplers


class CpuMeter:
    """How busy the machine was during a phase, and how much of that was not us: CPU-seconds of
    the whole machine (/proc/stat) minus ours (getrusage of this process and its reaped children,
    plus what the TreeSamplers read for the sandboxed trees; a lower bound, so "other" is an upper
    bound)."""

    CLK = os.sysconf("SC_CLK_TCK")

    def __enter__(self) -> "CpuMeter":
        self.start = self._snapshot()
        return self

    def __exit__(self, *exc) -> None:
        end = self._snapshot()
        wall, busy, own = (e - s for e, s in zip(end, self.start))
        self.wall_s = wall
        self.own_cores = own / wall
        self.other_cores = max(0.0, busy - own) / wall

    @classmethod
    def _snapshot(cls) -> tuple[float, float, float]:
        values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
        busy = (sum(values) - values[3] - values[4]) / cls.CLK  # all but idle and iowait
        return time.perf_counter(), busy, own_cpu() + SAMPLED_CPU[0]

    def describe(self) -> dict:
        return {"wall_s": self.wall_s, "own_cores": self.own_cores, "other_cores": self.other_cores}


# ---------------------------------------------------------------------------------------------
# the machine
# ---------------------------------------------------------------------------------------------
def machine_info() -> dict:
    from agent_eval.agents import get_agent

    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    meminfo = Path("/proc/meminfo").read_text()
    mem_kb = int(re.search(r"^MemTotal:\s*(\d+)", meminfo, re.M).group(1))
    bwrap = subprocess.run(["bwrap", "--version"], capture_output=True, text=True).stdout.strip()
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "memory_gib": round(mem_kb / 2**20, 1),
        "cpu_model": model.group(1).strip() if model else "unknown",
        "kernel": platform.release(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "claude": get_agent("claude-code").version(),
        "codex": get_agent("codex").version(),
        "bwrap": bwrap,
        "loadavg_at_start": loadavg(),
    }


# ---------------------------------------------------------------------------------------------
# the scripted model, as its own process
# ---------------------------------------------------------------------------------------------
class ServerProcess:
    """`python -m agent_eval.scripted` with a scenario file and a request log."""

    def __init__(self, workdir: Path, name: str, scenario: dict, delay: float | None = None):
        self.dir = workdir / f"server-{name}"
        self.dir.mkdir(parents=True)
        self.scenario_path = self.dir / "scenario.json"
        self.scenario_path.write_text(json.dumps(scenario))  # JSON is YAML
        self.log_path = self.dir / "requests.jsonl"
        self.log_path.touch()
        self.delay = delay
        self.proc: subprocess.Popen | None = None
        self.url = ""

    def __enter__(self) -> "ServerProcess":
        argv = [PYTHON, "-m", "agent_eval.scripted", "--scenario", str(self.scenario_path), "--log", str(self.log_path)]
        if self.delay:
            argv += ["--delay", str(self.delay)]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http://"):
            self.__exit__()
            raise RuntimeError(f"scripted server did not start (printed {self.url!r})")
        return self

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def requests(self) -> list[dict]:
        return [json.loads(line) for line in self.log_path.read_text().splitlines() if line.strip()]

    def main_outcomes(self) -> list[str]:
        return [r["outcome"] for r in self.requests() if r["kind"] == "main"]


def scripted_env(agent: str, url: str, home: Path) -> dict[str, str]:
    """This process's environment, any real model credential removed, the scripted endpoint set."""
    from agent_eval.agents.registry import scripted_environ

    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "CODEX_", "CLAUDE_"))}
    return env | scripted_environ(agent, url) | {"HOME": str(home)}


# ---------------------------------------------------------------------------------------------
# process-tree memory sampler
# ---------------------------------------------------------------------------------------------
def _proc_table() -> dict[int, tuple[int, int, int, int]]:
    """pid -> (ppid, start time, rss bytes, CPU ticks used so far) for every process."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        table[int(name)] = (int(fields[1]), int(fields[19]), int(fields[21]) * PAGE, int(fields[11]) + int(fields[12]))
    return table


def _pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
            for line in handle:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


class TreeSampler(threading.Thread):
    """Every `interval` s: each process tree hanging off `root` (one per direct child: a sandboxed
    agent, a proxy jail, a `--version` call...) summed, RSS and PSS; the peak of each tree kept.

    Also the CPU time of every process seen under `root` (its last reading): the only way to count
    the sandboxes' CPU, since bwrap's pid namespace keeps it out of getrusage(RUSAGE_CHILDREN).
    A lower bound: what a process uses after its last sample, or a process that lives less than
    one interval, is missed."""

    def __init__(
        self,
        root: int,
        exclude: set[int] = frozenset(),
        interval: float = 0.25,
        pss: bool = True,
        count_cpu: bool = True,
    ):
        super().__init__(daemon=True)
        self.root, self.exclude, self.interval = root, set(exclude), interval
        self.read_pss, self.count_cpu = pss, count_cpu  # count_cpu: add to SAMPLED_CPU when stopped
        self.stop_event = threading.Event()
        self.trees: dict[tuple[int, int], dict] = {}  # (pid, start) -> {kind, rss, pss, procs}
        self.peak_total_pss = 0
        self.peak_agents = 0
        self.samples = 0
        self._cmdlines: dict[tuple[int, int], str] = {}
        self._cpu_ticks: dict[tuple[int, int], int] = {}
        self.root_hwm_kb = 0  # the root process's own peak RSS (VmHWM), as last read

    @property
    def cpu_s(self) -> float:
        return sum(self._cpu_ticks.values()) / CpuMeter.CLK

    def run(self) -> None:
        while not self.stop_event.is_set():
            self.sample()
            self.stop_event.wait(self.interval)

    def stop(self) -> None:
        self.stop_event.set()
        self.join()
        self.sample()
        if self.count_cpu:
            SAMPLED_CPU[0] += self.cpu_s

    def sample(self) -> None:
        try:
            for line in open(f"/proc/{self.root}/status"):
                if line.startswith("VmHWM:"):
                    self.root_hwm_kb = max(self.root_hwm_kb, int(line.split()[1]))
        except OSError:
            pass
        table = _proc_table()
        children: dict[int, list[int]] = {}
        for pid, (ppid, *_) in table.items():
            children.setdefault(ppid, []).append(pid)
        total_pss, agents = 0, 0
        for top in children.get(self.root, []):
            if top in self.exclude:
                continue
            members, stack = [], [top]
            while stack:
                pid = stack.pop()
                members.append(pid)
                stack.extend(children.get(pid, []))
            rss = sum(table[p][2] for p in members if p in table)
            for p in members:
                self._cpu_ticks[(p, table[p][1])] = table[p][3]
            pss = sum(_pss(p) for p in members) if self.read_pss else 0
            # A sandbox is a bwrap tree: the proxy jail holds tinyproxy, the other one the agent. Anything
            # else (`claude --version`, `codex debug models`, ...) is the runner's own business.
            text = " ".join(self._cmd(p, table[p][1]) for p in members if p in table)
            sandboxed = os.path.basename(self._cmd(top, table[top][1]).split(" ", 1)[0]) == "bwrap"
            kind = "other" if not sandboxed else "proxy" if "tinyproxy" in text else "agent"
            key = (top, table[top][1])
            tree = self.trees.setdefault(key, {"kind": kind, "rss": 0, "pss": 0, "procs": 0})
            if kind == "proxy":  # a jail's tinyproxy may start after the first sample
                tree["kind"] = kind
            tree["rss"], tree["pss"] = max(tree["rss"], rss), max(tree["pss"], pss)
            tree["procs"] = max(tree["procs"], len(members))
            total_pss += pss
            agents += kind == "agent"
        self.peak_total_pss = max(self.peak_total_pss, total_pss)
        self.peak_agents = max(self.peak_agents, agents)
        self.samples += 1

    def _cmd(self, pid: int, start: int) -> str:
        key = (pid, start)
        if key not in self._cmdlines:
            self._cmdlines[key] = cmdline(pid)
        return self._cmdlines[key]

    def peaks(self, kind: str) -> list[dict]:
        return [t for t in self.trees.values() if t["kind"] == kind]


def mib(n_bytes: float) -> float:
    return n_bytes / 2**20


def memory_summary(sampler: TreeSampler) -> dict:
    agents, proxies = sampler.peaks("agent"), sampler.peaks("proxy")

    def stats(trees, key):
        values = [mib(t[key]) for t in trees]
        return {"median": statistics.median(values), "max": max(values)} if values else None

    return {
        "agent_trees": len(agents),
        "agent_rss_mib": stats(agents, "rss"),
        "agent_pss_mib": stats(agents, "pss"),
        "agent_procs_max": max((t["procs"] for t in agents), default=0),
        "proxy_pss_mib": stats(proxies, "pss"),
        "proxy_rss_mib": stats(proxies, "rss"),
        "peak_concurrent_agents": sampler.peak_agents,
        "peak_total_pss_mib": mib(sampler.peak_total_pss),
        "samples": sampler.samples,
    }


# ---------------------------------------------------------------------------------------------
# 1. per-item overhead: harness vs bare CLI, side by side
# ---------------------------------------------------------------------------------------------
def overhead_scenario() -> dict:
    return {
        "turns": [
            {"say": "Let me measure the image.", "call": "shell", "input": {"command": SHELL_COMMAND}},
            {"final": "The image size is <answer>{last_tool_output}</answer>"},
        ]
    }


@contextlib.contextmanager
def bare_invocation(agent: str, benchmark, item, tools: str, template_text: str, auth, root: Path):
    """What the harness gives the agent on one item (files in root/work, a fresh private home root/home, prompt,
    tools) and the very command, environment and stdin its adapter builds: yields (the benchmark's setup, the
    adapter's Invocation), the item's tools served until the block ends."""
    from agent_eval.agents import get_agent
    from agent_eval.agents.base import ItemContext

    (root / "work").mkdir(parents=True)
    (root / "home").mkdir()
    with benchmark.setup(item, tools, root / "work", root / "home", root, template_text) as setup:
        given = {
            "item_id": item.id,
            "model": MODELS[agent],
            "prompt": setup.prompt,
            "workdir": root / "work",
            "home": root / "home",
            "tools": setup.tools,
            "inline_images": setup.inline_images,
            "auth": auth,
        }
        # Every other field (effort, turn and cost caps, ...) is None: the run's defaults.
        ctx = ItemContext(**{f.name: given.get(f.name) for f in dataclasses.fields(ItemContext)})
        yield setup, get_agent(agent).prepare(ctx)


def bare_episode(
    agent: str, benchmark, item, tools: str, template_text: str, auth, root: Path
) -> tuple[float, float, bytes]:
    """The bare CLI on one item (bare_invocation), run with subprocess; no runner, no sandbox. (wall s, CPU s of
    the CLI and its children, stdout)."""
    with bare_invocation(agent, benchmark, item, tools, template_text, auth, root) as (_, inv):
        c0, t0 = own_cpu(), time.perf_counter()
        out = subprocess.run(
            inv.argv, input=inv.stdin, capture_output=True, cwd=root / "work", env=inv.env, timeout=120
        )
        elapsed, cpu = time.perf_counter() - t0, own_cpu() - c0
    if out.returncode != 0 or b"<answer>" not in out.stdout:
        raise RuntimeError(f"bare {agent} failed (exit {out.returncode}): {out.stdout[-800:]!r} {out.stderr[-800:]!r}")
    return elapsed, cpu, out.stdout


def verdict(ok: bool) -> str:
    return "[bold green]PASS[/]" if ok else "[bold red]MISS[/]"
