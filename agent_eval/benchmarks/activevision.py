"""ActiveVision-style static images: one image and one question per item, graded by the shared scorer."""
from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import Iterator

from ..data import Item, load_dataset
from ..imagetools import SERVER_NAME, TOOL_NAMES
from ..scoring import grade, scorer_hash
from ..imageformats import API_FORMATS, convert_to_png, image_format
from ..mcp_http import LoopbackMcpServer, load_in_background, load_sdk_module
from .base import Benchmark, BenchmarkGrade, ItemSetup, McpServer, ToolSet

IMAGE_TOOLS_MODULE = "agent_eval.imagetools.mcp_server"


@contextlib.contextmanager
def image_tools(workdir: Path) -> Iterator[tuple[McpServer, str]]:
    """The inspection tools for one item and the host:port its sandbox must reach: served from the
    harness process over HTTP (a server inside each sandbox would import the MCP SDK per item, about
    0.9 CPU-s), acting on this item's workdir only and confined to it (imagetools/workspace.py)."""
    def build():
        return load_sdk_module(IMAGE_TOOLS_MODULE).build_server(str(workdir))  # the MCP SDK, once
    # Not waiting for it to stop: by then the CLI has exited, no call is in flight, and its thread
    # finishes alone (waiting would add 0.2 s to every item).
    with LoopbackMcpServer(build, name=SERVER_NAME, wait_on_exit=False) as server:
        yield McpServer(SERVER_NAME, TOOL_NAMES, url=server.url), server.host_port


def place_image(source: Path, stem: Path, conversions: list[str]) -> Path:
    """Copy the item's image as `<stem>.<ext>`; a format the model APIs refuse (BMP, TIFF, ...) becomes
    a PNG of the same pixels, and `conversions` says so."""
    kind = image_format(source)
    if kind in API_FORMATS:
        target = stem.with_suffix(source.suffix.lower())
        shutil.copyfile(source, target)
        return target
    target = stem.with_suffix(".png")
    conversions.append(convert_to_png(source, target, kind))
    return target


def render(template_text: str, question: str, image_name: str) -> str:
    # str.replace, not str.format: questions may contain braces.
    return template_text.replace("{image}", image_name).replace("{question}", question).strip() + "\n"


class ActiveVision(Benchmark):
    name = "activevision"
    tool_modes = ("none", "image", "python")

    def load(self, root: Path):
        return load_dataset(root)

    def warm_up(self, tools: str) -> None:
        if tools != "none":
            load_in_background(IMAGE_TOOLS_MODULE)

    @contextlib.contextmanager
    def setup(self, item: Item, tools: str, work: Path, home: Path, item_root: Path, template_text: str):
        conversions = []
        if tools == "none":
            # Attached to the first message; kept in the private home, which no tool can reach in this mode.
            inline = place_image(item.image, home / "attachment", conversions)
            yield ItemSetup(prompt=render(template_text, item.question, "the attached image"), tools=ToolSet(),
                            inline_images=[inline], conversions=conversions)
            return
        image = place_image(item.image, work / "image", conversions)  # a neutral name: nothing about the item
        with image_tools(work) as (server, endpoint):
            toolset = ToolSet(shell=tools == "python", view_file=True, mcp=(server,))
            yield ItemSetup(prompt=render(template_text, item.question, image.name), tools=toolset,
                            endpoints=[endpoint], conversions=conversions)

    def grade(self, final_text: str | None, item: Item) -> BenchmarkGrade:
        graded = grade(final_text or "", item.answer)
        return BenchmarkGrade(graded.prediction, graded.correct, graded.has_answer_tag)

    def scorer_hash(self) -> str:
        return scorer_hash()

    needs_dataset_to_regrade = False  # the record holds the truth, which is all the scorer reads

    def regrade(self, answer_text: str | None, record, item) -> BenchmarkGrade:
        graded = grade(answer_text or "", record.ground_truth)
        return BenchmarkGrade(graded.prediction, graded.correct, graded.has_answer_tag)
