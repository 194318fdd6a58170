"""Running the real agent CLIs against the scripted model server, for end-to-end tests."""

from __future__ import annotations

import os
import time
from pathlib import Path

from rich.console import Console

from agent_eval.agents.registry import agent_class, efforts_by_agent, names, scripted_environ
from agent_eval.benchmarks import load_benchmark
from agent_eval.datamodel.config import RunConfig
from agent_eval.engine.runner import Runner
from agent_eval.engine.selection import select
from agent_eval.scripted import ScriptedServer

AGENTS = names()  # every registered CLI runs in the end-to-end tests
MODELS = {agent: agent_class(agent).demo_model for agent in AGENTS}


def run_agent(
    agent: str,
    tools: str,
    server: ScriptedServer,
    data_dir: Path,
    out_dir: Path,
    ids: str | None = None,
    tasks: str | None = None,
    jobs: int = 2,
    timeout_s: float = 90,
    sandbox: str = "bwrap",
    retry_wait_s: float = 0.5,
    run_name: str | None = None,
    environ: dict | None = None,
    **config,
):
    benchmark, dataset = load_benchmark(data_dir)
    items = select(dataset, ids=ids, tasks=tasks)
    config.setdefault("unpriced", True)  # a test's model name need not be one the price map knows
    config.setdefault("model", MODELS[agent])
    run_config = RunConfig(agent=agent, tools=tools, sandbox=sandbox, jobs=jobs, timeout_s=timeout_s, **config)
    run_config.validate(efforts_by_agent())
    runner = Runner(
        run_config,
        benchmark,
        dataset,
        items,
        out_dir,
        run_name=run_name,
        console=Console(file=open(os.devnull, "w")),
        environ=environ or scripted_environ(agent, server.url),
        scripted_model=True,
        retry_wait_s=retry_wait_s,
    )
    return runner.run()


def processes_mentioning(text: str) -> list[str]:
    """Command lines of live processes whose argv or environment mentions `text`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if text.encode() in cmdline or text.encode() in environ:
            found.append(pid + ": " + cmdline.replace(b"\0", b" ").decode(errors="replace")[:200])
    return found


def wait_until_gone(marker: str, deadline_s: float = 20.0) -> list[str]:
    """Processes still mentioning `marker` at the deadline (returns as soon as there are none)."""
    deadline = time.monotonic() + deadline_s
    left = processes_mentioning(marker)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = processes_mentioning(marker)
    return left


def system_texts(agent: str, body: dict) -> list[str]:
    """What stands in the system prompt's place in a request body: Claude Code's `system` blocks; Codex's developer
    messages (0.171 sends no `instructions` field for these models: its base instructions are the first one)."""
    if agent == "claude-code":
        return [block["text"] for block in body["system"]]
    return [
        part["text"]
        for item in body["input"]
        if item.get("type") == "message" and item.get("role") == "developer"
        for part in item["content"]
    ]
