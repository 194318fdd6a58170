"""ActiveVision-style static images: one image and one question per item, graded by the shared scorer."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

from ..data import Item, load_dataset
from ..imagetools import SERVER_NAME, TOOL_NAMES
from ..scoring import grade, scorer_hash
from .base import Benchmark, BenchmarkGrade, ItemSetup, McpServer, ToolSet, nothing_to_stop

IMAGE_TOOLS_MODULE = "agent_eval.imagetools.mcp_server"


def image_tools(workdir: Path) -> McpServer:
    """The inspection tools, run inside the sandbox on the workdir only."""
    return McpServer(SERVER_NAME, TOOL_NAMES, command=(sys.executable, "-m", IMAGE_TOOLS_MODULE, "--workdir", str(workdir)))


def render(template_text: str, question: str, image_name: str) -> str:
    # str.replace, not str.format: questions may contain braces.
    return template_text.replace("{image}", image_name).replace("{question}", question).strip() + "\n"


class ActiveVision(Benchmark):
    name = "activevision"
    tool_modes = ("none", "image", "python")

    def load(self, root: Path):
        return load_dataset(root)

    def setup(self, item: Item, tools: str, work: Path, home: Path, item_root: Path, template_text: str):
        suffix = item.image.suffix.lower()
        if tools == "none":
            # Attached to the first message; kept in the private home, which no tool can reach in this mode.
            inline = home / f"attachment{suffix}"
            shutil.copyfile(item.image, inline)
            return nothing_to_stop(ItemSetup(prompt=render(template_text, item.question, "the attached image"),
                                             tools=ToolSet(), inline_images=[inline]))
        image_name = f"image{suffix}"  # a neutral name: nothing about the item
        shutil.copyfile(item.image, work / image_name)
        toolset = ToolSet(shell=tools == "python", view_file=True, mcp=(image_tools(work),))
        return nothing_to_stop(ItemSetup(prompt=render(template_text, item.question, image_name), tools=toolset))

    def grade(self, final_text: str | None, item: Item) -> BenchmarkGrade:
        graded = grade(final_text or "", item.answer)
        return BenchmarkGrade(graded.prediction, graded.correct, graded.has_answer_tag)

    def scorer_hash(self) -> str:
        return scorer_hash()
