"""Deterministic rendering of a scene: the static background strip, people as simple figures, and each person's
exact box (the union of the shapes drawn for them). A view renders only its 480 columns (background columns
gathered, then the people in range drawn), in a few milliseconds; a whole panorama frame is rendered only for the
passive baseline and tests."""

from __future__ import annotations

import io
import math
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from agent_eval.benchmarks.activeobs.geometry import Box, angle_to_x, canonical_box, view_span
from agent_eval.benchmarks.activeobs.scene import HAT_COLOURS, PANTS_COLOURS, SHIRT_COLOURS, Person, Scene

SKIN = (222, 182, 142)
BAG = (160, 110, 55)
CHAIR = (70, 70, 78)
FIGURE_HEIGHT_K = 560.0  # a standing figure is K / distance pixels tall
FEET_K = 500.0  # its feet are FEET_K / distance pixels below the horizon
WALK_PERIOD = 10  # frames per stride
WAVE_PERIOD = 8  # frames per wave

# A part: ("poly", [(x, y), ...], colour) or ("ellipse", (x1, y1, x2, y2), colour), in panorama pixels.
Part = tuple[str, list[tuple[float, float]] | tuple[float, float, float, float], tuple[int, int, int]]


def _limb(p: tuple[float, float], q: tuple[float, float], width: float) -> list[tuple[float, float]]:
    dx, dy = q[0] - p[0], q[1] - p[1]
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length * width / 2, dx / length * width / 2
    return [(p[0] + nx, p[1] + ny), (q[0] + nx, q[1] + ny), (q[0] - nx, q[1] - ny), (p[0] - nx, p[1] - ny)]


def figure_parts(scene: Scene, person: Person, frame: int) -> list[Part]:
    """The shapes of one person at one frame, back to front, around their panorama column."""
    cx = angle_to_x(person.angle_at(frame), scene.width)
    feet = scene.horizon + FEET_K / person.distance
    u = FIGURE_HEIGHT_K / person.distance / 17.0

    def P(x: float, y: float) -> tuple[int, int]:
        # Whole pixels, rounded once here: every copy of the figure (views, the seam's two
        # sides) is then the same polygons shifted by whole columns, so rasterised identically.
        return (math.floor(cx + x * u + 0.5), math.floor(feet + y * u + 0.5))

    def R(x1: float, y1: float, x2: float, y2: float) -> list[tuple[float, float]]:
        return [P(x1, y1), P(x2, y1), P(x2, y2), P(x1, y2)]

    shirt, pants = SHIRT_COLOURS[person.shirt], PANTS_COLOURS[person.pants]
    action = person.action_at(frame)
    parts: list[Part] = []
    if action == "sitting":
        parts.append(("poly", R(-2.7, -9.0, 2.7, -4.6), CHAIR))  # chair back
        parts += [("poly", R(-2.7, -4.6, -2.2, 0), CHAIR), ("poly", R(2.2, -4.6, 2.7, 0), CHAIR)]
        parts.append(("poly", R(-2.0, -5.0, 2.0, -3.8), pants))  # thighs (towards us)
        parts += [("poly", R(-1.8, -3.8, -0.3, 0), pants), ("poly", R(0.3, -3.8, 1.8, 0), pants)]
        torso_top, torso_bottom, head_y = -10.5, -5.0, -12.0
        arms = [((-2.0, -10.0), (-2.4, -5.5)), ((2.0, -10.0), (2.4, -5.5))]
    else:
        swing = 1.8 * math.sin(2 * math.pi * frame / WALK_PERIOD) if action == "walking" else 0.0
        parts += [
            ("poly", [P(*q) for q in _limb((-0.9, -7.5), (-0.9 + swing, 0), 1.6)], pants),
            ("poly", [P(*q) for q in _limb((0.9, -7.5), (0.9 - swing, 0), 1.6)], pants),
        ]
        torso_top, torso_bottom, head_y = -14.0, -7.5, -15.5
        arms = [((-2.0, -13.5), (-2.6 - 0.6 * swing, -8.0)), ((2.0, -13.5), (2.6 + 0.6 * swing, -8.0))]
        if action == "waving":
            wave = 1.2 * math.sin(2 * math.pi * frame / WAVE_PERIOD)
            arms[1] = ((2.0, -13.5), (3.2 + wave, -19.5))
    parts.append(("poly", R(-2.0, torso_top, 2.0, torso_bottom), shirt))
    parts += [("poly", [P(*q) for q in _limb(a, b, 0.8)], shirt) for a, b in arms]
    if person.bag:
        parts.append(("poly", R(-3.5, torso_top + 3.0, -2.1, torso_bottom + 0.5), BAG))
    head = (*P(-1.5, head_y - 1.5), *P(1.5, head_y + 1.5))
    parts.append(("ellipse", head, SKIN))
    if person.hat:
        hat = HAT_COLOURS[person.hat]
        top = head_y - 1.5
        parts += [("poly", R(-1.6, top - 1.3, 1.6, top + 0.4), hat), ("poly", R(-2.3, top + 0.1, 2.3, top + 0.6), hat)]
    return parts


def _parts_box(parts: list[Part]) -> Box:
    # a polygon's points, an ellipse's two corners
    xs, ys = zip(*(p for _, shape, _ in parts for p in (shape if isinstance(shape, list) else (shape[:2], shape[2:]))))
    return (min(xs), min(ys), max(xs), max(ys))


def person_box(scene: Scene, person: Person, frame: int) -> Box:
    """The person's exact panorama box at a frame (canonical: 0 <= x1 < width)."""
    return canonical_box(_parts_box(figure_parts(scene, person, frame)), scene.width)


def _draw(draw: ImageDraw.ImageDraw, parts: list[Part], dx: float) -> None:
    for _, shape, colour in parts:
        if isinstance(shape, list):  # a "poly"
            draw.polygon([(x + dx, y) for x, y in shape], fill=colour)
        else:
            x1, y1, x2, y2 = shape
            draw.ellipse((x1 + dx, y1, x2 + dx, y2), fill=colour)


@lru_cache(maxsize=16)
def background(scene: Scene) -> np.ndarray:
    """The static strip (height x width x 3, uint8): sky, ground, landmarks, paving lines."""
    w, h, horizon = scene.width, scene.height, scene.horizon
    rows = np.arange(h, dtype=np.float32)[:, None]
    sky = np.array([150, 190, 235], np.float32) + (rows / max(horizon, 1)) * np.array([60, 35, 5], np.float32)
    ground = np.array([125, 118, 105], np.float32) - ((rows - horizon) / max(h - horizon, 1)) * 40
    strip = np.where(rows[..., None] < horizon, sky[:, None, :], ground[:, None, :]) * np.ones((1, w, 1), np.float32)
    strip[horizon:, ::47] -= 14  # paving joints: texture that compresses well (no pixel noise)
    strip[horizon + 40 :: 60, :] -= 8
    image = Image.fromarray(np.clip(strip, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(image)
    for mark in scene.landmarks:
        x1 = angle_to_x(mark.angle, w)
        x2 = x1 + mark.width_deg * w / 360.0
        top = horizon - mark.height
        darker = tuple(int(c * 0.6) for c in mark.colour)
        for dx in (0, -w):  # the copy at -w draws the part past the seam
            if mark.kind == "building":
                draw.rectangle((x1 + dx, top, x2 + dx, horizon + 8), fill=mark.colour)
                step = max(12.0, (x2 - x1) / 6)
                x = x1 + step / 2
                while x + 6 < x2:
                    for y in range(int(top) + 12, horizon - 10, 28):
                        draw.rectangle((x + dx, y, x + 6 + dx, y + 10), fill=darker)
                    x += step
            elif mark.kind == "tree":
                mid = (x1 + x2) / 2
                draw.rectangle((mid - 5 + dx, top + mark.height * 0.4, mid + 5 + dx, horizon + 6), fill=(90, 60, 35))
                draw.ellipse((x1 + dx, top, x2 + dx, top + mark.height * 0.6), fill=mark.colour)
            else:
                draw.rectangle((x1 + dx, top, x1 + 4 + dx, horizon + 10), fill=mark.colour)
    return np.asarray(image)


def _people_back_to_front(scene: Scene) -> list[Person]:
    return sorted(scene.people, key=lambda p: -p.distance)


def render_view(scene: Scene, frame: int, angle: float, size: int | None = None) -> Image.Image:
    """The square view centred on `angle` at `frame` (size x height pixels; size = height by default)."""
    size = size or scene.height
    span = view_span(angle, scene.width, size)
    image = Image.fromarray(background(scene)[:, span.columns()])
    draw = ImageDraw.Draw(image)
    for person in _people_back_to_front(scene):
        parts = figure_parts(scene, person, frame)
        x1, _, x2, _ = _parts_box(parts)
        for k in (-1, 0, 1):  # the one copy of the figure that falls in the view
            dx = k * scene.width - span.x0
            if x2 + dx >= 0 and x1 + dx <= size:
                _draw(draw, parts, dx)
    return image


def render_panorama(scene: Scene, frame: int, without: str | None = None) -> Image.Image:
    """The whole strip at `frame` (optionally leaving one person out, for tests)."""
    image = Image.fromarray(background(scene).copy())
    draw = ImageDraw.Draw(image)
    for person in _people_back_to_front(scene):
        if person.id == without:
            continue
        parts = figure_parts(scene, person, frame)
        for dx in (-scene.width, 0, scene.width):
            _draw(draw, parts, dx)
    return image


def png_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()
