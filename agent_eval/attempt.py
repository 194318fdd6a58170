"""One attempt at one item: a fresh item dir, the agent's command inside the sandbox, the events
captured, parsed, classified and graded into an ItemRecord."""
from __future__ import annotations

import json
import shutil
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .agents.base import Agent, Auth, ItemContext
from .agents.failures import classify
from .config import RunConfig
from .data import Item
from .process import run_process
from .prompts import PromptTemplate
from .records import ItemRecord
from .sandbox import Sandbox, SandboxSpec
from .scoring import grade

IMAGE_TOOLS_MODULE = "agent_eval.imagetools.mcp_server"


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


def image_tools_command(workdir: Path) -> list[str]:
    return [sys.executable, "-m", IMAGE_TOOLS_MODULE, "--workdir", str(workdir)]


def run_attempt(item: Item, repeat: int, item_dir: ItemDir, run_root: Path, agent: Agent, auth: Auth,
                config: RunConfig, template: PromptTemplate,
                cancel: threading.Event | None = None) -> ItemRecord | None:
    """Returns None when cancelled (Ctrl-C): nothing is recorded, so a rerun does the item."""
    started_at = now_iso()
    item_dir.fresh()
    image_name = None
    if config.tools != "none":
        image_name = "image" + item.image.suffix.lower()
        shutil.copyfile(item.image, item_dir.work / image_name)
    inline = None
    if config.tools == "none":
        # Attached to the first message; kept in the private home, which no tool can reach in this mode.
        inline = item_dir.home / ("attachment" + item.image.suffix.lower())
        shutil.copyfile(item.image, inline)
    agent.copy_credentials(auth, item_dir.home)
    ctx = ItemContext(
        item_id=item.id, tools=config.tools, model=config.model, effort=config.effort,
        max_turns=config.max_turns, prompt=template.render(item.question, image_name or "the attached image"),
        workdir=item_dir.work, home=item_dir.home, image_in_workdir=image_name, inline_image=inline,
        image_tools_command=image_tools_command(item_dir.work), auth=auth,
    )
    invocation = agent.prepare(ctx)
    spec = SandboxSpec(workdir=item_dir.work, home=item_dir.home, endpoints=auth.endpoints, env=invocation.env)
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
    if inline is not None:
        transcript.prompt_images = [str(inline.relative_to(item_dir.root))]
    transcript.save(item_dir.steps)
    graded = grade(transcript.final_text or "", item.answer)
    outcome = classify(result, transcript, graded.has_answer_tag, config.timeout_s)
    scored = outcome.status in ("ok", "no_answer")
    return ItemRecord(
        id=item.id, task=item.task, category=item.category, ground_truth=item.answer,
        status=outcome.status, error=outcome.error,
        prediction=graded.prediction if scored else "",
        # no_answer is still graded as the benchmark does (whole text, no tag), so accuracy matches it.
        correct=graded.correct if scored else False,
        answer_text=transcript.final_text, elapsed_s=result.elapsed_s, usage=transcript.usage,
        cost_usd=transcript.cost_usd, num_turns=transcript.num_turns, tool_calls=transcript.tool_calls,
        transcript=str(item_dir.transcript.relative_to(run_root)), repeat=repeat,
        api_retries=list(transcript.api_retries),
        started_at=started_at, finished_at=now_iso(),
    )
