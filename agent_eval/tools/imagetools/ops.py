"""The three operations, on PIL images only: no files, no protocol. Front ends wrap these."""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image

from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.overlay import draw_grid
from agent_eval.tools.imagetools.palette import Palette, hex_colour
from agent_eval.tools.imagetools.regions import Region, bin_centres, nearest_indices, resolve_region

DEFAULT_SIZE = 512
MIN_SIZE, MAX_SIZE = 16, 2048
MAX_VIEWS = 8
MAX_SAMPLES = 4096
DEFAULT_BINS = 64
TOP_COLOURS = 12


def as_pixels(img: Image.Image) -> Image.Image:
    """RGB, or RGBA when the image can be transparent: the forms every operation works on."""
    has_alpha = img.mode in ("RGBA", "LA", "PA") or "transparency" in img.info
    want = "RGBA" if has_alpha else "RGB"
    return img if img.mode == want else img.convert(want)


def _int_arg(name: str, value, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ToolInputError(f"{name} must be an integer from {lo} to {hi}, got {value!r}")
    return value


def inspect_view(img: Image.Image, region: Region, size: int = DEFAULT_SIZE, grid: int = 0):
    """Crop `region` exactly and resize with nearest neighbour so its longer side is `size`.

    Returns (view image, metadata). Every view pixel is a copy of one source pixel
    (outside the grid lines and margins, when a grid is asked for).
    """
    size = _int_arg("size", size, MIN_SIZE, MAX_SIZE)
    grid = _int_arg("grid", grid, 0, max(img.size))
    longer = max(region.width, region.height)
    out_w = max(1, round(region.width * size / longer))
    out_h = max(1, round(region.height * size / longer))
    cols = nearest_indices(region.width, out_w)
    rows = nearest_indices(region.height, out_h)
    src = np.asarray(img)[region.y : region.y + region.height, region.x : region.x + region.width]
    view = Image.fromarray(np.ascontiguousarray(src[rows][:, cols]), mode=img.mode)
    meta = {
        "region": region.as_dict(),
        "scale": round(size / longer, 4),
        "view_size": {"width": out_w, "height": out_h},
        "resampling": "nearest",
    }
    if grid:
        view, meta["grid"] = draw_grid(view, region, cols, rows, grid)
    meta["output_size"] = {"width": view.width, "height": view.height}
    return view, meta


def read_pixels(img: Image.Image, region: Region, rows: int | None, columns: int | None, palette: Palette) -> dict:
    """Sample the centre pixel of each of rows x columns bins; symbols come from `palette`."""
    rows = min(region.height, DEFAULT_BINS) if rows is None else rows
    columns = min(region.width, DEFAULT_BINS) if columns is None else columns
    rows = _int_arg("rows", rows, 1, region.height)
    columns = _int_arg("columns", columns, 1, region.width)
    if rows * columns > MAX_SAMPLES:
        raise ToolInputError(
            f"rows x columns = {rows} x {columns} = {rows * columns} samples; at most {MAX_SAMPLES} per call "
            "(e.g. 64 x 64). Split the region into several calls or use fewer rows/columns."
        )
    ys = bin_centres(region.y, region.height, rows)
    xs = bin_centres(region.x, region.width, columns)
    px = np.asarray(img)[np.ix_(ys, xs)]
    colours = [[hex_colour(p) for p in row] for row in px]
    symbol = palette.assign([c for row in colours for c in row])
    used = dict.fromkeys(symbol[c] for row in colours for c in row)
    return {
        "region": region.as_dict(),
        "rows": rows,
        "columns": columns,
        "bin_size": {"width": round(region.width / columns, 3), "height": round(region.height / rows, 3)},
        "sample_x": xs,
        "sample_y": ys,
        "palette": {s: palette.symbols[s] for s in sorted(used, key=list(palette.symbols).index)},
        "grid": ["".join(symbol[c] for c in row) for row in colours],
    }


def image_info(img: Image.Image) -> dict:
    """Size, mode, distinct colours and the commonest colours, exact and coarse."""
    pixels = as_pixels(img)
    arr = np.asarray(pixels)
    flat = arr.reshape(-1, arr.shape[2]).astype(np.uint32)
    packed = np.zeros(len(flat), dtype=np.uint32)
    for ch in range(flat.shape[1]):
        packed = (packed << np.uint32(8)) | flat[:, ch]
    values, counts = np.unique(packed, return_counts=True)
    total = int(counts.sum())
    order = np.argsort(-counts, kind="stable")[:TOP_COLOURS]

    def unpack(v: int) -> tuple:
        return tuple((int(v) >> (8 * (flat.shape[1] - 1 - ch))) & 255 for ch in range(flat.shape[1]))

    top: list[dict[str, Any]] = [
        {"colour": hex_colour(unpack(values[i])), "count": int(counts[i]), "fraction": round(int(counts[i]) / total, 4)}
        for i in order
    ]
    # Coarse: each RGB channel rounded to 4 levels, so photos (all colours distinct) still say something.
    levels = (arr[..., :3] // 64).reshape(-1, 3)
    codes, coarse_counts = np.unique(levels[:, 0] * 16 + levels[:, 1] * 4 + levels[:, 2], return_counts=True)
    coarse_order = np.argsort(-coarse_counts, kind="stable")[:8]
    coarse = [
        {
            "colour": hex_colour(((codes[i] // 16) * 64 + 32, (codes[i] // 4 % 4) * 64 + 32, (codes[i] % 4) * 64 + 32)),
            "fraction": round(int(coarse_counts[i]) / total, 4),
        }
        for i in coarse_order
    ]
    return {
        "width": img.width,
        "height": img.height,
        "mode": img.mode,
        "format": img.format,
        "distinct_colours": len(values),
        "top_colours": top,
        "top_colours_fraction": round(sum(t["count"] for t in top) / total, 4),
        "coarse_colours": coarse,
        "coarse_note": "each channel rounded to one of 4 levels (bin centres 32, 96, 160, 224)",
    }


__all__ = [
    "inspect_view",
    "read_pixels",
    "image_info",
    "as_pixels",
    "resolve_region",
    "Region",
    "DEFAULT_SIZE",
    "MAX_SIZE",
    "MAX_SAMPLES",
    "MAX_VIEWS",
]
