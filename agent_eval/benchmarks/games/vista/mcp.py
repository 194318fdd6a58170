"""VISTA's tools as MCP tools (github.com/joshhhhhan/VISTA, MIT; backends/claude/mcp_bridge.py, core/dispatcher.py):
VISTA's exact names, descriptions, schemas and annotations, the arguments handed over raw (VISTA checks them in its
own words), answered as its bridge answers (compact JSON metadata, then each image after its label; isError for an
error). Also the schema pieces its tools share (core/tools.py) and the note tools every VISTA profile offers."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable, Mapping, Sequence

from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import ConfigDict

from agent_eval.benchmarks.notes import NoteRefused, Notes

MAX_INSPECTION_VIEWS = 16
MAX_INSPECTION_QUESTION_CHARS = 1024
MAX_INSPECTION_LABEL_CHARS = 128
MAX_PIXEL_READOUT_VIEWS = 64
MAX_PIXEL_READOUT_SAMPLES = 4096
PIXEL_READOUT_SYMBOLS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"

READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
WRITES = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
ACTS = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}

Definition = tuple[str, dict, dict]  # a tool's description, input schema and annotations
EMPTY_GUIDE = "No reliable model yet.\n"  # the GUIDE.md VISTA's harness starts each game with
NOTE_TOOLS = ("read_guide", "write_guide", "read_working", "write_working")


def schema_object(properties: dict, required: list[str] | None = None) -> dict:
    needed = {"required": required} if required else {}
    return {"type": "object", "additionalProperties": False, **needed, "properties": properties}


LABEL = {"type": "string", "minLength": 1, "maxLength": MAX_INSPECTION_LABEL_CHARS}  # a view's short label


def schema_region(size: int) -> dict:
    return schema_object(
        {
            "x": {"type": "integer", "minimum": 0, "maximum": size - 1},
            "y": {"type": "integer", "minimum": 0, "maximum": size - 1},
            "width": {"type": "integer", "minimum": 1, "maximum": size},
            "height": {"type": "integer", "minimum": 1, "maximum": size},
        },
        ["x", "y", "width", "height"],
    )


def schema_counts(most: int) -> dict:
    """read_pixels' rows and columns of a view, each at most `most`."""
    return {name: {"type": "integer", "minimum": 1, "maximum": most} for name in ("rows", "columns")}


def schema_question(views: dict, most: int) -> dict:
    """A call naming the visual question its views should answer, and its views (each with a short label)."""
    return schema_object(
        {
            "question": {"type": "string", "minLength": 1, "maxLength": MAX_INSPECTION_QUESTION_CHARS},
            "views": {"type": "array", "minItems": 1, "maxItems": most, "items": views},
        },
        ["question", "views"],
    )


def text(value) -> TextContent:
    return TextContent(type="text", text=value if isinstance(value, str) else json.dumps(value, separators=(",", ":")))


def answer(ok: bool, metadata, images: Sequence[tuple[str, bytes]] = ()) -> CallToolResult:
    """VISTA's reply: the metadata (JSON, or a sentence), then each image after its label; isError unless ok."""
    content: list = [text(metadata)]
    for label, png in images:
        content += [text(label), ImageContent(type="image", data=base64.b64encode(png).decode(), mime_type="image/png")]
    return CallToolResult(content=content, is_error=not ok)


class _RawArguments(ArgModelBase):
    """Every argument as given, under `arguments`: VISTA's tools check their arguments themselves."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

    def model_dump_one_level(self) -> dict:
        return {"arguments": dict(self.model_extra or {})}


def vista_tool(name: str, description: str, schema: dict, hints: dict, function: Callable[[dict], object]) -> Tool:
    """An MCP tool with VISTA's exact name, description, schema and annotations, its arguments handed over raw."""
    return Tool(
        fn=lambda arguments: function(arguments),
        name=name,
        title=None,
        description=description,
        parameters=schema,
        fn_metadata=FuncMetadata(arg_model=_RawArguments),
        is_async=False,
        context_kwarg=None,
        annotations=ToolAnnotations.model_validate(hints),  # VISTA's camelCase names are the fields' aliases
    )


def _content(most: int) -> dict:
    return schema_object({"content": {"type": "string", "minLength": 1, "maxLength": most}}, ["content"])


def note_definitions(limits: dict[str, int], level_scope: bool) -> dict[str, Definition]:
    """read_guide, write_guide, read_working, write_working: WORKING.md's words are the level's (arc3's tools) when
    it is cleared at each level, the task's (core's tools) when it lasts the game."""
    if level_scope:
        read_working = "Read the agent-authored temporary state for the current level."
        write_working = (
            "Replace the agent-authored temporary state for the current level. It persists across RESET and is "
            "cleared when level progress advances."
        )
    else:
        read_working = "Read agent-authored temporary state for the current task."
        write_working = (
            "Replace agent-authored temporary state for the current task. It persists until explicitly replaced or "
            "cleared by the task lifecycle."
        )
    return {
        "read_guide": ("Read `GUIDE.md`.", schema_object({}), READ_ONLY),
        "write_guide": (
            "Write the complete contents of `GUIDE.md`, replacing its previous contents.",
            _content(limits["GUIDE.md"]),
            WRITES,
        ),
        "read_working": (read_working, schema_object({}), READ_ONLY),
        "write_working": (write_working, _content(limits["WORKING.md"]), WRITES),
    }


def note_functions(
    notes: Notes | None, where: Callable[[], dict | None], lock: threading.Lock
) -> dict[str, Callable[[dict], CallToolResult]]:
    """The four note tools over these notes (offered only when kept), a write under the item's `lock`."""

    def read(name: str) -> Callable[[dict], CallToolResult]:
        def call(arguments: dict) -> CallToolResult:
            """The note as VISTA reads it; when empty, GUIDE.md's start text, or that WORKING.md does not exist."""
            if arguments:
                return answer(False, "Invalid arguments.")
            empty = EMPTY_GUIDE if name == "GUIDE.md" else "WORKING.md does not exist."
            return answer(True, _kept(notes).read()[name] or empty)

        return call

    def write(name: str) -> Callable[[dict], CallToolResult]:
        def call(arguments: dict) -> CallToolResult:
            with lock:
                return write_note(_kept(notes), name, arguments, where)

        return call

    return dict(zip(NOTE_TOOLS, (read("GUIDE.md"), write("GUIDE.md"), read("WORKING.md"), write("WORKING.md"))))


def _kept(notes: Notes | None) -> Notes:
    assert notes is not None, "the note tools are offered only when the notes are kept"
    return notes


def tools_of(
    definitions: Mapping[str, Definition], functions: Mapping[str, Callable[[dict], object]], names: Sequence[str]
) -> list[Tool]:
    """The named tools, in the order given."""
    return [vista_tool(name, *definitions[name], functions[name]) for name in names]


def write_note(notes: Notes, name: str, arguments: dict, where: Callable[[], dict | None]) -> CallToolResult:
    """A note replaced as VISTA replaces it (its checks, its words); `where` says where the game stands, kept with
    the version (read only once the content is accepted)."""
    limit, content = notes.limits[name], arguments.get("content")
    if set(arguments) != {"content"} or not isinstance(content, str) or not content.strip() or len(content) > limit:
        return answer(False, f"Invalid {name} content.")
    stored = content.strip() + "\n" if len(content.strip()) < limit else content.strip()
    try:
        notes.write(name, stored, where())
    except NoteRefused:
        return answer(False, f"{name} could not be updated.")
    return answer(True, f"{name} updated.")
