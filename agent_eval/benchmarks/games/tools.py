"""The `game` MCP server's shared pieces in our flavour: our looks at the frame archive (FrameLooks: `recall`,
`inspect` and `read_pixels`, the image tools' own operations applied to an archived frame as it was shown; arcgames
reads its colour indices instead) as MCP tools, each image counted toward --session-images (handoff.py); the note
tools; a server of named functions; a refusal the model can fix as the tool's error. A kind adds its own actions,
its recall (by decision or by step) and its history."""

# No `from __future__ import annotations`: the tools' parameter descriptions are evaluated where each is defined
# (here, inside the factories: `word` names a frame the kind's way).
import json
from collections.abc import Callable, Iterable
from typing import Annotated, Any

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import Field

from agent_eval.benchmarks.games.frames import FrameArchive, FrameRefused, png_of
from agent_eval.benchmarks.games.handoff import HandoffState, within_image_cap
from agent_eval.benchmarks.games.served import SERVER_NAME
from agent_eval.benchmarks.notes import Notes
from agent_eval.benchmarks.notes_server import WRITE_NOTE, note_functions
from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.mcp_server import fixed_tools_server, plain_schema
from agent_eval.tools.imagetools.ops import MAX_SIZE, inspect_view
from agent_eval.tools.imagetools.ops import read_pixels as pixels_of
from agent_eval.tools.imagetools.palette import Palette
from agent_eval.tools.imagetools.regions import resolve_region

MAX_RECALL = 10  # frames per recall call
DEFAULT_INSPECT_SCALE = 2
READ_NOTES = "Read your two notes ({what}). They are kept across sessions; a fresh session is given them."

Functions = dict[str, tuple[Callable[..., Any], str]]  # a tool's name: its function and its description


def inspected(image, frame: int, x, y, width, height, scale, grid, max_scale: int = 16) -> tuple[dict, bytes]:
    """(what was shown, the view as PNG): a region of a frame as shown (`image`, RGB) enlarged `scale` times by
    nearest neighbour, grid lines every `grid` pixels labelled in its coordinates (arcgames' inspect too)."""
    region = resolve_region(image.size, x, y, width, height)
    if isinstance(scale, bool) or not isinstance(scale, int) or not 1 <= scale <= max_scale:
        raise FrameRefused(f"scale must be an integer 1-{max_scale}, got {scale!r}")
    size = max(16, min(max(region.width, region.height) * scale, MAX_SIZE))
    view, meta = inspect_view(image, region, size, grid)
    return {"frame": frame, **meta}, png_of(view)


class FrameLooks:
    """recall, inspect and read_pixels on one item's archive (read_pixels keeps one palette per item, as the
    image tools keep one per session, so a colour's symbol never changes)."""

    def __init__(self, archive: FrameArchive):
        self.archive = archive
        self.palette = Palette()

    def recall(self, numbers: list[int]) -> list[tuple[dict, bytes]]:
        if not numbers:
            raise FrameRefused("give the numbers of the frames to look at again")
        if len(numbers) > MAX_RECALL:
            raise FrameRefused(f"{len(numbers)} frames asked; at most {MAX_RECALL} per call")
        return [({"frame": n}, self.archive.png(n)) for n in numbers]

    def inspect(self, frame: int, x=None, y=None, width=None, height=None, scale=DEFAULT_INSPECT_SCALE, grid=0):
        """(what was shown, the view as PNG): see `inspected`."""
        return inspected(self.archive.image(frame), frame, x, y, width, height, scale, grid)

    def read_pixels(self, frame: int, x=None, y=None, width=None, height=None, rows=None, columns=None) -> str:
        image = self.archive.image(frame)
        region = resolve_region(image.size, x, y, width, height)
        found = pixels_of(image, region, rows, columns, self.palette)
        return json.dumps({"frame": frame, **found})


def refusing(refused: tuple[type[Exception], ...], call: Callable[[], Any]) -> Any:
    """The call's answer; a refusal the model can fix (the kind's, or ToolInputError) as the tool's error."""
    try:
        return call()
    except refused + (ToolInputError,) as error:
        raise ToolError(str(error)) from None


def recalled(looks: FrameLooks, numbers: list[int]) -> list:
    """recall's answer: each frame's metadata, then the frame."""
    out: list = []
    for meta, png in looks.recall(numbers):
        out += [json.dumps(meta), Image(data=png, format="png")]
    return out


def look_functions(
    looks: FrameLooks,
    handoff: HandoffState | None,
    refused: tuple[type[Exception], ...],
    word: str,
    within: Callable[[int], int] = lambda frame: frame,
) -> list[Callable[..., Any]]:
    """`inspect` and `read_pixels` over the archive; `word` is what the kind calls a frame ("frame", "screen"),
    `within(frame)` refuses a frame the decision may not look at."""

    def inspect(
        frame: Annotated[int, Field(description=f"An archived {word}'s number.")],
        x: Annotated[int | None, Field(description="Left edge, pixels. Default 0.")] = None,
        y: Annotated[int | None, Field(description="Top edge, pixels. Default 0.")] = None,
        width: Annotated[int | None, Field(description="Width, pixels. Default: to the edge.")] = None,
        height: Annotated[int | None, Field(description="Height, pixels. Default: to the edge.")] = None,
        scale: Annotated[int, Field(description="Enlargement, 1-16.")] = DEFAULT_INSPECT_SCALE,
        grid: Annotated[int, Field(description=f"Grid spacing in {word} pixels; 0: none.")] = 0,
    ) -> list:
        def look() -> list:
            meta, png = looks.inspect(within(frame), x, y, width, height, scale, grid)
            return [json.dumps(meta), Image(data=png, format="png")]

        return within_image_cap(handoff, 1, lambda: refusing(refused, look))

    def read_pixels(
        frame: Annotated[int, Field(description=f"An archived {word}'s number.")],
        x: Annotated[int | None, Field(description="Left edge. Default 0.")] = None,
        y: Annotated[int | None, Field(description="Top edge. Default 0.")] = None,
        width: Annotated[int | None, Field(description="Width. Default: to the edge.")] = None,
        height: Annotated[int | None, Field(description="Height. Default: to the edge.")] = None,
        rows: Annotated[int | None, Field(description="Sample rows. Default: every row, up to 64.")] = None,
        columns: Annotated[int | None, Field(description="Sample columns. Default: every column, up to 64.")] = None,
    ) -> str:
        return refusing(refused, lambda: looks.read_pixels(within(frame), x, y, width, height, rows, columns))

    return [inspect, read_pixels]


def inspect_text(word: str) -> str:
    return (
        f"Look closely at part of an archived {word}: the region (x, y, width, height in {word} pixels; default the "
        f"whole {word}) enlarged `scale` times by nearest neighbour, with grid lines every `grid` pixels labelled in "
        f"{word} coordinates (0: none)."
    )


def read_pixels_text(word: str, kept_for: str) -> str:
    return (
        f"Read the colours of a region of an archived {word} (default the whole {word}), sampled on a grid of `rows` "
        "x `columns` (default: every pixel, up to 64 a side): one symbol per sample, with the palette of symbols to "
        f"colours (kept for the whole {kept_for})."
    )


def note_tools(notes: Notes | None, where: Callable[[], dict]) -> Functions:
    """read_notes and write_note over the item's notes (none without notes); `where()` is kept with each version."""
    if notes is None:
        return {}
    read_notes, write_note = note_functions(notes, where)
    return {
        "read_notes": (read_notes, READ_NOTES.format(what=notes.describe())),
        "write_note": (write_note, WRITE_NOTE),
    }


def served(
    functions: Functions,
    names: Iterable[str],
    made: dict[str, Tool] | None = None,
    schema: Callable[[str, Tool], dict] = lambda name, tool: plain_schema(tool.parameters),
) -> MCPServer:
    """The `game` server offering `names` in order: each one of `made` as it is (VISTA's tools), else its function
    as an MCP tool with its description and `schema(name, tool)` (plain: Codex drops tools with $refs)."""
    tools = []
    for name in names:
        if made and name in made:
            tools.append(made[name])
            continue
        fn, text = functions[name]
        tool = Tool.from_function(fn, name=name, description=text, structured_output=False)
        tool.parameters = schema(name, tool)
        tools.append(tool)
    return fixed_tools_server(SERVER_NAME, tools)
