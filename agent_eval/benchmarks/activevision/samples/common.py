"""Shared pieces of the sample generators: the generator interface, difficulty levels and
deterministic drawing helpers (no anti-aliasing, integer text positions)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np
from PIL import Image, ImageDraw, ImageFont

DIFFICULTIES = ("easy", "normal", "hard")
ANSWER_INSTRUCTION = "Provide your final answer enclosed in <answer>...</answer> tags."
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)

# A generator draws one item from its own seeded Generator: (rng, difficulty) -> (image, question, answer).
Generator = Callable[[np.random.Generator, str], "tuple[Image.Image, str, str]"]


@dataclass(frozen=True)
class TaskSpec:
    name: str  # the real bank's task name
    prefix: str  # the real bank's id prefix (e.g. "MPT" -> MPT-0)
    category: str
    generate: Generator
    answer_pattern: str  # full-match regex of the answer format the real bank uses for this task


class GenerationFailed(RuntimeError):
    """Rejection sampling ran out of attempts (a bug or impossible parameters, never expected)."""


def level(difficulty: str, easy, normal, hard):
    """Pick the value for a difficulty level."""
    return {"easy": easy, "normal": normal, "hard": hard}[difficulty]


def canvas(width: int, height: int, color=WHITE) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGB", (int(width), int(height)), color)
    draw = ImageDraw.Draw(img)
    draw.fontmode = "1"  # binary glyphs: exact, reproducible pixels
    return img, draw


@lru_cache(maxsize=None)
def get_font(size: int):
    """Pillow's bundled font, so rendering doesn't depend on the fonts installed on the machine."""
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, ImportError, OSError):  # Pillow without FreeType: fixed bitmap font
        return ImageFont.load_default()


def draw_label(draw: ImageDraw.ImageDraw, center, text: str, fill, size: int) -> None:
    """Draw text centred on `center` at an integer offset, so the same glyph raster is reproduced."""
    font = get_font(size)
    x0, y0, x1, y1 = font.getbbox(text)
    cx, cy = int(round(center[0])), int(round(center[1]))
    draw.text((cx - (x1 - x0) // 2 - x0, cy - (y1 - y0) // 2 - y0), text, fill=fill, font=font)


def question(*parts: str) -> str:
    return " ".join(parts + (ANSWER_INSTRUCTION,))


OUTWARD = ((0, -1), (1, 0), (0, 1), (-1, 0))  # from each side of the canvas: top, right, bottom, left


def side_point(rng: np.random.Generator, width: int, height: int, inset: float, corner: float):
    """A random side (an index of OUTWARD) of the rectangle `inset` px inside the canvas's edge, and a point on it
    at least `corner` px from the canvas's corners."""
    side = int(rng.integers(4))
    if side in (0, 2):
        x = rng.uniform(corner, width - corner)
        return side, np.array([x, inset if side == 0 else height - inset], float)
    y = rng.uniform(corner, height - corner)
    return side, np.array([inset if side == 3 else width - inset, y], float)


def point_segment_distance(p, a, b) -> np.ndarray:
    """Distance from points p (..., 2) to segment a-b."""
    p, a, b = (np.asarray(v, dtype=float) for v in (p, a, b))
    ab = b - a
    denom = float(ab @ ab)
    t = np.zeros(p.shape[:-1]) if denom == 0 else np.clip(((p - a) @ ab) / denom, 0.0, 1.0)
    return np.linalg.norm(p - (a + t[..., None] * ab), axis=-1)


def segment_intersection(a, b, c, d):
    """Parameters (t, u) where a + t(b-a) == c + u(d-c) with both in [0, 1], or None."""
    r, s = np.subtract(b, a), np.subtract(d, c)
    den = r[0] * s[1] - r[1] * s[0]
    if abs(den) < 1e-12:
        return None
    q = np.subtract(c, a)
    t = (q[0] * s[1] - q[1] * s[0]) / den
    u = (q[0] * r[1] - q[1] * r[0]) / den
    if 0.0 <= t <= 1.0 and 0.0 <= u <= 1.0:
        return float(t), float(u)
    return None


def angle_between(u, v) -> float:
    """Unsigned angle between two lines' directions in degrees, folded into [0, 90]."""
    cos = abs(float(np.dot(u, v)) / float(np.linalg.norm(u) * np.linalg.norm(v)))
    return float(np.degrees(np.arccos(min(1.0, cos))))
