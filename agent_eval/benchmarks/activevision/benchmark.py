"""ActiveVision-style static images: one image and one question per item, graded by the shared scorer."""

from __future__ import annotations

import contextlib
from pathlib import Path

from agent_eval.benchmarks.activevision.loader import ActiveVisionItem, load_dataset
from agent_eval.benchmarks.activevision.scoring import grade, scorer_hash
from agent_eval.benchmarks.base import Benchmark, BenchmarkGrade, Item, ItemSetup
from agent_eval.benchmarks.shared import IMAGE_TOOLS_MODULE, image_toolset, place_image, render
from agent_eval.datamodel.itemdir import ItemDir
from agent_eval.datamodel.records import ItemRecord
from agent_eval.tools.mcp_http import load_in_background
from agent_eval.tools.toolset import ToolSet


class ActiveVision(Benchmark):
    name = "activevision"

    def load(self, root: Path):
        return load_dataset(root)

    def bundled_samples(self) -> Path:
        from agent_eval.benchmarks.activevision.samples import ensure_default_sample_set

        return ensure_default_sample_set()

    def write_samples(self, out: Path, seed: int, per_task: int, difficulty: str) -> list[str]:
        from agent_eval.benchmarks.activevision.samples import SampleError, write_sample_set
        from agent_eval.datamodel.jsonl import DataError

        try:
            rows = write_sample_set(out, seed=seed, per_task=per_task, difficulty=difficulty)
        except SampleError as error:
            raise DataError(str(error)) from None
        return [f"wrote {len(rows)} items to {out}/metadata.jsonl"]

    def warm_up(self, tools: str) -> None:
        if tools != "none":
            load_in_background(IMAGE_TOOLS_MODULE)

    @contextlib.contextmanager
    def setup(self, item: ActiveVisionItem, tools: str, work: Path, home: Path, item_root: Path, template_text: str):
        conversions: list[str] = []
        if tools == "none":
            # Attached to the first message; kept in the private home, which no tool can reach in this mode.
            inline = place_image(item.image, home / "attachment", conversions)
            prompt = render(template_text, item.question, "the attached image")
            yield ItemSetup(prompt, ToolSet(), [inline], conversions=conversions)
            return
        image = place_image(item.image, work / "image", conversions)  # a neutral name: nothing about the item
        with image_toolset(work, tools) as (toolset, endpoints):
            prompt = render(template_text, item.question, image.name)
            yield ItemSetup(prompt, toolset, endpoints=endpoints, conversions=conversions)

    def grade(self, final_text: str | None, item: Item, item_dir: ItemDir) -> BenchmarkGrade:
        assert isinstance(item, ActiveVisionItem), item  # this kind's own dataset gives its items
        return _graded(final_text, item.answer)

    def scorer_hash(self) -> str:
        return scorer_hash()

    needs_dataset_to_regrade = False  # the record holds the truth, which is all the scorer reads

    def regrade(
        self, answer_text: str | None, record: ItemRecord, item: Item | None, item_dir: ItemDir
    ) -> BenchmarkGrade:
        return _graded(answer_text, record.ground_truth)


def _graded(text: str | None, truth: str) -> BenchmarkGrade:
    graded = grade(text or "", truth)
    return BenchmarkGrade(graded.prediction, graded.correct, graded.has_answer_tag)
