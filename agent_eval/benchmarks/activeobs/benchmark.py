"""Active observation: questions about a panoramic video the agent never sees whole. It asks for
views through the `observe` tool, served from outside the sandbox for one item at a time; the
answer and its evidence are graded (agent_eval/benchmarks/activeobs, docs/kinds/activeobs.md)."""

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
from agent_eval.benchmarks.activeobs.loader import ActiveDataset, load_active_dataset
from agent_eval.benchmarks.activeobs.metrics import ActiveObsMetrics
from agent_eval.benchmarks.activeobs.passive import (
    passive_preamble,
    write_passive_sample,
)
from agent_eval.benchmarks.activeobs.prompting import (
    answer_instructions,
    question_block,
    world_model_text,
)
from agent_eval.benchmarks.activeobs.schema import ActiveItem
from agent_eval.benchmarks.activeobs.seen import PASSIVE_FILE, seen_metrics
from agent_eval.benchmarks.activeobs.worldmodel import passive_sightings, sightings_from_log
from agent_eval.benchmarks.base import Benchmark, BenchmarkGrade, Item, ItemSetup
from agent_eval.benchmarks.notes import Notes, describe
from agent_eval.benchmarks.shared import image_tools, render
from agent_eval.datamodel.itemdir import ItemDir
from agent_eval.tools.mcp_http import McpHost, load_in_background, load_sdk_module
from agent_eval.tools.toolset import McpServer, ToolSet

OBSERVE_MODULE = "agent_eval.benchmarks.activeobs.observe_server"
WORLD_MODEL_MODULE = "agent_eval.benchmarks.activeobs.worldmodel_server"
NOTES_MODULE = "agent_eval.benchmarks.notes_server"
NOTE_PURPOSES = {  # what each of the agent's notes is for, on a scene (nothing of how to answer)
    "GUIDE.md": "what you have found out about the scene: who and what is where, and when",
    "WORKING.md": "what you are looking for now, where you have looked and what is left",
}


class ActiveObservation(Benchmark):
    name = "activeobs"
    tool_modes = ("none", "observe", "python")

    def __init__(self):
        self.dataset: ActiveDataset | None = None  # set by load()
        self.world_model = False
        self.notes = False

    def configure(self, options: dict, timeout_s: float | None = None) -> None:
        for name in ("world_model", "notes"):
            value = options.get(name) or "off"
            if value not in ("on", "off"):
                raise ValueError(f"--{name.replace('_', '-')} must be on or off, got {value!r}")
            setattr(self, name, value == "on")

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
        if self.world_model:
            load_in_background(WORLD_MODEL_MODULE)
        if self.notes:
            load_in_background(NOTES_MODULE)

    def truth_text(self, item) -> str:
        return item.truth_text()

    @contextlib.contextmanager
    def setup(
        self, item, tools: str, work: Path, home: Path, item_root: Path, template_text: str
    ) -> Iterator[ItemSetup]:
        dataset = self.dataset
        assert dataset is not None, "setup() comes after load()"
        scene_path = dataset.scene_path(item.sequence)
        question = question_block(item) + "\n\n" + answer_instructions(item, passive=tools == "none")
        if self.world_model:
            question = world_model_text(passive=tools == "none") + "\n\n" + question
        if self.notes:
            question = notes_text() + "\n\n" + question
        with contextlib.ExitStack() as stack:
            if tools == "none":
                # The passive baseline: a fixed sample of whole panorama frames, inline; no tools but the world
                # model's, if asked for (its entities then cite those frames).
                frames = write_passive_sample(dataset.scene(item.sequence), home / "passive")
                record_passive(item_root, frames)
                question = passive_preamble(frames, dataset.scene(item.sequence)) + "\n\n" + question
                servers, endpoints = [], []
                if self.world_model:
                    sightings = passive_sightings([(frame.frame, frame.time_s) for frame in frames])
                    world, endpoint = self._world_model(stack, item_root, lambda: sightings, passive=True)
                    servers, endpoints = [world], [endpoint]
                if self.notes:
                    notes, endpoint = self._notes(stack, item_root, lambda: {})
                    servers.append(notes)
                    endpoints.append(endpoint)
                toolset = ToolSet(mcp=tuple(servers))
                yield ItemSetup(
                    prompt=render(template_text, question, ""),
                    tools=toolset,
                    inline_images=[frame.path for frame in frames],
                    endpoints=endpoints,
                )
                return
            observe_server = load_sdk_module(OBSERVE_MODULE)
            ObservationServer, OBSERVE_SERVER, TOOL_NAME = (
                observe_server.ObservationServer,
                observe_server.SERVER_NAME,
                observe_server.TOOL_NAME,
            )
            views = work / "views" if tools == "python" else None  # python mode may process what it saw
            server = stack.enter_context(ObservationServer(scene_path, item_root / "observations", views_dir=views))
            observe = McpServer(OBSERVE_SERVER, (TOOL_NAME,), url=server.url)
            servers, endpoints = [observe], [server.endpoint]
            log = server.log
            if self.world_model:
                world, endpoint = self._world_model(stack, item_root, lambda: sightings_from_log(list(log.entries)))
                servers.append(world)
                endpoints.append(endpoint)
            if self.notes:
                notes, endpoint = self._notes(stack, item_root, lambda: {"observations": len(log.entries)})
                servers.append(notes)
                endpoints.append(endpoint)
            toolset = ToolSet(mcp=tuple(servers))
            if tools == "python":
                inspection, endpoint = stack.enter_context(image_tools(work))
                toolset = ToolSet(shell=True, view_file=True, mcp=(*servers, inspection))
                endpoints.append(endpoint)
            yield ItemSetup(prompt=render(template_text, question, ""), tools=toolset, endpoints=endpoints)

    @staticmethod
    def _world_model(stack: contextlib.ExitStack, item_root: Path, sightings, passive: bool = False):
        """The item's world-model server, kept in <item>/worldmodel/: (its McpServer, its endpoint)."""
        from agent_eval.benchmarks.activeobs.worldmodel import FOLDER, WorldGraph

        module = load_sdk_module(WORLD_MODEL_MODULE)
        graph = WorldGraph(item_root / FOLDER, sightings, passive=passive)
        server = stack.enter_context(module.world_model_server(graph))
        return McpServer(module.SERVER_NAME, module.TOOL_NAMES, url=server.url), server.endpoint

    @staticmethod
    def _notes(stack: contextlib.ExitStack, item_root: Path, where):
        """The item's notes server (GUIDE.md, WORKING.md in <item>/notes/): (its McpServer, its endpoint)."""
        module = load_sdk_module(NOTES_MODULE)
        notes = Notes(item_root, NOTE_PURPOSES)
        mount = stack.enter_context(
            McpHost.shared().mount(lambda: module.build_server(notes, where), name=module.SERVER_NAME)
        )
        return McpServer(module.SERVER_NAME, module.TOOL_NAMES, url=mount.url), mount.endpoint

    def grade(self, final_text: str | None, item: Item, item_dir: ItemDir) -> BenchmarkGrade:
        assert isinstance(item, ActiveItem), item  # this kind's own dataset gives its items
        graded = grade_active(final_text, item)
        metrics = ActiveObsMetrics(
            family=item.family,
            answer_correct=graded.answer_correct,
            evidence_correct=graded.evidence_correct,
            combined=graded.combined,
            evidence=graded.evidence,
            grade_detail=graded.detail,
            **seen_metrics(graded.evidence, item_dir.root, item.width, item.height),
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


def record_passive(item_root: Path, frames) -> None:
    """The frames mode none showed, numbered as the prompt names them: what its evidence may point at."""
    folder = item_root / "observations"
    folder.mkdir(parents=True, exist_ok=True)
    shown = [{"n": n, "frame": f.frame, "time_s": f.time_s} for n, f in enumerate(frames, start=1)]
    (folder / PASSIVE_FILE).write_text(json.dumps(shown), encoding="utf-8")


def notes_text() -> str:
    """What the notes are for (the prompt's paragraph when the run gives them): nothing of how to answer."""
    kinds = describe(NOTE_PURPOSES)
    return (
        f"You keep two notes, read with `read_notes` and replaced with `write_note`: {kinds}. They are kept outside "
        f"this conversation."
    )
