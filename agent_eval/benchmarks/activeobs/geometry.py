"""Angles, view spans and box mapping on a 360° panorama strip. Conventions (the renderer's, the observation tool's
and the grader's alike):

* The panorama is `width` x `height` pixels (JRDB-AVR: 3760 x 480). Angle θ (degrees) maps to the continuous column
  x = θ * width / 360; column 0 is 0°, angles grow to the right.
* A view is `view` x `height` pixels (480 x 480) centred on θ: its first column is x0 = (round(θ * width / 360) -
  view / 2) mod width and it covers columns x0 .. x0 + view - 1, modulo width (a view across the seam wraps).
* Panorama boxes are [x1, y1, x2, y2] in pixels with 0 <= x1 < width and x2 > x1; x2 may exceed width for a box
  across the seam. Overlaps are measured on the cylinder.
* Evidence boxes are given in the observed view's coordinates normalised to 0-1000.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

PANO_WIDTH = 3760
PANO_HEIGHT = 480
VIEW_SIZE = 480
FPS = 15.0
NORM = 1000.0
# Thresholds (angles, frames, IoU, ratios) are inclusive and compared with this slack, in the
# threshold's own units: far below the data's precision (0.1° angles, 0.1 px boxes, whole
# frames) and far above float rounding (258.6 - 238.6 is 20.00000000000003).
EPS = 1e-6

Box = tuple[float, float, float, float]


def at_most(value: float, limit: float) -> bool:
    return value <= limit + EPS


def at_least(value: float, limit: float) -> bool:
    return value >= limit - EPS


def wrap_angle(angle: float) -> float:
    """Any finite angle -> [0, 360)."""
    wrapped = math.fmod(angle, 360.0)
    if wrapped < 0:
        wrapped += 360.0
    return 0.0 if wrapped >= 360.0 else wrapped  # -1e-17 + 360 rounds to 360


def angle_error(a: float, b: float) -> float:
    """Smallest absolute difference between two angles, in [0, 180]."""
    diff = abs(wrap_angle(a) - wrap_angle(b))
    return min(diff, 360.0 - diff)


def angle_to_x(angle: float, width: int = PANO_WIDTH) -> float:
    return wrap_angle(angle) * width / 360.0


def x_to_angle(x: float, width: int = PANO_WIDTH) -> float:
    return wrap_angle(x * 360.0 / width)


@dataclass(frozen=True)
class ViewSpan:
    """Which panorama columns a view shows: x0 .. x0 + size - 1, modulo width."""

    x0: int
    size: int = VIEW_SIZE
    width: int = PANO_WIDTH

    @property
    def x1(self) -> int:
        """End column (exclusive), unwrapped: may exceed width."""
        return self.x0 + self.size

    @property
    def wraps(self) -> bool:
        return self.x1 > self.width

    def columns(self) -> list[int]:
        return [(self.x0 + i) % self.width for i in range(self.size)]

    def pieces(self) -> list[tuple[int, int]]:
        """The span as one or two [start, end) column ranges inside the panorama."""
        if not self.wraps:
            return [(self.x0, self.x1)]
        return [(self.x0, self.width), (0, self.x1 - self.width)]

    def describe(self) -> dict:
        return {
            "x_start": self.x0,
            "x_end": self.x1 % self.width,
            "wraps_seam": self.wraps,
            "pieces": [list(p) for p in self.pieces()],
        }


def view_span(angle: float, width: int = PANO_WIDTH, size: int = VIEW_SIZE) -> ViewSpan:
    centre = round(angle_to_x(angle, width))
    return ViewSpan(x0=(centre - size // 2) % width, size=size, width=width)


def canonical_box(box: Box, width: int = PANO_WIDTH) -> Box:
    """Shift a panorama box so that 0 <= x1 < width (x2 keeps the box's width)."""
    x1, y1, x2, y2 = box
    shift = math.floor(x1 / width) * width
    return (x1 - shift, y1, x2 - shift, y2)


def _overlap(a1: float, a2: float, b1: float, b2: float) -> float:
    return max(0.0, min(a2, b2) - max(a1, b1))


def circular_iou(a: Box, b: Box, width: int = PANO_WIDTH) -> float:
    """IoU of two panorama boxes on the cylinder (each narrower than half the panorama)."""
    a, b = canonical_box(a, width), canonical_box(b, width)
    area_a = max(0.0, a[2] - a[0]) * max(0.0, a[3] - a[1])
    area_b = max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])
    if area_a <= 0 or area_b <= 0:
        return 0.0
    dy = _overlap(a[1], a[3], b[1], b[3])
    dx = max(_overlap(a[0], a[2], b[0] + k * width, b[2] + k * width) for k in (-1, 0, 1))
    inter = dx * dy
    return inter / (area_a + area_b - inter)


def interval_iou(a: tuple[float, float], b: tuple[float, float]) -> float:
    """IoU of two closed frame intervals [start, end] (inclusive frame counts)."""
    a0, a1 = sorted(a)
    b0, b1 = sorted(b)
    inter = max(0.0, min(a1, b1) - max(a0, b0) + 1)
    union = (a1 - a0 + 1) + (b1 - b0 + 1) - inter
    return inter / union if union > 0 else 0.0


def view_px_to_norm(box: Box, size: int = VIEW_SIZE, height: int = PANO_HEIGHT) -> Box:
    x1, y1, x2, y2 = box
    return (x1 * NORM / size, y1 * NORM / height, x2 * NORM / size, y2 * NORM / height)


def view_box_to_pano(
    box_norm: Box, angle: float, width: int = PANO_WIDTH, size: int = VIEW_SIZE, height: int = PANO_HEIGHT
) -> Box:
    """A box in the view centred on `angle` (0-1000 normalised) -> canonical panorama box."""
    x1, x2 = sorted((box_norm[0] * size / NORM, box_norm[2] * size / NORM))
    y1, y2 = sorted((box_norm[1] * height / NORM, box_norm[3] * height / NORM))
    x0 = view_span(angle, width, size).x0
    return canonical_box((x0 + x1, y1, x0 + x2, y2), width)


def pano_box_to_view(
    box: Box, angle: float, width: int = PANO_WIDTH, size: int = VIEW_SIZE, clip: bool = True
) -> Box | None:
    """A panorama box -> view pixels in the view centred on `angle`; None when not in view.
    With clip=False the box keeps the parts outside the view (same shift as the visible part)."""
    x0 = view_span(angle, width, size).x0
    x1, y1, x2, y2 = canonical_box(box, width)
    best = max(
        ((x1 + k * width - x0, x2 + k * width - x0) for k in (-1, 0, 1)),
        key=lambda span: _overlap(span[0], span[1], 0, size),
    )
    if _overlap(best[0], best[1], 0, size) <= 0:
        return None
    if not clip:
        return (best[0], y1, best[1], y2)
    return (max(0.0, best[0]), y1, min(float(size), best[1]), y2)
