"""Active observation: questions about a panoramic video the agent never sees whole. It asks for
views through the `observe` tool, served from outside the sandbox for one item at a time; the
answer and its evidence are graded (agent_eval/benchmarks/activeobs, docs/active-observation.md)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Iterator

from agent_eval.benchmarks.activeobs.grading import (
    grade_active,
    rollup_active,
    rules_hash,
)
from agent_eval.benchmarks.activeobs.loader import load_active_dataset
from agent_eval.benchmarks.activeobs.metrics import ActiveObsMetrics
from agent_eval.benchmarks.activeobs.passive import (
    passive_preamble,
    write_passive_sample,
)
from agent_eval.benchmarks.activeobs.prompting import (
    answer_instructions,
    question_block,
)
from agent_eval.benchmarks.activeobs.schema import ActiveItem
from agent_eval.benchmarks.base import Benchmark, BenchmarkGrade, ItemSetup
from agent_eval.benchmarks.shared import image_tools, render
from agent_eval.datamodel.itemdir import ItemDir
from agent_eval.tools.mcp_http import load_in_background, load_sdk_module
from agent_eval.tools.toolset import McpServer, ToolSet

OBSERVE_MODULE = "agent_eval.benchmarks.activeobs.observe_server"


class ActiveObservation(Benchmark):
    name = "activeobs"
    tool_modes = ("none", "observe", "python")

    def __init__(self):
        self.dataset = None

    def write_samples(self, out: Path, seed: int, per_task: int, difficulty: str) -> list[str]:
        from agent_eval.benchmarks.activeobs.generate import (
            generate_dataset,
            validation_summary,
        )
        from agent_eval.datamodel.jsonl import DataError

        if out.exists() and any(out.iterdir()):
            raise DataError(f"{out} exists and is not empty; choose a new directory")
        dataset = generate_dataset(out, per_family=per_task, seed=seed)
        return [
            f"wrote {len(dataset.items)} active-observation items to {out}/items.jsonl (+ scenes/)",
            f"{validation_summary(out)} (details: {out}/validation.json)",
        ]

    def reading(self):
        from agent_eval.benchmarks.activeobs.hooks import ActiveReading

        return ActiveReading()

    def load(self, root: Path):
        self.dataset = load_active_dataset(root)
        return self.dataset

    def warm_up(self, tools: str) -> None:
        if tools != "none":
            load_in_background(OBSERVE_MODULE)  # the MCP SDK

    def truth_text(self, item) -> str:
        return item.truth_text()

    @contextlib.contextmanager
    def setup(
        self, item, tools: str, work: Path, home: Path, item_root: Path, template_text: str
    ) -> Iterator[ItemSetup]:
        scene_path = self.dataset.scene_path(item.sequence)
        question = question_block(item) + "\n\n" + answer_instructions(item, passive=tools == "none")
        if tools == "none":
            # The passive baseline: a fixed sample of whole panorama frames, inline; no tools.
            frames = write_passive_sample(self.dataset.scene(item.sequence), home / "passive")
            question = passive_preamble(frames, self.dataset.scene(item.sequence)) + "\n\n" + question
            yield ItemSetup(
                prompt=render(template_text, question, ""),
                tools=ToolSet(),
                inline_images=[frame.path for frame in frames],
            )
            return
        observe_server = load_sdk_module(OBSERVE_MODULE)
        ObservationServer, OBSERVE_SERVER, TOOL_NAME = (
            observe_server.ObservationServer,
            observe_server.SERVER_NAME,
            observe_server.TOOL_NAME,
        )
        views = work / "views" if tools == "python" else None  # python mode may process what it saw
        with contextlib.ExitStack() as stack:
            server = stack.enter_context(ObservationServer(scene_path, item_root / "observations", views_dir=views))
            observe = McpServer(OBSERVE_SERVER, (TOOL_NAME,), url=server.url)
            toolset, endpoints = ToolSet(mcp=(observe,)), [server.endpoint]
            if tools == "python":
                inspection, endpoint = stack.enter_context(image_tools(work))
                toolset = ToolSet(shell=True, view_file=True, mcp=(observe, inspection))
                endpoints.append(endpoint)
            yield ItemSetup(prompt=render(template_text, question, ""), tools=toolset, endpoints=endpoints)

    def grade(self, final_text: str | None, item: ActiveItem, item_dir: ItemDir) -> BenchmarkGrade:
        graded = grade_active(final_text, item)
        metrics = ActiveObsMetrics(
            family=item.family,
            answer_correct=graded.answer_correct,
            evidence_correct=graded.evidence_correct,
            combined=graded.combined,
            evidence=graded.evidence,
            grade_detail=graded.detail,
        )
        return BenchmarkGrade(
            prediction=json.dumps(graded.prediction) if graded.prediction is not None else "",
            correct=graded.answer_correct,
            has_answer_tag=graded.has_answer_tag,
            malformed=graded.status == "no_answer" and graded.has_answer_tag,
            metrics=metrics,
        )

    def scorer_hash(self) -> str:
        return rules_hash()

    def extra_rollup(self, records: list) -> dict | None:
        rows = [
            {**ActiveObsMetrics.of(record).to_json(), "status": record.status, "family": record.category}
            for record in records
        ]
        return {"active_observation": rollup_active(rows)}
