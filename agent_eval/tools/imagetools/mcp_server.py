"""MCP server `imagetools` over stdio: inspect, read_pixels, info on the item's workdir.

python -m agent_eval.tools.imagetools.mcp_server --workdir DIR   (default: the current directory)
"""

from __future__ import annotations

import argparse
import functools
import json
import os
from typing import Annotated, Any, Callable

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import BaseModel, ConfigDict, Field

from agent_eval.tools.imagetools import SERVER_NAME
from agent_eval.tools.imagetools import descriptions as d
from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.ops import DEFAULT_SIZE
from agent_eval.tools.imagetools.service import ImageTools, format_pixels


class ViewSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: Annotated[int | None, Field(description=d.X)] = None
    y: Annotated[int | None, Field(description=d.Y)] = None
    width: Annotated[int | None, Field(description=d.WIDTH)] = None
    height: Annotated[int | None, Field(description=d.HEIGHT)] = None


def fixed_tools_server(name: str, tools: list[Tool]) -> MCPServer:
    """An MCP server offering `tools`, a list that never changes. It leaves `subscriptions/listen`
    unserved, so it advertises no listChanged: Claude Code then opens no listen stream, which costs
    it about 45 ms of wall time (and 25 ms of CPU) before its first model call, per item
    (docs/performance.md, part 6). The tools, their schemas and their results are the same."""
    return MCPServer(name=name, tools=tools, log_level="WARNING", subscriptions=False)


def plain_tool(fn: Callable, name: str, description: str) -> Tool:
    """A tool of `fn` whose result is its content as returned, its schema plain (plain_schema)."""
    tool = Tool.from_function(fn, name=name, description=description, structured_output=False)
    tool.parameters = plain_schema(tool.parameters)
    return tool


def plain_schema(schema: dict) -> dict:
    """Inline $refs and turn `anyOf [T, null]` into T: Codex drops tools whose schemas use them."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            node = {**defs[node["$ref"].split("/")[-1]], **{k: v for k, v in node.items() if k != "$ref"}}
        options = node.get("anyOf")
        if options and any(o == {"type": "null"} for o in options):
            rest = [o for o in options if o != {"type": "null"}]
            if len(rest) == 1:
                node = {**{k: v for k, v in node.items() if k not in ("anyOf", "default")}, **rest[0]}
        return {k: walk(v) for k, v in node.items() if k not in ("$defs", "title")}

    return walk(schema)


def tool_functions(tools: ImageTools | None) -> tuple:
    """The three tools as functions of one item's ImageTools (None: for their signatures only)."""

    def item_tools() -> ImageTools:
        if tools is None:  # signatures only: never served
            raise ToolError("no item's image tools here")
        return tools

    def guarded(call):
        try:
            return call()
        except ToolInputError as exc:
            raise ToolError(str(exc)) from exc

    def inspect(
        views: Annotated[list[ViewSpec] | None, Field(description=d.VIEWS)] = None,
        size: Annotated[int, Field(description=d.SIZE)] = DEFAULT_SIZE,
        grid: Annotated[int, Field(description=d.GRID)] = 0,
        path: Annotated[str | None, Field(description=d.PATH)] = None,
    ) -> list:
        specs = [v.model_dump(exclude_none=True) for v in views or []]
        result = guarded(lambda: item_tools().inspect(specs, size, grid, path))
        content: list = []
        for view in result:
            content += [json.dumps(view.meta), Image(data=view.png, format="png")]
        return content

    def read_pixels(
        x: Annotated[int | None, Field(description=d.X)] = None,
        y: Annotated[int | None, Field(description=d.Y)] = None,
        width: Annotated[int | None, Field(description=d.WIDTH)] = None,
        height: Annotated[int | None, Field(description=d.HEIGHT)] = None,
        rows: Annotated[int | None, Field(description=d.ROWS)] = None,
        columns: Annotated[int | None, Field(description=d.COLUMNS)] = None,
        path: Annotated[str | None, Field(description=d.PATH)] = None,
    ) -> str:
        return format_pixels(guarded(lambda: item_tools().read_pixels(x, y, width, height, rows, columns, path)))

    def info(path: Annotated[str | None, Field(description=d.PATH)] = None) -> str:
        return json.dumps(guarded(lambda: item_tools().info(path)))

    return (inspect, d.INSPECT), (read_pixels, d.READ_PIXELS), (info, d.INFO)


@functools.cache
def tool_definitions() -> tuple[Tool, ...]:
    """The tools' names, descriptions, schemas and argument models, built once per process: building
    them (pydantic models from the signatures) costs about 7 ms of CPU, and only the function
    behind each differs between items."""
    return tuple(plain_tool(fn, fn.__name__, text) for fn, text in tool_functions(None))


def build_server(workdir: str) -> MCPServer:
    """The image tools on one item's workdir: the shared definitions, each bound to this item's functions."""
    functions = tool_functions(ImageTools(workdir))
    tools = [definition.model_copy(update={"fn": fn}) for definition, (fn, _) in zip(tool_definitions(), functions)]
    return fixed_tools_server(SERVER_NAME, tools)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the image tools over MCP stdio.")
    parser.add_argument("--workdir", default=os.getcwd(), help="the item's working directory")
    args = parser.parse_args(argv)
    build_server(args.workdir).run("stdio")


if __name__ == "__main__":
    main()
