"""A game's frames: 64x64 arrays of colour indices 0-15. Every frame a `play` returns (animation frames included) is
archived in the item's folder (games/frames.py) as the indices (`NNNN.npy`) and as the picture the model was shown
(`NNNN.png`, each game pixel a `scale` x `scale` square, with VISTA's grid lines on request); in python mode the
archive is bound read-only into the workdir (`frames/`) as it grows."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np
from PIL import Image

from agent_eval.benchmarks.games.frames import NumberedArchive, frame_name, frame_stem

# The ARC-AGI-3 palette: colour index -> RGB, as the toolkit renders frames (arc_agi/rendering.py's COLOR_MAP).
HEX_COLOURS = (
    "FFFFFF CCCCCC 999999 666666 333333 000000 E53AA3 FF7BCC F93C31 1E93FF 88D8F1 FFDC00 FF851B 921231 4FCC30 A356D6"
)
PALETTE = np.frombuffer(bytes.fromhex(HEX_COLOURS), dtype=np.uint8).reshape(16, 3)
COLOUR_NAMES = tuple(
    (
        "white, off-white, light grey, grey, off-black, black, magenta, light magenta, red, blue, light blue, yellow, "
        "orange, maroon, green, purple"
    ).split(", ")
)
MIN_SCALE, MAX_SCALE = 1, 16


def checked_frame(frame) -> np.ndarray:
    """The frame as a 2-D uint8 array of indices 0-15, or ValueError saying what is wrong with it."""
    array = np.asarray(frame)
    if array.ndim != 2 or array.size == 0:
        raise ValueError(f"a frame must be a 2-D grid of colour indices, got shape {array.shape}")
    if array.dtype.kind not in "iu" or array.min() < 0 or array.max() > 15:
        raise ValueError("a frame's colour indices must be integers 0-15")
    return array.astype(np.uint8, copy=False)


def frame_hash(frame: np.ndarray) -> str:
    """A frame's identity, checked when a game is replayed (the game host computes the same: game_host.frame_hash)."""
    return hashlib.sha256(np.ascontiguousarray(frame, dtype=np.uint8).tobytes()).hexdigest()[:16]


def grid_text(frame: np.ndarray) -> str:
    """The frame as text (VISTA's text-grid observation): one line per row, one hex digit 0-f per pixel."""
    return "\n".join("".join(_HEX[v] for v in row) for row in np.asarray(frame).tolist())


_HEX = "0123456789abcdef"


def to_rgb(frame: np.ndarray) -> Image.Image:
    return Image.fromarray(PALETTE[frame], mode="RGB")


def png_bytes(frame: np.ndarray, scale: int, grid: bool = False) -> bytes:
    """The frame as a palette PNG, each game pixel a scale x scale square (the same pixels as RGB once decoded, about
    a quarter of the work to encode). grid: VISTA's grid lines (arc3/render.py, render_frame_image): every pixel in a
    row or column that is a multiple of `scale` darkened to (c x 3) // 4 per channel, 16 more palette entries."""
    big = frame.repeat(scale, axis=0).repeat(scale, axis=1) if scale > 1 else frame
    if grid:
        big = big.copy() if big is frame else big
        big[::scale, :] |= len(PALETTE)  # indices are < 16: setting bit 4 moves each to its darkened entry, once
        big[:, ::scale] |= len(PALETTE)
    image = Image.fromarray(np.ascontiguousarray(big), mode="P")
    image.putpalette(_GRID_PALETTE_BYTES if grid else _PALETTE_BYTES)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)  # level 1: fastest; frames are flat colour
    return buffer.getvalue()


GRID_SIDE = 64  # a frame is GRID_SIDE x GRID_SIDE game pixels
_PALETTE_BYTES = PALETTE.tobytes()
_GRID_PALETTE_BYTES = _PALETTE_BYTES + ((PALETTE.astype(np.uint16) * 3) // 4).astype(np.uint8).tobytes()


class FrameArchive(NumberedArchive):
    """The game core's archive (games/frames.py) of grids: `add` writes NNNN.npy then NNNN.png (as shown)."""

    def __init__(self, directory: Path, scale: int, grid: bool = False):
        super().__init__(directory)
        self.scale = scale
        self.grid = grid  # the PNGs drawn with VISTA's grid lines (the image as shown)

    def add(self, frame: np.ndarray) -> tuple[int, bytes]:
        png = png_bytes(frame, self.scale, self.grid)
        number = self._next()
        buffer = io.BytesIO()
        np.save(buffer, frame, allow_pickle=False)
        self._write(f"{frame_stem(number)}.npy", buffer.getvalue())
        self._write(frame_name(number), png)
        return number, png

    def load(self, number: int) -> np.ndarray:
        return np.load(self.directory / f"{frame_stem(number)}.npy", allow_pickle=False)
