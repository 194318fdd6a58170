"""A long game against the model API's limits, under each context policy: how many images and bytes each model
request carries as a 2,000-action game goes on, what the CLI does about it, and the memory of the harness and of
the CLI, with --context native, handoff:N, handoff:cli and --session-images 600.

    .venv/bin/python perf/arcgames_context.py [--agents claude-code,codex] [--actions 2000]
        [--policies native,handoff,handoff:cli,images] [--out perf-context.json]

One game written here (pf01, perf/arcgames_play.py's: every action moves a marker on, so every frame is new, as
in a game the model explores) is played to --actions by a real CLI (sandboxed, mode none: play only, every frame
an image) against the scripted model (its own process, answering at once) through a `Runner` in a child process.
The scripted model plays RESET then ACTION1 until a play's answer asks it to stop (a hand-off, or the budget),
then ends its turn; a fresh session after a hand-off plays ACTION1 on. Each answer reports a context that grows
with the request (input tokens = K x its bytes, K per CLI below): enough for each CLI to reach its own compaction
point (Claude Code ~967,000 tokens for claude-opus-4-8, Codex 244,800 for gpt-5.5) about once in 1,000 actions.
handoff is --context handoff:N at half that point.

Every 0.5 s: the harness's RSS (the agent-eval process) and the CLI's (its process tree inside the sandbox), from
/proc. At the end, from the item's gateway.jsonl (one line per model request): the image blocks each request
carried (repeats included: what an API's image limit counts) and its bytes; from the record: sessions, hand-offs,
compactions, the status. Printed as a table, written as JSON with --out."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from arcgames_play import DISTINCT, descendants, rss_mb, write_distinct_game  # noqa: E402

TOKENS_PER_BYTE = {"claude-code": 1.0, "codex": 0.25}
CLI_POINT = {"claude-code": 967_000, "codex": 244_800}  # docs/cli-notes.md, "Context compaction"
CLI_NAMES = {"claude-code": "claude", "codex": "codex"}
FRESH = "handed it on"  # words only a hand-off session's prompt has
STOP = r"<answer>(HANDOFF|DONE)</answer>"  # what play's answer asks for when the agent must stop


def policies(agent: str, images: int, handoff: int | None) -> dict[str, dict]:
    return {
        "native": {},
        "handoff": {"context": f"handoff:{handoff or CLI_POINT[agent] // 2}"},
        "handoff:cli": {"context": "handoff:cli"},
        "images": {"session_images": images},
    }


def scenario(agent: str, actions: int, scale: float = 1.0) -> dict:
    def rule(turns: list[dict], match: str | None = None) -> dict:
        out = {
            "turns": turns + [{"final": "<answer>DONE</answer>"}],
            "tokens_per_byte": TOKENS_PER_BYTE[agent] * scale,
            "stop": {"when": STOP, "final": "Stopping as asked. <answer>HANDOFF</answer>"},
        }
        return out | ({"match": match} if match else {})

    play = [{"call": "play", "input": {"action": "ACTION1"}}] * actions
    return {"rules": [rule(play, FRESH), rule([{"call": "play", "input": {"action": "RESET"}}] + play)]}


HARNESS = textwrap.dedent("""
    # The harness alone in this process: one Runner, one game item, the CLI sandboxed, the model elsewhere.
    import json, sys
    from pathlib import Path
    spec = json.loads(sys.argv[1])
    from rich.console import Console
    from agent_eval.agents.registry import agent_class, efforts_by_agent, scripted_environ
    from agent_eval.benchmarks import load_benchmark
    from agent_eval.datamodel.config import RunConfig
    from agent_eval.engine.runner import Runner
    from agent_eval.engine.selection import select

    benchmark, dataset = load_benchmark(Path(spec["games"]))
    config = RunConfig(
        agent=spec["agent"], model=agent_class(spec["agent"]).demo_model, tools="none", jobs=1,
        timeout_s=spec["timeout_s"], unpriced=True, kind_options=spec["options"],
    )
    config.validate(efforts_by_agent())
    runner = Runner(
        config, benchmark, dataset, select(dataset, tasks=spec["game"]), Path(spec["out"]), run_name="long",
        console=Console(file=sys.stderr), environ=scripted_environ(spec["agent"], spec["url"]), scripted_model=True,
    )
    record = runner.run().store.records()[0]
    print(json.dumps({
        "status": record.status, "error": record.error, "actions": (record.metrics or {}).get("actions"),
        "sessions": record.sessions, "handoffs": record.handoffs, "compactions": record.compactions,
        "observations": (record.metrics or {}).get("observations"),
    }))
""")


def cli_rss_mb(harness_pid: int, cli: str) -> float:
    """The CLI's processes (under the harness, inside the sandbox): their RSS summed."""
    total = 0.0
    for pid in descendants(harness_pid):
        try:
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if name.startswith(cli):
            total += rss_mb(pid) or 0.0
    return total


def play(agent: str, policy: str, options: dict, actions: int, tmp: Path, scale: float = 1.0) -> dict:
    out = tmp / f"{agent}-{policy.replace(':', '-')}"
    (out / "scenario.json").parent.mkdir(parents=True)
    (out / "scenario.json").write_text(json.dumps(scenario(agent, actions, scale)))
    python = ROOT / ".venv" / "bin" / "python"
    model = subprocess.Popen(
        [str(python), "-m", "agent_eval.scripted", "--scenario", str(out / "scenario.json")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        spec = {
            "games": str(tmp / "games"),
            "game": DISTINCT,
            "agent": agent,
            "options": {"max_actions": actions, **options},
            "timeout_s": max(1800.0, actions * 2.0),
            "out": str(out),
            "url": model.stdout.readline().strip(),
        }
        started = time.perf_counter()
        harness = subprocess.Popen(
            [str(python), "-c", HARNESS, json.dumps(spec)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        harness_peak = cli_peak = 0.0
        while harness.poll() is None:
            harness_peak = max(harness_peak, rss_mb(harness.pid) or 0.0)
            cli_peak = max(cli_peak, cli_rss_mb(harness.pid, CLI_NAMES[agent]))
            time.sleep(0.5)
        wall = time.perf_counter() - started
        record = json.loads(harness.stdout.read().strip().splitlines()[-1])
    finally:
        model.terminate()
        model.wait()
    item = out / "long" / "sandboxes" / DISTINCT
    lines = [json.loads(line) for line in (item / "gateway.jsonl").read_text().splitlines()]
    main = [line for line in lines if line.get("tools_offered")]  # the model's requests (not side requests)
    blocks = [line["image_blocks"] for line in main]
    return {
        "agent": agent,
        "policy": policy,
        "options": options,
        "tokens_per_byte": TOKENS_PER_BYTE[agent] * scale,
        **record,
        "wall_s": round(wall, 1),
        "requests": len(main),
        "images_per_request_max": max(blocks, default=0),
        "images_per_request_at": {
            f"{q}%": blocks[min(len(blocks) - 1, len(blocks) * q // 100)] for q in (25, 50, 75, 100)
        }
        if blocks
        else {},
        "request_mb_max": round(max((line["request_bytes"] for line in main), default=0) / 1e6, 2),
        "harness_rss_peak_mb": round(harness_peak),
        "cli_rss_peak_mb": round(cli_peak),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="claude-code,codex")
    parser.add_argument("--policies", default="native,handoff,handoff:cli,images")
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--out", type=Path, help="the figures as JSON")
    parser.add_argument("--session-images", type=int, default=600, help="the images policy's cap (VISTA: 600)")
    parser.add_argument("--handoff-tokens", type=int, help="the handoff policy's N (default: half the CLI's point)")
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="K x this: a shorter game that still reaches the CLI's point (2: at 1,000)",
    )
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="arc-context-"))
    write_distinct_game(tmp / "games")
    results = []
    for agent in args.agents.split(","):
        for policy in args.policies.split(","):
            options = policies(agent, args.session_images, args.handoff_tokens)[policy]
            result = play(agent, policy, options, args.actions, tmp, args.scale)
            results.append(result)
            print(json.dumps(result), flush=True)
            if args.out:
                args.out.write_text(json.dumps(results, indent=1))
    print(
        f"\n{'agent':12} {'policy':12} {'status':8} {'actions':>7} {'sess':>4} {'hand':>4} {'comp':>4} "
        f"{'img/req max':>11} {'img/req 25/50/75/100%':>22} {'req MB':>6} {'harness MB':>10} {'CLI MB':>6} "
        f"{'wall s':>6}"
    )
    for r in results:
        at = "/".join(str(v) for v in r["images_per_request_at"].values())
        row = [r["agent"], r["policy"], r["status"], r["actions"] or 0, r["sessions"], r["handoffs"]]
        row += [r["compactions"], r["images_per_request_max"], at, r["request_mb_max"]]
        row += [r["harness_rss_peak_mb"], r["cli_rss_peak_mb"], r["wall_s"]]
        widths = (-12, -12, -8, 7, 4, 4, 4, 11, 22, 6, 10, 6, 6)
        print(" ".join(f"{value:<{-w}}" if w < 0 else f"{value:>{w}}" for value, w in zip(row, widths)))


if __name__ == "__main__":
    main()
