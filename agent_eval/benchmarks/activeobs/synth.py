"""Random but reproducible scenes: people with distinct looks wandering in their own sector of the 360° strip (so
they never cross or hide each other), changing action every few seconds. One sector always straddles the 0°/360°
seam, so seam handling is exercised by every sequence."""

from __future__ import annotations

import random

from agent_eval.benchmarks.activeobs.geometry import FPS
from agent_eval.benchmarks.activeobs.scene import (
    ACTIONS,
    HAT_COLOURS,
    PANTS_COLOURS,
    SHIRT_COLOURS,
    Landmark,
    Person,
    Scene,
    Segment,
)

SECTOR_MARGIN_DEG = 8.0  # keeps a figure (about 12° wide at the nearest) inside its sector
WALK_SPEED_DEG_S = (3.0, 7.0)
SEGMENT_S = (2.0, 5.0)
DISTANCE = (2.3, 5.5)


def _looks(rng: random.Random, n: int) -> list[dict]:
    """Shirts repeat (so a shirt alone does not always identify someone); hats are unique colours;
    the whole look is unique."""
    shirts = list(SHIRT_COLOURS)
    hats = rng.sample(list(HAT_COLOURS), k=min(len(HAT_COLOURS), n))
    looks: list[dict] = []
    while len(looks) < n:
        look = {
            "shirt": rng.choice(shirts[: max(3, n - 2)]),
            "pants": rng.choice(list(PANTS_COLOURS)),
            "hat": hats[len(looks)] if rng.random() < 0.5 else None,
            "bag": rng.random() < 0.5,
        }
        if look not in looks:
            looks.append(look)
    return looks


def _timeline(rng: random.Random, n_frames: int, fps: float, lo: float, hi: float) -> tuple[Segment, ...]:
    segments: list[Segment] = []
    angle = rng.uniform(lo, hi)
    frame, previous = 0, None
    while frame < n_frames:
        action = rng.choice([a for a in ACTIONS if a != previous])
        length = int(rng.uniform(*SEGMENT_S) * fps)
        end = min(n_frames - 1, frame + length - 1)
        if n_frames - 1 - end < SEGMENT_S[0] * fps:  # no stub at the end
            end = n_frames - 1
        target = angle
        if action == "walking":
            travel = rng.uniform(*WALK_SPEED_DEG_S) * (end - frame) / fps
            direction = rng.choice((-1, 1))
            if not lo <= angle + direction * travel <= hi:
                direction = -direction
            target = min(hi, max(lo, angle + direction * travel))
        segments.append(Segment(frame, end, action, round(angle, 3), round(target, 3)))
        angle, frame, previous = target, end + 1, action
    return tuple(segments)


def _landmarks(rng: random.Random) -> tuple[Landmark, ...]:
    marks = []
    for _ in range(rng.randint(7, 10)):
        kind = rng.choice(("building", "building", "tree", "pole"))
        colour = {
            "building": (rng.randint(90, 180), rng.randint(90, 160), rng.randint(90, 170)),
            "tree": (rng.randint(30, 70), rng.randint(100, 150), rng.randint(30, 70)),
            "pole": (60, 60, 66),
        }[kind]
        width = {"building": rng.uniform(12, 35), "tree": rng.uniform(4, 8), "pole": 0.5}[kind]
        height = {"building": rng.randint(70, 170), "tree": rng.randint(80, 140), "pole": rng.randint(120, 190)}[kind]
        marks.append(Landmark(kind, round(rng.uniform(0, 360), 2), round(width, 2), height, colour))
    return tuple(marks)


def make_scene(sequence: str, seed: int, n_frames: int = 300, n_people: int = 6, fps: float = FPS) -> Scene:
    rng = random.Random(f"{sequence}/{seed}")
    sector = 360.0 / n_people
    offset = rng.uniform(0.3, 0.7) * sector  # the last sector straddles the seam
    people = []
    for index, look in enumerate(_looks(rng, n_people)):
        lo = offset + index * sector + SECTOR_MARGIN_DEG
        hi = offset + (index + 1) * sector - SECTOR_MARGIN_DEG
        people.append(
            Person(
                id=f"p{index + 1}",
                distance=round(rng.uniform(*DISTANCE), 2),
                segments=_timeline(rng, n_frames, fps, lo, hi),
                **look,
            )
        )
    return Scene(
        sequence=sequence,
        n_frames=n_frames,
        people=tuple(people),
        landmarks=_landmarks(rng),
        fps=fps,
        seed=rng.randint(0, 2**31 - 1),
    )
