"""VLMEvalKit's TSV multiple-choice benchmarks (HR-Bench, V* Bench, MMBench-style files), asked with the
reference's prompt and graded by its rules, with a judge model where they cannot decide."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_eval.benchmarks.base import BenchmarkGrade, Item
from agent_eval.benchmarks.fieldformats import FieldFormat, JudgedMetrics
from agent_eval.benchmarks.vlmeval import grading, matching, prompting
from agent_eval.benchmarks.vlmeval.loader import TsvItem, read_tsv
from agent_eval.datamodel.itemdir import ItemDir


@dataclass
class McqMetrics(JudgedMetrics):
    option: str | None = None  # the option read from the reply ("Z": none of them)
    decided_by: str | None = None  # rules | judge | None (ungraded)


class VlmEvalMcq(FieldFormat):
    name = "vlmeval"
    judge_use = "only where the rules read no option"

    def load(self, root: Path):
        return read_tsv(Path(root))

    def grade(self, final_text: str | None, item: Item, item_dir: ItemDir | None = None) -> BenchmarkGrade:
        # item_dir: unused, the grade reads the reply alone (so `agent-eval score` grades replies from a file)
        assert isinstance(item, TsvItem), item  # this kind's own dataset gives its items
        graded = grading.grade_reply(final_text, item.question, item.options, item.answer, self.judge)
        metrics = McqMetrics.judged(graded.judge_calls, option=graded.option, decided_by=graded.decided_by)
        return BenchmarkGrade(
            prediction=graded.option or "",
            correct=graded.correct,
            has_answer_tag=graded.ungraded is None,
            metrics=metrics,
            ungraded=graded.ungraded,
        )

    def write_samples(self, out: Path, seed: int, per_task: int, difficulty: str) -> list[str]:
        from agent_eval.benchmarks.fieldsamples import write_vlmeval_tsv

        path = write_vlmeval_tsv(Path(out), seed, per_task)
        return [f"wrote {len(read_tsv(path).items)} questions to {path} (run it with --data {path})"]

    def rules_source(self) -> tuple:
        return (
            matching.infer_option,
            matching.infer_text,
            matching.infer,
            matching.REFUSALS,
            matching.VERBOSE_ANSWER.pattern,
            prompting.judge_prompt,
            prompting.JUDGE_TEMPLATE_EN,
            prompting.JUDGE_TEMPLATE_CN,
            grading.grade_reply,
            grading.JUDGE_TRIES,
            grading.JUDGE_MAX_TOKENS,
        )

    def reading(self):
        from agent_eval.benchmarks.vlmeval.hooks import VlmEvalHooks

        return VlmEvalHooks()
