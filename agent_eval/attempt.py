"""One attempt at one item: a fresh item dir, what the benchmark gives the agent, the agent's command
inside the sandbox, the events captured, parsed, classified and graded into an ItemRecord."""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .agents.base import Agent, Auth, ItemContext
from .agents.failures import classify
from .benchmarks import Benchmark
from .config import RunConfig
from .process import run_process
from .prompts import PromptTemplate
from .records import ItemRecord
from .sandbox import Sandbox, SandboxSpec


@dataclass(frozen=True)
class ItemDir:
    """`<run>/sandboxes/<item>/`: only `work/` and `home/` are ever visible to the agent."""
    root: Path

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def transcript(self) -> Path:
        return self.root / "transcript.jsonl"

    @property
    def steps(self) -> Path:
        return self.root / "steps.json"

    @property
    def stderr(self) -> Path:
        return self.root / "stderr.log"

    @property
    def meta(self) -> Path:
        return self.root / "meta.json"

    def fresh(self) -> None:
        """Start clean; an earlier attempt is moved to `.attempts/`, never deleted silently."""
        if self.root.exists():
            archive = self.root.parent / ".attempts"
            archive.mkdir(exist_ok=True)
            number = len(list(archive.glob(f"{self.root.name}.*"))) + 1
            self.root.rename(archive / f"{self.root.name}.{number}")
        self.work.mkdir(parents=True)
        self.home.mkdir()


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def run_attempt(item, repeat: int, item_dir: ItemDir, run_root: Path, agent: Agent, auth: Auth,
                config: RunConfig, benchmark: Benchmark, template: PromptTemplate,
                cancel: threading.Event | None = None) -> ItemRecord | None:
    """Returns None when cancelled (Ctrl-C): nothing is recorded, so a rerun does the item."""
    started_at = now_iso()
    item_dir.fresh()
    agent.copy_credentials(auth, item_dir.home)
    with benchmark.setup(item, config.tools, item_dir.work, item_dir.home, item_dir.root, template.text) as setup:
        ctx = ItemContext(
            item_id=item.id, model=config.model, effort=config.effort, max_turns=config.max_turns,
            max_cost_usd=config.max_item_cost_usd,
            prompt=setup.prompt, workdir=item_dir.work, home=item_dir.home, tools=setup.tools,
            inline_images=setup.inline_images, auth=auth,
        )
        invocation = agent.prepare(ctx)
        spec = SandboxSpec(workdir=item_dir.work, home=item_dir.home, endpoints=auth.endpoints + setup.endpoints,
                           env=invocation.env)
        with Sandbox(spec, kind=config.sandbox) as sandbox:
            argv, env = sandbox.wrap(invocation.argv)
            item_dir.meta.write_text(json.dumps({
                "argv": argv, "env_names": sorted(env), "cwd": str(item_dir.work), "sandbox": config.sandbox,
                "prompt": ctx.prompt, "started_at": started_at,
            }, indent=1))
            result = run_process(argv, env, item_dir.work, invocation.stdin, item_dir.transcript, item_dir.stderr,
                                 config.timeout_s, watch=agent.watcher(), cancel=cancel)
    if result.interrupted:
        return None
    transcript = agent.parse(result.events, item_dir.root, config.model)
    transcript.prompt = ctx.prompt
    transcript.prompt_images = [str(path.relative_to(item_dir.root)) for path in setup.inline_images]
    transcript.save(item_dir.steps)
    graded = benchmark.grade(transcript.final_text, item)
    outcome = classify(result, transcript, graded.has_answer_tag, config.timeout_s)
    status, error = outcome.status, outcome.error
    if status == "ok" and graded.malformed:
        status, error = "no_answer", "the answer tag holds no readable answer"
    scored = status in ("ok", "no_answer")
    return ItemRecord(
        id=item.id, task=item.task, category=item.category, ground_truth=benchmark.truth_text(item),
        status=status, error=error,
        prediction=graded.prediction if scored else "",
        # no_answer is still graded as the benchmark does (whole text, no tag), so accuracy matches it.
        correct=graded.correct if scored else False,
        answer_text=transcript.final_text, elapsed_s=result.elapsed_s, usage=transcript.usage,
        cost_usd=transcript.cost_usd, num_turns=transcript.num_turns, tool_calls=transcript.tool_calls,
        transcript=str(item_dir.transcript.relative_to(run_root)), repeat=repeat,
        api_retries=list(transcript.api_retries), metrics=graded.metrics if scored else {},
        started_at=started_at, finished_at=now_iso(),
    )
