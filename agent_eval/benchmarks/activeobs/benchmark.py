"""Active observation: questions about a panoramic video the agent never sees whole. It asks for views through the
`observe` tool, served from outside the sandbox for one item at a time; the answer and its evidence are graded."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Callable, Iterator

from agent_eval.benchmarks.activeobs.grading import grade_active, rules_hash
from agent_eval.benchmarks.activeobs.loader import ActiveDataset, load_active_dataset
from agent_eval.benchmarks.activeobs.metrics import ActiveObsMetrics
from agent_eval.benchmarks.activeobs.passive import passive_preamble, write_passive_sample
from agent_eval.benchmarks.activeobs.prompting import answer_instructions, question_block, world_model_text
from agent_eval.benchmarks.activeobs.schema import ActiveItem
from agent_eval.benchmarks.activeobs.seen import PASSIVE_FILE, seen_metrics
from agent_eval.benchmarks.activeobs.worldmodel import FOLDER, WorldGraph, passive_sightings, sightings_from_log
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
NOTES_TEXT = (  # what the notes are for (the prompt's paragraph when the run gives them): nothing of how to answer
    "You keep two notes, read with `read_notes` and replaced with `write_note`: {kinds}. They are kept outside this "
    "conversation."
)


class ActiveObservation(Benchmark):
    name = "activeobs"
    tool_modes = ("none", "observe", "python")

    def __init__(self):
        self.dataset: ActiveDataset | None = None  # set by load()
        self.world_model = False
        self.notes = False

    def configure(self, options: dict, timeout_s: float | None = None) -> None:
        self.world_model = options.get("world_model") == "on"
        self.notes = options.get("notes") == "on"

    def write_samples(self, out: Path, seed: int, per_task: int, difficulty: str) -> list[str]:
        from agent_eval.benchmarks.activeobs.generate import generate_dataset, validation_summary
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
        wanted = {OBSERVE_MODULE: tools != "none", WORLD_MODEL_MODULE: self.world_model, NOTES_MODULE: self.notes}
        for module in (name for name, used in wanted.items() if used):  # each imports the MCP SDK
            load_in_background(module)

    def truth_text(self, item) -> str:
        return item.truth_text()

    @contextlib.contextmanager
    def setup(
        self, item, tools: str, work: Path, home: Path, item_root: Path, template_text: str
    ) -> Iterator[ItemSetup]:
        dataset = self.dataset
        assert dataset is not None, "setup() comes after load()"
        question = question_block(item) + "\n\n" + answer_instructions(item, passive=tools == "none")
        if self.world_model:
            question = world_model_text(passive=tools == "none") + "\n\n" + question
        if self.notes:
            question = NOTES_TEXT.format(kinds=describe(NOTE_PURPOSES)) + "\n\n" + question
        servers: list[McpServer] = []
        endpoints: list[str] = []
        inline: list[Path] = []
        scene = dataset.scene(item.sequence)
        with contextlib.ExitStack() as stack:

            def serve(module_name: str, build: Callable) -> None:
                """One of the item's MCP servers, mounted on the shared host for as long as the item runs."""
                module = load_sdk_module(module_name)
                mount = stack.enter_context(McpHost.shared().mount(lambda: build(module), name=module.SERVER_NAME))
                servers.append(McpServer(module.SERVER_NAME, module.TOOL_NAMES, url=mount.url))
                endpoints.append(mount.endpoint)

            log = None
            if tools == "none":
                # The passive baseline: a fixed sample of whole panorama frames, inline; no tools but the world
                # model's and the notes', if asked for (the world model's entities then cite those frames).
                frames = write_passive_sample(scene, home / "passive")
                record_passive(item_root, frames)
                question = passive_preamble(frames, scene) + "\n\n" + question
                inline = [frame.path for frame in frames]
                shown = passive_sightings([(frame.frame, frame.time_s) for frame in frames])
            else:
                views = work / "views" if tools == "python" else None  # python mode may process what it saw
                log = load_sdk_module(OBSERVE_MODULE).ObservationLog(item_root / "observations", views)
                serve(OBSERVE_MODULE, lambda module: module.build_server({item.sequence: scene}, log))

            def sightings() -> dict:
                return shown if log is None else sightings_from_log(list(log.entries))

            def where() -> dict:
                return {} if log is None else {"observations": len(log.entries)}

            if self.world_model:  # kept in <item>/worldmodel/
                graph = WorldGraph(item_root / FOLDER, sightings, passive=tools == "none")
                serve(WORLD_MODEL_MODULE, lambda module: module.build_server(graph))
            if self.notes:  # GUIDE.md, WORKING.md in <item>/notes/
                notes = Notes(item_root, NOTE_PURPOSES)
                serve(NOTES_MODULE, lambda module: module.build_server(notes, where))
            if tools == "python":
                inspection, endpoint = stack.enter_context(image_tools(work))
                servers.append(inspection)
                endpoints.append(endpoint)
            toolset = ToolSet(shell=tools == "python", view_file=tools == "python", mcp=tuple(servers))
            yield ItemSetup(render(template_text, question, ""), toolset, inline_images=inline, endpoints=endpoints)

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
        from agent_eval.benchmarks.activeobs.evidence import active_rollup

        return {"active_observation": active_rollup(records)}


def record_passive(item_root: Path, frames) -> None:
    """The frames mode none showed, numbered as the prompt names them: what its evidence may point at."""
    folder = item_root / "observations"
    folder.mkdir(parents=True, exist_ok=True)
    shown = [{"n": n, "frame": f.frame, "time_s": f.time_s} for n, f in enumerate(frames, start=1)]
    (folder / PASSIVE_FILE).write_text(json.dumps(shown), encoding="utf-8")
