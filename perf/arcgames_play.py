"""What the harness adds to one `play` call of an ARC-AGI-3 game, over the game's own step; and, with
`--through`, a long game played by a real CLI through the whole runner.

    .venv/bin/python perf/arcgames_play.py [--actions 300] [--mode image] [--game ae01]
    .venv/bin/python perf/arcgames_play.py --through claude-code --actions 2000 [--tree /work/main]

One of the project's games (agent_eval/benchmarks/arcgames/games) runs in its game process under the
toolkit, as in a run, and `play` is called over loopback HTTP by an MCP client (the SDK's), as an agent
CLI calls it, on the `game` server mounted on the process's MCP host. Per call:
  toolkit step: the toolkit's own env.step inside the game process (GameProcess.last_step_s);
  step round trip: GameProcess.step from the harness (the step, the JSON-lines channel, the frames);
  play: the whole MCP call: step + checks + frame archive (.npy and PNG) + timeline + JSON and PNG answer.
Reported: median and p90 of each; the harness's addition (play - toolkit step) and its parts; CPU per
action of this process (MCP host and client: an upper bound of the harness's own) and of the game
process (from /proc). Target: the added median at most 10 ms (docs/performance.md).

--settings default,vista: the same calls under each setting side by side in one run, interleaved over --rounds
(default: our tools at scale 4; vista: `--profile vista`'s rendering and tools, VISTA's 512x512 image with grid
lines and its play answer). A play of VISTA's setting refuses RESET at turn 0 and the one-action-per-observation
gate needs a model request between plays, which no model makes here: both settings play pf01's ACTION1 only, the
gate off (it is one flag read per call).

--through AGENT: the same never-winning sequence played by that CLI (sandboxed, the scripted model answering
at once, in its own process) through a Runner in a child process (the harness: `--tree` picks whose code,
e.g. another checkout to compare with). Every 0.5 s the harness's RSS (the agent-eval process alone: not
the CLI, the game process or the model) and the actions done so far are read. Reported: the time per action
at the start and at the end of the game, the harness's RSS then, the item folder's size by file, and the
wall time of `agent-eval show RUN ITEM` and `agent-eval report RUN` on it (with their output's size).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_eval.benchmarks.arcgames.benchmark import ArcGames  # noqa: E402
from agent_eval.benchmarks.arcgames.game_process import GameProcess  # noqa: E402
from agent_eval.benchmarks.arcgames.games import WINNING  # noqa: E402
from agent_eval.benchmarks.arcgames.ladder import NOTE_PURPOSES, Ladder  # noqa: E402
from agent_eval.benchmarks.arcgames.loader import load_games  # noqa: E402
from agent_eval.benchmarks.arcgames.session import GameSession  # noqa: E402
from agent_eval.benchmarks.arcgames.toolkit_process import toolkit_python  # noqa: E402
from agent_eval.benchmarks.notes import Notes  # noqa: E402
from agent_eval.benchmarks.registry import profile_of  # noqa: E402
from agent_eval.tools.mcp_http import McpHost, load_sdk_module  # noqa: E402


def quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    return f"median {statistics.median(ordered):6.2f} ms  p90 {ordered[int(0.9 * (len(ordered) - 1))]:6.2f} ms"


def process_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    """Every process under `pid` (the game processes and whatever confines them)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


CLIENT = textwrap.dedent("""
    # The MCP SDK's own client over streamable HTTP, in a process of its own so that the harness's CPU is
    # measured alone: initialize, then one tools/call of play per action; prints each call's wall time (ms).
    import asyncio, json, sys, time
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def main(url, actions):
        times = []
        async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            for name, x, y in actions:
                args = {"action": name} if x is None else {"action": name, "x": x, "y": y}
                started = time.perf_counter()
                result = await session.call_tool("play", args)
                times.append((time.perf_counter() - started) * 1000)
                assert not result.is_error, result
        return times

    print(json.dumps(asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))))
""")


def play_from_a_client(url: str, actions: list) -> list[float]:
    steps = [list(a) if isinstance(a, tuple) else [a, None, None] for a in actions]
    done = subprocess.run([sys.executable, "-c", CLIENT, url, json.dumps(steps)], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the client failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--mode", default="image", choices=("none", "image", "python"))
    parser.add_argument(
        "--game", default="ae01", help=f"one of the project's games, or {DISTINCT}: every frame a new one"
    )
    parser.add_argument("--through", choices=("claude-code", "codex"), help="a real CLI plays, through the runner")
    parser.add_argument("--tree", type=Path, default=ROOT, help="--through: the checkout whose harness runs")
    parser.add_argument("--out", type=Path, help="--through: where the run goes (default: a temporary dir)")
    parser.add_argument("--trace", type=Path, help="--through: tracemalloc's top growth written here (slower)")
    parser.add_argument("--settings", help="side by side: default,vista (see above)")
    parser.add_argument("--rounds", type=int, default=3, help="--settings: rounds, the settings interleaved")
    args = parser.parse_args()
    if toolkit_python() is None:
        sys.exit("no toolkit interpreter: run `make setup` first")
    tmp = Path(tempfile.mkdtemp(prefix="arc-play-"))
    benchmark = ArcGames()
    benchmark.write_samples(tmp / "games", 0, 1, "")
    write_distinct_game(tmp / "games")
    item = next(i for i in load_games(tmp / "games").items if i.id == args.game)
    if item.id == DISTINCT:  # a RESET, then ACTION1 only: each moves the marker on, each frame new
        actions = ["RESET"] + ["ACTION1"] * (args.actions - 1)
    else:
        # Never winning (a won game takes no more actions): the winning sequence's first move, back and forth,
        # a RESET every ten actions.
        first = next((a for a in WINNING[f"{item.id}-{item.version}"][1:] if not isinstance(a, tuple)), "ACTION1")
        back = {"ACTION1": "ACTION2", "ACTION2": "ACTION1", "ACTION3": "ACTION4", "ACTION4": "ACTION3"}
        cycle = ["RESET"] + [first, back.get(first, first)] * 4 + [first]
        actions = [cycle[i % len(cycle)] for i in range(args.actions)]
    if args.through:
        long_game(args, tmp, item, actions)
        return
    if args.settings:
        side_by_side(args, tmp, args.settings.split(","))
        return
    server_module = load_sdk_module("agent_eval.benchmarks.arcgames.game_server")
    timings: dict[str, list[float]] = {"play": [], "toolkit": []}
    with GameProcess(item.environments_dir, item.id, item.version, scratch=tmp / "process") as game:
        session = GameSession(item, game, tmp / "item" / "game", max_actions=10**6, frame_scale=4)
        with McpHost.shared().mount(lambda: server_module.build_server(session, args.mode, 4), name="game") as mount:
            McpHost.shared().wait_ready()
            game_pids = descendants(os.getpid())
            games_before = {pid: process_cpu_s(pid) for pid in game_pids}
            cpu_before, wall_before = time.process_time(), time.perf_counter()
            timings["play"] = play_from_a_client(mount.url, actions)
            cpu = time.process_time() - cpu_before
            wall = time.perf_counter() - wall_before
            games_cpu = sum(
                process_cpu_s(pid) - before for pid, before in games_before.items() if Path(f"/proc/{pid}").exists()
            )
        session.finish()
    timeline = [json.loads(line) for line in (tmp / "item" / "game" / "timeline.jsonl").read_text().splitlines()]
    round_trip = [e["game_ms"] for e in timeline]
    timings["toolkit"] = [e["toolkit_ms"] for e in timeline]
    added = [p - t for p, t in zip(timings["play"], timings["toolkit"])]
    n = len(actions)
    print(f"{n} actions of {item.id} (mode {args.mode}), {session.archive.count} frames archived, {wall:.1f} s")
    print(f"  toolkit step (in the game process)    {quantiles(timings['toolkit'])}")
    print(f"  GameProcess.step round trip            {quantiles(round_trip)}")
    print(f"  play over MCP (the agent's view)       {quantiles(timings['play'])}")
    print(f"  added over the game's own step         {quantiles(added)}   (target: median <= 10 ms)")
    print(
        f"    the game process's channel           {quantiles([r - t for r, t in zip(round_trip, timings['toolkit'])])}"
    )
    print(f"    the play tool (session + MCP + HTTP) {quantiles([p - r for p, r in zip(timings['play'], round_trip)])}")
    print(f"    of which the session                 {quantiles([e['harness_ms'] for e in timeline])}")
    print(
        f"  CPU per action: the harness (MCP host, session, archive) {cpu / n * 1000:.2f} ms; "
        f"the game process {games_cpu / n * 1000:.2f} ms"
    )


def setting(name: str) -> tuple[int, Ladder]:
    """The frame scale and tool ladder of a setting: ours by default, or `--profile vista`'s."""
    if name == "default":
        return 4, Ladder()
    options = profile_of(name, "arcgames").options
    return int(options["frame_scale"]), Ladder.from_options(options)


def play_in_setting(tmp: Path, item, actions: list, name: str, mode: str) -> dict:
    """One setting's calls: the play's wall (the agent's view), the session's own part, CPU per action."""
    scale, ladder = setting(name)
    server_module = load_sdk_module("agent_eval.benchmarks.arcgames.game_server")
    folder = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=tmp))
    notes = Notes(folder, NOTE_PURPOSES, ladder.note_limits()) if ladder.notes else None
    with GameProcess(item.environments_dir, item.id, item.version, scratch=folder / "process") as game:
        session = GameSession(
            item,
            game,
            folder / "game",
            max_actions=10**6,
            frame_scale=scale,
            ladder=ladder,
            initial_frame=True,
        )
        build = lambda: server_module.build_server(session, mode, scale, ladder, notes)  # noqa: E731
        with McpHost.shared().mount(build, name="game") as mount:
            McpHost.shared().wait_ready()
            cpu_before = time.process_time()
            plays = play_from_a_client(mount.url, actions)
            cpu = time.process_time() - cpu_before
        session.finish()
    timeline = [json.loads(line) for line in (folder / "game" / "timeline.jsonl").read_text().splitlines()]
    frame = folder / "game" / "frames" / f"{len(timeline):04d}.png"
    return {
        "play": plays,
        "added": [p - e["toolkit_ms"] for p, e in zip(plays, timeline)],
        "session": [e["harness_ms"] for e in timeline],
        "cpu_ms": cpu / len(actions) * 1000,
        "png_bytes": frame.stat().st_size if frame.exists() else None,
    }


def side_by_side(args, tmp: Path, names: list[str]) -> None:
    item = next(i for i in load_games(tmp / "games").items if i.id == DISTINCT)
    actions = ["ACTION1"] * args.actions
    keys = ("play", "added", "session", "cpu_ms")
    found: dict[str, dict[str, list[float]]] = {n: {k: [] for k in keys} for n in names}
    sizes = {}
    for round_ in range(args.rounds):
        for name in names if round_ % 2 == 0 else reversed(names):
            one = play_in_setting(tmp, item, actions, name, args.mode)
            for key in ("play", "added", "session"):
                found[name][key] += one[key]
            found[name]["cpu_ms"].append(one["cpu_ms"])
            sizes[name] = one["png_bytes"]
    print(f"{args.actions} actions of {DISTINCT} x {args.rounds} rounds per setting (mode {args.mode}), interleaved")
    base = statistics.median(found[names[0]]["added"])
    for name in names:
        f = found[name]
        added = statistics.median(f["added"])
        print(
            f"  {name:8s} play {quantiles(f['play'])} | added {quantiles(f['added'])} ({added / base:.2f}x "
            f"{names[0]}) | session {statistics.median(f['session']):.2f} ms | CPU {statistics.median(f['cpu_ms']):.2f}"
            f" ms/action | last PNG {sizes[name]} bytes"
        )


DISTINCT = "pf01"
DISTINCT_GAME = """
from arcengine import ARCBaseGame, Camera, Level, Sprite


class Pf01(ARCBaseGame):
    # Never won: each action moves a marker one cell on (x = n mod 64, y = n div 64), so every frame is new, as
    # in a real game where the model explores (the project's games, played back and forth, repeat two frames).
    def __init__(self, seed: int = 0):
        level = Level(sprites=[Sprite([[9]], name="marker", x=0, y=0)], grid_size=(64, 64), name="L0")
        super().__init__(game_id="pf01", levels=[level], camera=Camera(0, 0, 64, 64, 0, 0),
                         available_actions=[1], seed=seed)
        self.moves = 0

    def step(self):
        self.moves += 1
        marker = self.current_level.get_sprites_by_name("marker")[0]
        marker.set_position(self.moves % 64, (self.moves // 64) % 64)
        self.complete_action()
"""


def write_distinct_game(root: Path) -> None:
    folder = root / DISTINCT / "v1"
    folder.mkdir(parents=True)
    (folder / f"{DISTINCT}.py").write_text(DISTINCT_GAME)
    meta = {"game_id": f"{DISTINCT}-v1", "title": "perf: every frame new", "class_name": "Pf01"}
    (folder / "metadata.json").write_text(json.dumps({**meta, "baseline_actions": [100]}))


HARNESS = textwrap.dedent("""
    # The harness alone in this process: one Runner, one game item, the CLI sandboxed, the model elsewhere.
    import json, os, sys
    from pathlib import Path
    spec = json.loads(sys.argv[1])
    sys.path.insert(0, spec["tree"])
    from rich.console import Console
    from agent_eval.agents.registry import agent_class, efforts_by_agent, scripted_environ
    from agent_eval.benchmarks import load_benchmark
    from agent_eval.datamodel.config import RunConfig
    from agent_eval.engine.runner import Runner
    from agent_eval.engine.selection import select

    if spec.get("trace"):  # what grows with actions: allocations at a quarter of the game against near its end
        import threading, time, tracemalloc
        tracemalloc.start(4)
        def watch():
            timeline = Path(spec["out"]) / "long" / "sandboxes" / spec["game"] / "game" / "timeline.jsonl"
            marks, shots = [spec["actions"] // 4, spec["actions"] - 50], []
            while marks:
                done = timeline.read_bytes().count(b"\\n") if timeline.exists() else 0
                if done >= marks[0]:
                    shots.append((done, tracemalloc.take_snapshot()))
                    marks.pop(0)
                time.sleep(0.2)
            (a, first), (b, last) = shots
            lines = [f"allocations grown from action {a} to action {b} (live bytes, by where they were made)"]
            for stat in last.compare_to(first, "traceback")[:12]:
                lines.append(f"{stat.size_diff / 1e6:+8.2f} MB {stat.count_diff:+7d} blocks")
                lines += [f"      {frame.filename}:{frame.lineno}" for frame in stat.traceback]
            Path(spec["trace"]).write_text("\\n".join(lines) + "\\n")
        threading.Thread(target=watch, daemon=True).start()
    benchmark, dataset = load_benchmark(Path(spec["games"]))
    items = select(dataset, tasks=spec["game"])
    config = RunConfig(
        agent=spec["agent"], model=agent_class(spec["agent"]).demo_model, tools=spec["mode"], jobs=1,
        timeout_s=spec["timeout_s"], unpriced=True, kind_options={"max_actions": spec["actions"]},
    )
    config.validate(efforts_by_agent())
    runner = Runner(
        config, benchmark, dataset, items, Path(spec["out"]), run_name="long", console=Console(file=sys.stderr),
        environ=scripted_environ(spec["agent"], spec["url"]), scripted_model=True,
    )
    outcome = runner.run()
    record = outcome.store.records()[0]
    metrics = record.metrics or {}
    print(json.dumps({"status": record.status, "error": record.error, "actions": metrics.get("actions")}))
""")


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def folder_sizes(root: Path) -> dict[str, int]:
    """Bytes per top-level entry of the item folder (game/ split into frames/ and the rest)."""
    out: dict[str, int] = {}
    for entry in sorted(root.iterdir()):
        if entry.is_dir():
            for sub in entry.iterdir() if entry.name == "game" else [entry]:
                name = f"{entry.name}/{sub.name}" if sub is not entry else f"{entry.name}/"
                out[name] = sum(f.stat().st_size for f in ([sub] if sub.is_file() else sub.rglob("*")) if f.is_file())
        else:
            out[entry.name] = entry.stat().st_size
    return out


def timed(command: list[str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env={**os.environ, "COLUMNS": "120"})
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed: {done.stderr[-2000:]}")
    return time.perf_counter() - started, done.stdout


def long_game(args, tmp: Path, item, actions: list) -> None:
    sys.path.insert(0, str(ROOT))
    from agent_eval.scripted.game_play import play_scenario

    tree = args.tree.resolve()
    python = tree / ".venv" / "bin" / "python"
    (tmp / "scenario.json").write_text(json.dumps(play_scenario(actions)))
    model = subprocess.Popen(
        [str(python), "-m", "agent_eval.scripted", "--scenario", str(tmp / "scenario.json")],
        cwd=tree,
        stdout=subprocess.PIPE,
        text=True,
    )
    out = (args.out or tmp / "out").resolve()
    try:
        url = model.stdout.readline().strip()
        spec = {
            "tree": str(tree),
            "games": str(tmp / "games"),
            "game": item.id,
            "agent": args.through,
            "mode": args.mode,
            "actions": len(actions),
            "timeout_s": max(1800.0, len(actions) * 2.0),
            "out": str(out),
            "url": url,
            "trace": str(args.trace.resolve()) if args.trace else None,
        }
        started = time.perf_counter()
        harness = subprocess.Popen(
            [str(python), "-c", HARNESS, json.dumps(spec)], cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        timeline = out / "long" / "sandboxes" / item.id / "game" / "timeline.jsonl"
        samples = []  # (seconds, actions done, harness RSS MB, harness CPU s)
        while harness.poll() is None:
            try:
                done = timeline.read_bytes().count(b"\n")
            except OSError:
                done = 0
            try:
                cpu = process_cpu_s(harness.pid)
            except (OSError, IndexError):
                cpu = None
            samples.append((time.perf_counter() - started, done, rss_mb(harness.pid), cpu))
            time.sleep(0.5)
        result = json.loads(harness.stdout.read().strip().splitlines()[-1])
    finally:
        model.terminate()
        model.wait()
    item_root = out / "long" / "sandboxes" / item.id
    print(f"{args.through} (mode {args.mode}), harness from {tree}: {result}")
    playing = [s for s in samples if s[1] > 0 and s[2] is not None and s[3] is not None]
    if len(playing) < 4:
        sys.exit("too few samples while the game was played")
    n = playing[-1][1]
    window = max(20, n // 10)

    def per_action(lo: int, hi: int, field: int = 0) -> float:
        a = next(s for s in playing if s[1] >= lo)
        b = next(s for s in playing if s[1] >= hi)
        return (b[field] - a[field]) / max(1, b[1] - a[1])

    print(f"  {n} actions in {playing[-1][0] - playing[0][0]:.0f} s")
    print(
        f"  per action: actions {window}-{2 * window}: {per_action(window, 2 * window):.3f} s; "
        f"last {window}: {per_action(n - window, n):.3f} s"
    )
    print(
        f"  the harness's CPU per action (MCP host, gateway and its ledger, game session): actions {window}-"
        f"{2 * window}: {per_action(window, 2 * window, 3) * 1000:.1f} ms; last {window}: "
        f"{per_action(n - window, n, 3) * 1000:.1f} ms"
    )
    first_rss = next(s[2] for s in playing if s[1] >= window)
    last_rss = next(s[2] for s in playing if s[1] >= n)  # the game's last action (then the item's end: parsing)
    print(
        f"  harness RSS: at action {window} {first_rss:.0f} MB, at the last action {last_rss:.0f} MB, "
        f"peak {max(s[2] for s in playing):.0f} MB (the item's end included)"
    )
    for at in (n // 4, n // 2, 3 * n // 4):
        s = next(s for s in playing if s[1] >= at)
        print(f"    at action {s[1]}: {s[2]:.0f} MB")
    lines = (
        [json.loads(x) for x in (item_root / "gateway.jsonl").read_text().splitlines()]
        if (item_root / "gateway.jsonl").is_file()
        else []
    )
    read = [(x["seq"], x["read_ms"]) for x in lines if x.get("read_ms") is not None]
    if read:
        first, last = [ms for _, ms in read[window : 2 * window]], [ms for _, ms in read[-window:]]
        print(
            f"  the ledger reading a request's body (its thread's CPU): requests {window}-{2 * window} "
            f"{statistics.mean(first):.1f} ms, the last {window} {statistics.mean(last):.1f} ms; request "
            f"bytes at the end {lines[-1]['request_bytes'] / 1e6:.1f} MB"
        )
    sizes = folder_sizes(item_root)
    print(f"  item folder {sum(sizes.values()) / 1e6:.1f} MB:")
    for name, size in sorted(sizes.items(), key=lambda kv: -kv[1]):
        if size >= 10_000:
            print(f"    {name:28s} {size / 1e6:8.2f} MB")
    # agent-eval of `tree` (its own code first on the path, whichever checkout the venv was installed from)
    cli = [str(python), "-c", f"import sys; sys.path.insert(0, {str(tree)!r}); from agent_eval.cli import main; main()"]
    show_s, shown = timed(cli + ["show", str(out / "long"), item.id], tmp)
    report_s, _ = timed(cli + ["report", str(out / "long"), "-o", str(tmp / "report.html")], tmp)
    print(
        f"  show: {show_s:.1f} s, {len(shown.splitlines())} lines, of which the game timeline's table "
        f"{sum(1 for line in shown.splitlines() if line.startswith('│'))}"
    )
    print(f"  report: {report_s:.1f} s, {(tmp / 'report.html').stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
