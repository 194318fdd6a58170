"""Grid overlay for inspect: lines on the view, labels in a margin, in original-image coordinates."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.regions import Region

MIN_LINE_GAP = 8  # output pixels between grid lines; denser grids are unreadable
LINE_COLOURS = [(255, 0, 255), (0, 255, 255), (255, 255, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255)]
MARGIN_BG = (40, 40, 40)
LABEL_FG = (255, 255, 255)


def grid_positions(start: int, length: int, spacing: int, src_index: np.ndarray) -> list[tuple[int, int]]:
    """(original coordinate, output position) for each multiple of `spacing` strictly inside the view.

    The line for coordinate c sits on the first output pixel showing original pixel c,
    i.e. on the left/top edge of that pixel.
    """
    first = (start // spacing + 1) * spacing
    return [(c, int(np.searchsorted(src_index, c - start, side="left"))) for c in range(first, start + length, spacing)]


def _line_colour(view: Image.Image) -> tuple[int, int, int]:
    """The candidate colour farthest from every colour in the view, so lines stay visible."""
    px = np.asarray(view.convert("RGB")).reshape(-1, 3)[::7].astype(np.int32)
    best = max(LINE_COLOURS, key=lambda c: np.min(np.abs(px - np.array(c)).sum(axis=1)))
    return best


def draw_grid(view: Image.Image, region: Region, cols: np.ndarray, rows: np.ndarray, spacing: int):
    """Return (image with grid and labelled margins, metadata)."""
    scale_x = view.width / region.width
    scale_y = view.height / region.height
    if spacing * min(scale_x, scale_y) < MIN_LINE_GAP:
        minimum = int(np.ceil(MIN_LINE_GAP / min(scale_x, scale_y)))
        raise ToolInputError(
            f"grid spacing {spacing} px is too dense for this view (lines would be less than "
            f"{MIN_LINE_GAP} output pixels apart); use grid >= {minimum}, or a smaller region or larger size"
        )
    xs = grid_positions(region.x, region.width, spacing, cols)
    ys = grid_positions(region.y, region.height, spacing, rows)
    font = ImageFont.load_default(12)
    widest = int(max(font.getbbox(str(c))[2] for c, _ in [(region.y, 0), *ys]))
    left, top = widest + 6, 16
    canvas = Image.new(view.mode, (left + view.width, top + view.height), MARGIN_BG)
    canvas.paste(view, (left, top))
    draw = ImageDraw.Draw(canvas)
    colour = _line_colour(view)
    for _, px in xs:
        draw.line([(left + px, top - 4), (left + px, top + view.height - 1)], fill=colour)
    for _, py in ys:
        draw.line([(left - 4, top + py), (left + view.width - 1, top + py)], fill=colour)
    # Labels: the view's own origin first, then each line; skip any that would overlap the previous.
    last_end = -1
    for c, px in [(region.x, 0), *xs]:
        w = int(font.getbbox(str(c))[2])
        at = min(left + px + 2, canvas.width - w - 1)
        if at > last_end + 3:
            draw.text((at, 1), str(c), fill=LABEL_FG, font=font)
            last_end = at + w
    last_end = -1
    for c, py in [(region.y, 0), *ys]:
        at = min(top + py + 1, canvas.height - 13)
        if at > last_end + 1:
            draw.text((2, at), str(c), fill=LABEL_FG, font=font)
            last_end = at + 12
    meta = {
        "spacing": spacing,
        "x_lines": [c for c, _ in xs],
        "y_lines": [c for c, _ in ys],
        "line_colour": "#%02X%02X%02X" % colour,
        "view_offset": [left, top],
        "note": "labels are original-image pixel coordinates; a line labelled N is on the left/top edge "
        "of original pixel column/row N; the top and left margins hold the labels, not image content",
    }
    return canvas, meta
