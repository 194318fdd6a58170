"""What several benchmark kinds offer alike: the image tools (served from the harness over loopback HTTP, confined to
the item's workdir) and the prompt templates' placeholders."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import Iterator

from agent_eval.datamodel.imageformats import API_FORMATS, convert_to_png, image_format
from agent_eval.tools.imagetools import SERVER_NAME, TOOL_NAMES
from agent_eval.tools.mcp_http import McpHost, load_sdk_module
from agent_eval.tools.toolset import McpServer, ToolSet

IMAGE_TOOLS_MODULE = "agent_eval.tools.imagetools.mcp_server"


@contextlib.contextmanager
def image_tools(workdir: Path) -> Iterator[tuple[McpServer, str]]:
    """The inspection tools for one item and the endpoint its sandbox must reach: served from the
    harness process over HTTP, on the process's one MCP host under a path of this item's own (a
    server inside each sandbox would import the MCP SDK per item, about 0.9 CPU-s), acting on this
    item's workdir only and confined to it (imagetools/workspace.py)."""

    def build():
        return load_sdk_module(IMAGE_TOOLS_MODULE).build_server(str(workdir))  # the MCP SDK, once

    with McpHost.shared().mount(build, name=SERVER_NAME) as mount:
        yield McpServer(SERVER_NAME, TOOL_NAMES, url=mount.url), mount.endpoint


@contextlib.contextmanager
def image_toolset(workdir: Path, tools: str) -> Iterator[tuple[ToolSet, list[str]]]:
    """Tool modes image and python on an item's images in its workdir: the inspection tools and the CLI's file
    viewer (python: and a shell), and the endpoints the sandbox must reach."""
    with image_tools(workdir) as (server, endpoint):
        yield ToolSet(shell=tools == "python", view_file=True, mcp=(server,)), [endpoint]


def render(template_text: str, question: str, image_name: str) -> str:
    # str.replace, not str.format: questions may contain braces.
    return template_text.replace("{image}", image_name).replace("{question}", question).strip() + "\n"


def place_image(source: Path, stem: Path, conversions: list[str]) -> Path:
    """Copy an item's image as `<stem>.<ext>`; a format the model APIs refuse (BMP, TIFF, ...) becomes
    a PNG of the same pixels, and `conversions` says so."""
    kind = image_format(source)
    if kind in API_FORMATS:
        target = stem.with_suffix(source.suffix.lower() if source.suffix else "." + kind.lower().replace("jpeg", "jpg"))
        shutil.copyfile(source, target)
        return target
    target = stem.with_suffix(".png")
    conversions.append(convert_to_png(source, target, kind))
    return target
