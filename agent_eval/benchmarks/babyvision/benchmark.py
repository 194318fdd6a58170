"""BabyVision's layout (meta_data.jsonl beside the images), asked with the reference's question text and graded
both ways: VLMEvalKit's (the last \\boxed{} answer, judged by a model against the truth) and VISTA's (the same
answer, a normalized exact match); `--grade` says which is `correct`. Under `--task-prompt vista` and
`--image-tools vista` the agent is asked and equipped as VISTA's harness asks and equips it (benchmarks/profiles.py)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from agent_eval.benchmarks.babyvision import boxed, grading, prompting, vista_match
from agent_eval.benchmarks.babyvision.loader import BabyVisionItem, read_dataset
from agent_eval.benchmarks.base import Benchmark, BenchmarkGrade, Item, ItemSetup
from agent_eval.benchmarks.fieldformats import FieldFormat, JudgedMetrics, render_verbatim
from agent_eval.benchmarks.shared import image_toolset
from agent_eval.datamodel.itemdir import ItemDir
from agent_eval.tools.mcp_http import McpHost, load_in_background, load_sdk_module
from agent_eval.tools.toolset import McpServer, ToolSet

VISTA_SERVER = "game"  # VISTA's MCP bridge names its tools mcp__game__* on every benchmark
VISTA_LOOKS_MODULE = "agent_eval.benchmarks.games.vista.looks"


@dataclass
class BoxedMetrics(JudgedMetrics):
    extracted: str | None = None  # the last \boxed{} content (None: the reply has none)
    exact_match: bool | None = None  # VISTA's grade: the normalized exact match
    judge_verdict: bool | None = None  # the judge's grade (None: not judged)
    graded_by: str = "judge"  # which of the two is the record's `correct` (--grade)


class BabyVision(FieldFormat):
    name = "babyvision"
    judge_use = "for every item (the reference always judges)"
    task_prompt = "ours"
    image_tools = "ours"
    grade_by = "judge"

    def configure(self, options: dict, timeout_s: float | None = None) -> None:
        given = {k: v for k, v in options.items() if v is not None}
        self.task_prompt = given.get("task_prompt", "ours")
        self.image_tools = given.get("image_tools", "ours")
        self.grade_by = given.get("grade", "judge")
        if self.image_tools == "vista" and self.task_prompt != "vista":
            raise ValueError(
                "--image-tools vista addresses the image VISTA's way, by the label of it in VISTA's first message: "
                "give --task-prompt vista too (or --profile vista)"
            )

    @property
    def without_judge(self) -> str:  # type: ignore[override]
        if self.grade_by == "vista":
            return "each item is graded by VISTA's exact match alone, the judge's grade left out"
        return Benchmark.without_judge

    def template_name(self, mode: str) -> str:
        return "vista" if self.task_prompt == "vista" else mode

    def load(self, root: Path):
        return read_dataset(Path(root))

    @contextlib.contextmanager
    def setup(self, item, tools: str, work: Path, home: Path, item_root: Path, template_text: str):
        endpoints: list[str]
        if self.task_prompt != "vista":
            with super().setup(item, tools, work, home, item_root, template_text) as setup:
                yield setup
            return
        looks = load_sdk_module(VISTA_LOOKS_MODULE)  # it imports the MCP SDK: one thread at a time
        # VISTA's first input: the question, the image attached with its label (from the private home: the
        # agent reaches it only there, or through the tools)
        conversions: list[str] = []
        inline = [image.place(home, conversions) for image in item.images]
        single = len(inline) == 1
        supplied = [looks.Supplied.of_file(p.read_bytes(), "question_image" if single else p.stem) for p in inline]
        prompt = render_verbatim(template_text, item.prompt_text, "\n".join(s.label() for s in supplied))
        toolset, endpoints = ToolSet(), []  # mode none: no tools
        with contextlib.ExitStack() as stack:
            if tools != "none" and self.image_tools == "ours":
                for image in item.images:
                    image.place(work, conversions)
                toolset, endpoints = stack.enter_context(image_toolset(work, tools))
            elif tools != "none":  # VISTA's looks served from the harness process (the image never enters the sandbox)
                mount = McpHost.shared().mount(lambda: looks.build_server(VISTA_SERVER, supplied), name=VISTA_SERVER)
                stack.enter_context(mount)
                server = McpServer(VISTA_SERVER, looks.TOOL_NAMES, url=mount.url)
                toolset, endpoints = ToolSet(shell=tools == "python", mcp=(server,)), [mount.endpoint]
            yield ItemSetup(prompt, toolset, inline, endpoints=endpoints, conversions=conversions)

    def warm_up(self, tools: str) -> None:
        if self.image_tools == "vista" and tools != "none":
            load_in_background(VISTA_LOOKS_MODULE)
        else:
            super().warm_up(tools)

    def grade(self, final_text: str | None, item: Item, item_dir: ItemDir | None = None) -> BenchmarkGrade:
        # item_dir: unused, the grade reads the reply alone (so `agent-eval score` grades replies from a file)
        assert isinstance(item, BabyVisionItem), item  # this kind's own dataset gives its items
        graded = grading.grade_reply(
            final_text, item.prompt_text, item.answer, item.ans_type, self.judge, self.grade_by
        )
        metrics = BoxedMetrics.judged(
            graded.judge_calls,
            extracted=graded.extracted,
            exact_match=graded.exact_match,
            judge_verdict=graded.judge_verdict,
            graded_by=self.grade_by,
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
            vista_match,  # VISTA's exact match, its patterns and steps
        )  # both grades' rules, whichever is `correct`: --grade is an option of the run (a rung for compare)

    def reading(self):
        from agent_eval.benchmarks.babyvision.hooks import BabyVisionHooks

        return BabyVisionHooks()
