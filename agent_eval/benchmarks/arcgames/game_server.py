"""The `game` MCP server: `play` in every mode; `recall`, `inspect` and `read_pixels` on the archived
frames from mode image up (read_pixels unless the rung leaves it out); `read_notes` and `write_note` in every
mode when the run gives notes (ladder.py says which tools a rung offers). Served from the harness process (the
process's one MCP host, tools/mcp_http.py), mounted for one item only, like active observation's `observe`:
the game, its source and its frames stay outside the sandbox.

The crops and the grid are the image tools' own (tools/imagetools: regions, nearest-neighbour
views, the labelled grid), applied to a frame drawn in the game's palette."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Annotated

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import Field

from agent_eval.benchmarks.arcgames.frames import COLOUR_NAMES, grid_text, to_rgb
from agent_eval.benchmarks.arcgames.ladder import Ladder
from agent_eval.benchmarks.arcgames.session import ACTIONS, GRID, GameSession, PlayRefused
from agent_eval.benchmarks.notes import Notes
from agent_eval.benchmarks.notes_server import WRITE_NOTE, note_functions
from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.mcp_server import fixed_tools_server, plain_schema
from agent_eval.tools.imagetools.ops import MAX_SIZE, inspect_view
from agent_eval.tools.imagetools.regions import resolve_region

SERVER_NAME = "game"
MAX_RECALL = 8
DEFAULT_INSPECT_SCALE = 8

PLAY = f"""Take one action in the game and see the result.

`action` is one of {", ".join(ACTIONS)}. RESET starts the current level again (or the game, before the first \
action); ACTION6 is a click at `x`, `y` (integers 0-{GRID - 1}, x to the right, y downwards, on the \
{GRID}x{GRID} game grid); the others take no coordinates. Every action counts against your action budget, \
RESET included. Returns JSON (state: NOT_FINISHED, WIN or GAME_OVER; levels completed of the total; the \
actions available now; actions used and left; the numbers of the frames this action produced) and the \
last frame {{shown}}."""
SHOWN = {
    "image": "as an image (each game pixel drawn as a {scale}x{scale} square)",
    "text": f"as text: {GRID} lines of {GRID} hexadecimal digits 0-f, one per game pixel, each a colour index",
    "both": "as an image (each game pixel drawn as a {scale}x{scale} square) and as text: one line per row, one "
    "hexadecimal digit 0-f (a colour index) per game pixel",
}
RECALL = f"""Look again at frames you have already seen: give `frames` (their numbers, at most {MAX_RECALL}) or \
`step` (the n-th play call, 1-based: all the frames it produced). Returns each frame's number and the frame \
as play shows it."""
INSPECT = f"""Look closely at part of an archived frame: the region (x, y, width, height in game pixels, \
default the whole {GRID}x{GRID} frame) enlarged `scale` times by nearest neighbour, with grid lines every \
`grid` game pixels labelled in game coordinates (0: no grid)."""
READ_PIXELS = f"""Read the exact colour indices (0-15) of a region of an archived frame (default the whole \
{GRID}x{GRID} frame), as one line per row of hexadecimal digits 0-f, with the colour names of the indices that \
occur."""
FRAME_HELP = "An archived frame's number, as returned by play."
READ_NOTES = "Read your two notes ({what}). They are kept across sessions; a fresh session is given them."


def _guard(call):
    try:
        return call()
    except (PlayRefused, ToolInputError) as error:
        raise ToolError(str(error)) from None


def _frame(session: GameSession, frame: int):
    if not session.archive.has(frame):
        raise PlayRefused(
            f"no frame {frame!r}: frames so far are 1-{session.archive.count}"
            if session.archive.count
            else "no frame yet: play first"
        )
    return session.archive.load(frame)


def tool_functions(session: GameSession, scale: int, ladder: Ladder = Ladder(), notes: Notes | None = None):
    images_each = 1 if ladder.observation in ("image", "both") else 0  # images a frame is shown as

    def refused(images: int) -> list | None:
        """--session-images: the answer instead of a tool's images past the session's cap (handoff.py)."""
        stop = session.image_room(images)
        return None if stop is None else [json.dumps({"stop": stop})]

    def observed(number: int, png: bytes | None = None) -> list:
        """A frame as this rung shows it: the image, its colour indices as text, or both."""
        out: list = []
        if ladder.observation in ("text", "both"):
            text = grid_text(session.archive.load(number))
            session.observed(text_chars=len(text))
            out.append(text)
        if ladder.observation in ("image", "both"):
            session.observed(images=1)
            out.append(Image(data=png if png is not None else session.archive.png(number), format="png"))
        return out

    def play(
        action: Annotated[str, Field(description=f"One of {', '.join(ACTIONS)}.")],
        x: Annotated[int | None, Field(description=f"Click column 0-{GRID - 1} (ACTION6 only).")] = None,
        y: Annotated[int | None, Field(description=f"Click row 0-{GRID - 1} (ACTION6 only).")] = None,
    ) -> list:
        if (instead := refused(images_each)) is not None:
            return instead
        shown, png = _guard(lambda: session.play(action, x, y))
        return [json.dumps(shown)] + (observed(shown["frames"][-1], png) if png is not None else [])

    def recall(
        frames: Annotated[list[int] | None, Field(description="Frame numbers.")] = None,
        step: Annotated[int | None, Field(description="A play call's number, 1-based.")] = None,
    ) -> list:
        def look():
            if (frames is None) == (step is None):
                raise PlayRefused("give either `frames` or `step`")
            if step is not None:
                wanted = session.frames_of_step(step)
            else:
                assert frames is not None  # exactly one of the two, checked above
                wanted = list(frames)
            if len(wanted) > MAX_RECALL:
                raise PlayRefused(f"{len(wanted)} frames asked; at most {MAX_RECALL} per call")
            if (instead := refused(len(wanted) * images_each)) is not None:
                return instead
            out: list = []
            for number in wanted:
                _frame(session, number)
                out += [json.dumps({"frame": number}), *observed(number)]
            return out

        return _guard(look)

    def inspect(
        frame: Annotated[int, Field(description=FRAME_HELP)],
        x: Annotated[int | None, Field(description="Left edge, game pixels. Default 0.")] = None,
        y: Annotated[int | None, Field(description="Top edge, game pixels. Default 0.")] = None,
        width: Annotated[int | None, Field(description="Width in game pixels. Default: to the edge.")] = None,
        height: Annotated[int | None, Field(description="Height in game pixels. Default: to the edge.")] = None,
        scale: Annotated[int, Field(description="Enlargement, 1-32.")] = DEFAULT_INSPECT_SCALE,
        grid: Annotated[int, Field(description="Grid spacing in game pixels; 0: none.")] = 8,
    ) -> list:
        def look():
            image = to_rgb(_frame(session, frame))
            region = resolve_region(image.size, x, y, width, height)
            if isinstance(scale, bool) or not isinstance(scale, int) or not 1 <= scale <= 32:
                raise PlayRefused(f"scale must be an integer 1-32, got {scale!r}")
            size = min(max(region.width, region.height) * scale, MAX_SIZE)
            view, meta = inspect_view(image, region, max(size, 16), grid)
            buffer = io.BytesIO()
            view.save(buffer, format="PNG")
            if (instead := refused(1)) is not None:
                return instead
            session.observed(images=1)
            return [json.dumps({"frame": frame, **meta}), Image(data=buffer.getvalue(), format="png")]

        return _guard(look)

    def read_pixels(
        frame: Annotated[int, Field(description=FRAME_HELP)],
        x: Annotated[int | None, Field(description="Left edge. Default 0.")] = None,
        y: Annotated[int | None, Field(description="Top edge. Default 0.")] = None,
        width: Annotated[int | None, Field(description="Width. Default: to the edge.")] = None,
        height: Annotated[int | None, Field(description="Height. Default: to the edge.")] = None,
    ) -> str:
        def read():
            pixels = _frame(session, frame)
            region = resolve_region((pixels.shape[1], pixels.shape[0]), x, y, width, height)
            block = pixels[region.y : region.y + region.height, region.x : region.x + region.width]
            used = sorted(int(v) for v in set(block.flat))
            legend = ", ".join(f"{v:x}={COLOUR_NAMES[v]}" for v in used)
            rows = ["".join(f"{int(v):x}" for v in row) for row in block]
            return "\n".join(
                [
                    f"frame {frame}, region x={region.x} y={region.y} width={region.width} "
                    f"height={region.height}; one hex digit per pixel, rows top to bottom; {legend}",
                    *rows,
                ]
            )

        return _guard(read)

    texts = {
        "play": PLAY.format(shown=SHOWN[ladder.observation].format(scale=scale)),
        "recall": RECALL,
        "inspect": INSPECT,
        "read_pixels": READ_PIXELS,
    }
    functions: list[Callable[..., object]] = [play, recall, inspect, read_pixels]
    if notes is not None:  # the notes rung (the ladder offers their tools only then)
        # the notes tools are the notes server's own, each version recorded with the actions used so far
        functions += note_functions(notes, lambda: {"actions_used": session.actions_used})
        texts |= {"read_notes": READ_NOTES.format(what=notes.describe()), "write_note": WRITE_NOTE}
    return {fn.__name__: (fn, texts[fn.__name__]) for fn in functions}


def build_server(
    session: GameSession, mode: str, scale: int, ladder: Ladder = Ladder(), notes: Notes | None = None
) -> MCPServer:
    """The game tools of this mode and rung on one item's session."""
    functions = tool_functions(session, scale, ladder, notes)
    tools = []
    for name in ladder.tools(mode):
        fn, text = functions[name]
        tool = Tool.from_function(fn, name=name, description=text, structured_output=False)
        tool.parameters = plain_schema(tool.parameters)
        tools.append(tool)
    return fixed_tools_server(SERVER_NAME, tools)
