"""Our game tools (`--game-tools ours`, the default): `play`; `recall`, `inspect` and `read_pixels` on the archived
frames from mode image up; `read_notes` and `write_note` with notes. In display coordinates (coordinates.py) a click
is mapped to the game pixel under it, `inspect` crops the image as shown (grid lines included) and `read_pixels`
reads the game pixels a display region touches."""

# No `from __future__ import annotations`: the tools' parameter descriptions are evaluated where each is defined.
import io
import json
from collections.abc import Callable
from typing import Annotated

from mcp.server.mcpserver import Image
from PIL import Image as PILImage
from pydantic import Field

from agent_eval.benchmarks.arcgames.coordinates import Coordinates
from agent_eval.benchmarks.arcgames.frames import COLOUR_NAMES, grid_text, to_rgb
from agent_eval.benchmarks.arcgames.game_process import ACTIONS, CLICK
from agent_eval.benchmarks.arcgames.ladder import Ladder
from agent_eval.benchmarks.arcgames.session import GameSession, PlayRefused, checked_click
from agent_eval.benchmarks.games.tools import inspected, note_tools, refusing
from agent_eval.benchmarks.notes import Notes
from agent_eval.tools.imagetools.regions import resolve_region

MAX_RECALL = 8
DEFAULT_INSPECT_SCALE = 8  # a game pixel 8 view pixels wide, by default
DEFAULT_GRID = 8  # grid lines every 8 game pixels, by default

PLAY = """Take one action in the game and see the result.

`action` is one of {actions}. RESET starts the current level again (or the game, before the first \
action); ACTION6 is a click at `x`, `y` ({where}, x to the right, y downwards{on}); the others take no coordinates. \
Every action counts against your action budget, \
RESET included. Returns JSON (state: NOT_FINISHED, WIN or GAME_OVER; levels completed of the total; the \
actions available now; actions used and left; the numbers of the frames this action produced) and the \
last frame {shown}."""
SHOWN = {
    "image": "as an image (each game pixel drawn as a {scale}x{scale} square)",
    "text": "as text: 64 lines of 64 hexadecimal digits 0-f, one per game pixel, each a colour index",
    "both": "as an image (each game pixel drawn as a {scale}x{scale} square) and as text: one line per row, one "
    "hexadecimal digit 0-f (a colour index) per game pixel",
}
RECALL = f"""Look again at frames you have already seen: give `frames` (their numbers, at most {MAX_RECALL}) or \
`step` (the n-th play call, 1-based: all the frames it produced). Returns each frame's number and the frame \
as play shows it."""
INSPECT = {
    "grid": """Look closely at part of an archived frame: the region (x, y, width, height in game pixels, \
default the whole 64x64 frame) enlarged `scale` times by nearest neighbour, with grid lines every \
`grid` game pixels labelled in game coordinates (0: no grid).""",
    "display": """Look closely at part of an archived frame as it was shown: the region (x, y, width, height in \
pixels of the image as shown, default the whole {side}x{side} image) enlarged `scale` times by nearest neighbour, \
with grid lines every `grid` pixels labelled in those coordinates (0: no grid).""",
}
READ_PIXELS = {
    "grid": """Read the exact colour indices (0-15) of a region of an archived frame (default the whole \
64x64 frame), as one line per row of hexadecimal digits 0-f, with the colour names of the indices that \
occur.""",
    "display": """Read the exact colour indices (0-15) of the game pixels under a region of an archived frame \
(x, y, width, height in pixels of the image as shown, default the whole {side}x{side} image), one line per row of \
game pixels, hexadecimal digits 0-f, with the colour names of the indices that occur.""",
}
FRAME_HELP = "An archived frame's number, as returned by play."
REFUSED = (PlayRefused,)  # a refusal the model can fix, answered as the tool's error (and the looks')


def tool_functions(
    session: GameSession,
    scale: int,
    ladder: Ladder = Ladder(),
    notes: Notes | None = None,
    where: Callable[[], dict] | None = None,
    after_play: Callable[[], object] | None = None,
):
    """name -> (function, description) of every tool of ours on this session. `where()`: how far the game had got,
    kept with each note written; `after_play()`: called after every play (the level scope of WORKING.md)."""
    coords = Coordinates(ladder.coordinates, scale)
    side = coords.display_side
    top = coords.size - 1
    inspect_scale = DEFAULT_INSPECT_SCALE if not coords.display else max(1, DEFAULT_INSPECT_SCALE // scale)
    grid_every = DEFAULT_GRID if not coords.display else DEFAULT_GRID * scale
    unit = "pixels of the image as shown" if coords.display else "game pixels"
    images_each = 1 if ladder.observation in ("image", "both") else 0  # images a frame is shown as

    def refused(images: int) -> list | None:
        stop = session.image_room(images)
        return None if stop is None else [json.dumps({"stop": stop})]

    def observed(number: int, png: bytes | None = None) -> list:
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
        x: Annotated[int | None, Field(description=f"Click column 0-{top} (ACTION6 only).")] = None,
        y: Annotated[int | None, Field(description=f"Click row 0-{top} (ACTION6 only).")] = None,
    ) -> list:
        def act():
            if (instead := refused(images_each)) is not None:
                return instead
            gx, gy = x, y
            if coords.display and str(action).strip().upper() == CLICK:
                gx, gy = coords.to_grid(*checked_click(x, y, coords.size))
            shown, png = session.play(action, gx, gy)
            if after_play is not None:
                after_play()
            return [json.dumps(shown)] + (observed(shown["frames"][-1], png) if png is not None else [])

        return refusing(REFUSED, act)

    def recall(
        frames: Annotated[list[int] | None, Field(description="Frame numbers.")] = None,
        step: Annotated[int | None, Field(description="A play call's number, 1-based.")] = None,
    ) -> list:
        def look():
            if (frames is None) == (step is None):
                raise PlayRefused("give either `frames` or `step`")
            wanted = session.frames_of_step(step) if step is not None else list(frames or [])
            if len(wanted) > MAX_RECALL:
                raise PlayRefused(f"{len(wanted)} frames asked; at most {MAX_RECALL} per call")
            if (instead := refused(len(wanted) * images_each)) is not None:
                return instead
            out: list = []
            for number in wanted:
                session.archive.checked(number)
                out += [json.dumps({"frame": number}), *observed(number)]
            return out

        return refusing(REFUSED, look)

    def inspect(
        frame: Annotated[int, Field(description=FRAME_HELP)],
        x: Annotated[int | None, Field(description=f"Left edge, {unit}. Default 0.")] = None,
        y: Annotated[int | None, Field(description=f"Top edge, {unit}. Default 0.")] = None,
        width: Annotated[int | None, Field(description=f"Width in {unit}. Default: to the edge.")] = None,
        height: Annotated[int | None, Field(description=f"Height in {unit}. Default: to the edge.")] = None,
        scale: Annotated[int, Field(description="Enlargement, 1-32.")] = inspect_scale,
        grid: Annotated[int, Field(description=f"Grid spacing in {unit}; 0: none.")] = grid_every,
    ) -> list:
        def look():
            pixels = session.archive.load(session.archive.checked(frame))
            image = PILImage.open(io.BytesIO(session.archive.png(frame))).convert("RGB") if coords.display else None
            meta, png = inspected(image or to_rgb(pixels), frame, x, y, width, height, scale, grid, max_scale=32)
            if (instead := refused(1)) is not None:
                return instead
            session.observed(images=1)
            return [json.dumps(meta), Image(data=png, format="png")]

        return refusing(REFUSED, look)

    def read_pixels(
        frame: Annotated[int, Field(description=FRAME_HELP)],
        x: Annotated[int | None, Field(description="Left edge. Default 0.")] = None,
        y: Annotated[int | None, Field(description="Top edge. Default 0.")] = None,
        width: Annotated[int | None, Field(description="Width. Default: to the edge.")] = None,
        height: Annotated[int | None, Field(description="Height. Default: to the edge.")] = None,
    ) -> str:
        def read():
            pixels = session.archive.load(session.archive.checked(frame))
            region = resolve_region((coords.size, coords.size), x, y, width, height)
            gx, gy, gw, gh = coords.region_in_grid(region.x, region.y, region.width, region.height)
            block = pixels[gy : gy + gh, gx : gx + gw]
            legend = ", ".join(f"{v:x}={COLOUR_NAMES[v]}" for v in sorted(int(v) for v in set(block.flat)))
            where_ = f"region x={region.x} y={region.y} width={region.width} height={region.height}"
            if coords.display:
                where_ += f" (display pixels: game pixels x={gx} y={gy} width={gw} height={gh})"
            return f"frame {frame}, {where_}; one hex digit per pixel, rows top to bottom; {legend}\n{grid_text(block)}"

        return refusing(REFUSED, read)

    on = "" if coords.display else f", on the {64}x{64} game grid"
    texts = {
        "play": PLAY.format(
            actions=", ".join(ACTIONS),
            where=f"integers 0-{top}" if not coords.display else coords.words(),
            on=on,
            shown=SHOWN[ladder.observation].format(scale=scale),
        ),  # fmt: skip
        "recall": RECALL,
        "inspect": INSPECT[coords.system].format(side=side),
        "read_pixels": READ_PIXELS[coords.system].format(side=side),
    }
    functions: list[Callable[..., object]] = [play, recall, inspect, read_pixels]
    # the notes rung's tools (the ladder offers them only then), each version recorded with where the game stood
    notes_tools = note_tools(notes, where or (lambda: {"actions_used": session.actions_used}))
    return {fn.__name__: (fn, texts[fn.__name__]) for fn in functions} | notes_tools
