"""Exact regions of an image and nearest-neighbour index maps."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from agent_eval.tools.imagetools.errors import ToolInputError


@dataclass(frozen=True)
class Region:
    x: int
    y: int
    width: int
    height: int

    def as_dict(self) -> dict:
        return asdict(self)


def resolve_region(image_size: tuple[int, int], x=None, y=None, width=None, height=None) -> Region:
    """Fill defaults (the rest of the image) and refuse anything not fully inside it."""
    img_w, img_h = image_size
    x = 0 if x is None else x
    y = 0 if y is None else y
    for name, value in (("x", x), ("y", y), ("width", width), ("height", height)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ToolInputError(f"{name} must be an integer number of pixels, got {value!r}")
    size_note = f"the image is {img_w}x{img_h} pixels (x from 0 to {img_w - 1}, y from 0 to {img_h - 1})"
    if not 0 <= x < img_w:
        raise ToolInputError(f"x={x} is outside the image: {size_note}")
    if not 0 <= y < img_h:
        raise ToolInputError(f"y={y} is outside the image: {size_note}")
    width = img_w - x if width is None else width
    height = img_h - y if height is None else height
    if not 1 <= width <= img_w - x:
        raise ToolInputError(f"width={width} at x={x} does not fit: {size_note}, so width must be 1 to {img_w - x}")
    if not 1 <= height <= img_h - y:
        raise ToolInputError(f"height={height} at y={y} does not fit: {size_note}, so height must be 1 to {img_h - y}")
    return Region(x, y, width, height)


def nearest_indices(src_len: int, out_len: int) -> np.ndarray:
    """Source index sampled by each output index: the source pixel under the output pixel's centre.

    Integer arithmetic keeps it exact: with out_len = k * src_len every source pixel
    becomes a block of exactly k output pixels.
    """
    j = np.arange(out_len, dtype=np.int64)
    return np.minimum(((2 * j + 1) * src_len) // (2 * out_len), src_len - 1)


def bin_centres(start: int, length: int, bins: int) -> list[int]:
    """Centre pixel of each of `bins` equal bins over [start, start + length)."""
    return [start + int(i) for i in nearest_indices(length, bins)]
