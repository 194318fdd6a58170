"""BabyVision's layout (meta_data.jsonl beside the images), asked with the reference's question text and
graded as the reference grades it: the last \\boxed{} answer, judged by a model against the truth."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_eval.benchmarks.babyvision import boxed, grading, prompting
from agent_eval.benchmarks.babyvision.loader import BabyVisionItem, read_dataset
from agent_eval.benchmarks.base import BenchmarkGrade, Item
from agent_eval.benchmarks.fieldformats import FieldFormat, JudgedMetrics, paid_cost
from agent_eval.datamodel.itemdir import ItemDir


@dataclass
class BoxedMetrics(JudgedMetrics):
    extracted: str | None = None  # the last \boxed{} content (None: the reply has none)


class BabyVision(FieldFormat):
    name = "babyvision"
    judge_use = "for every item (the reference always judges)"

    def load(self, root: Path):
        return read_dataset(Path(root))

    def grade(self, final_text: str | None, item: Item, item_dir: ItemDir | None = None) -> BenchmarkGrade:
        # item_dir: unused, the grade reads the reply alone (so `agent-eval score` grades replies from a file)
        assert isinstance(item, BabyVisionItem), item  # this kind's own dataset gives its items
        graded = grading.grade_reply(final_text, item.prompt_text, item.answer, self.judge)
        metrics = BoxedMetrics(
            extracted=graded.extracted,
            judge_calls=(calls := [c.to_json() for c in graded.judge_calls]),
            judge_cost_usd=paid_cost(calls),
        )
        return BenchmarkGrade(
            prediction=graded.extracted or "",
            correct=graded.correct,
            # every reply is judged, a box or not (the judge sees "None"), as the reference does: a verdict
            has_answer_tag=True,
            metrics=metrics,
            ungraded=graded.ungraded,
        )

    def write_samples(self, out: Path, seed: int, per_task: int, difficulty: str) -> list[str]:
        from agent_eval.benchmarks.fieldsamples import write_babyvision_folder

        path = write_babyvision_folder(Path(out), seed, per_task)
        return [f"wrote {len(read_dataset(path.parent).items)} questions to {path} (run it with --data {path.parent})"]

    def rules_source(self) -> tuple:
        return (
            boxed.extract_boxed,
            boxed.BOXED.pattern,
            boxed.BOX_TOKENS.pattern,
            boxed.judge_verdict,
            prompting.JUDGE_TEMPLATE,
            prompting.judge_prompt,
            prompting.JUDGE_MAX_TOKENS,
            grading.grade_reply,
        )

    def reading(self):
        from agent_eval.benchmarks.babyvision.hooks import BabyVisionHooks

        return BabyVisionHooks()
