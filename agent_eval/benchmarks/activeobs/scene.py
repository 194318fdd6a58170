"""The scene description of one panoramic sequence (`scenes/<sequence>.json`; its format and rules in
docs/kinds/activeobs.md): people, their looks, actions and paths. Pure data, never inside a sandbox: render.py
turns it into pixels deterministically, and every ground-truth fact (where a person is, what they do, their box)
is a query on it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from agent_eval.benchmarks.activeobs.geometry import FPS, PANO_HEIGHT, PANO_WIDTH, wrap_angle

FORMAT = "agent-eval/activeobs-scene"
VERSION = 1
ACTIONS = ("walking", "standing", "sitting", "waving")
SHIRT_COLOURS = {
    "red": (200, 30, 35),
    "blue": (35, 70, 205),
    "green": (35, 150, 60),
    "yellow": (235, 205, 35),
    "purple": (125, 45, 165),
    "orange": (240, 130, 25),
    "white": (240, 240, 240),
    "black": (25, 25, 28),
}
PANTS_COLOURS = {"black": (30, 30, 35), "blue": (45, 65, 115), "grey": (115, 115, 120), "brown": (105, 70, 40)}
HAT_COLOURS = {
    "red": (215, 25, 25),
    "blue": (30, 90, 220),
    "green": (30, 170, 70),
    "yellow": (245, 215, 20),
    "white": (245, 245, 245),
    "black": (20, 20, 20),
}
LANDMARK_KINDS = ("building", "tree", "pole")


class SceneError(ValueError):
    """The scene description is inconsistent; the message says where."""


@dataclass(frozen=True)
class Segment:
    start: int
    end: int  # inclusive
    action: str
    angle_start: float
    angle_end: float

    def angle_at(self, frame: int) -> float:
        if self.end == self.start:
            return wrap_angle(self.angle_start)
        t = (frame - self.start) / (self.end - self.start)
        return wrap_angle(self.angle_start + t * (self.angle_end - self.angle_start))


@dataclass(frozen=True)
class Person:
    id: str
    shirt: str
    pants: str
    hat: str | None
    bag: bool
    distance: float
    segments: tuple[Segment, ...]

    def segment_at(self, frame: int) -> Segment:
        for segment in self.segments:
            if segment.start <= frame <= segment.end:
                return segment
        raise SceneError(f"person {self.id}: no segment covers frame {frame}")

    def first_segment(self, action: str) -> Segment | None:
        """Where the person first does `action` (None: never)."""
        return next((s for s in self.segments if s.action == action), None)

    def action_at(self, frame: int) -> str:
        return self.segment_at(frame).action

    def angle_at(self, frame: int) -> float:
        return self.segment_at(frame).angle_at(frame)


@dataclass(frozen=True)
class Landmark:
    kind: str
    angle: float  # left edge
    width_deg: float
    height: int  # pixels above the horizon
    colour: tuple[int, int, int]


@dataclass(frozen=True)
class Scene:
    sequence: str
    n_frames: int
    people: tuple[Person, ...]
    landmarks: tuple[Landmark, ...] = ()
    fps: float = FPS
    width: int = PANO_WIDTH
    height: int = PANO_HEIGHT
    horizon: int = 200
    seed: int = 0

    def person(self, person_id: str) -> Person:
        for person in self.people:
            if person.id == person_id:
                return person
        raise SceneError(f"scene {self.sequence}: no person {person_id!r}")

    def time_of(self, frame: int) -> float:
        return frame / self.fps

    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "sequence": self.sequence,
            "panorama": {"width": self.width, "height": self.height},
            "fps": self.fps,
            "n_frames": self.n_frames,
            "seed": self.seed,
            "horizon": self.horizon,
            "landmarks": [asdict(mark) for mark in self.landmarks],  # tuples are written as JSON lists
            "people": [asdict(person) for person in self.people],
        }

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=1) + "\n")


def _parse(data: dict) -> Scene:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SceneError(f'not a scene description (expected "format": "{FORMAT}")')
    if data.get("version") != VERSION:
        raise SceneError(f"unsupported scene version {data.get('version')!r} (this harness reads {VERSION})")
    n_frames = int(data["n_frames"])
    if n_frames < 1:
        raise SceneError("n_frames must be at least 1")
    panorama = data.get("panorama", {})
    people = []
    for raw in data["people"]:
        segments = tuple(
            Segment(int(s["start"]), int(s["end"]), str(s["action"]), float(s["angle_start"]), float(s["angle_end"]))
            for s in raw["segments"]
        )
        person = Person(
            str(raw["id"]),
            str(raw["shirt"]),
            str(raw["pants"]),
            None if raw.get("hat") is None else str(raw["hat"]),
            bool(raw.get("bag", False)),
            float(raw["distance"]),
            segments,
        )
        _check_person(person, n_frames)
        people.append(person)
    if len({p.id for p in people}) != len(people):
        raise SceneError("person ids are not unique")
    landmarks = []
    for raw in data.get("landmarks", []):
        if raw["kind"] not in LANDMARK_KINDS:
            raise SceneError(f"landmark kind {raw['kind']!r} is not one of {', '.join(LANDMARK_KINDS)}")
        red, green, blue = (int(c) for c in raw["colour"])
        landmarks.append(
            Landmark(
                str(raw["kind"]), float(raw["angle"]), float(raw["width_deg"]), int(raw["height"]), (red, green, blue)
            )
        )
    return Scene(
        sequence=str(data["sequence"]),
        n_frames=n_frames,
        people=tuple(people),
        landmarks=tuple(landmarks),
        fps=float(data.get("fps", FPS)),
        width=int(panorama.get("width", PANO_WIDTH)),
        height=int(panorama.get("height", PANO_HEIGHT)),
        horizon=int(data.get("horizon", 200)),
        seed=int(data.get("seed", 0)),
    )


def _check_person(person: Person, n_frames: int) -> None:
    where = f"person {person.id}"
    for part, colours in (("shirt", SHIRT_COLOURS), ("pants", PANTS_COLOURS), ("hat", HAT_COLOURS)):
        colour = getattr(person, part)
        if colour is not None and colour not in colours:  # no hat is None
            raise SceneError(f"{where}: {part} colour {colour!r} is not one of {', '.join(colours)}")
    if not 1.0 <= person.distance <= 20.0:
        raise SceneError(f"{where}: distance {person.distance} is outside 1..20")
    expected = 0
    for segment in person.segments:
        if segment.action not in ACTIONS:
            raise SceneError(f"{where}: action {segment.action!r} is not one of {', '.join(ACTIONS)}")
        if segment.start != expected or segment.end < segment.start:
            raise SceneError(
                f"{where}: segments must be contiguous from frame 0 (segment at {segment.start}, expected {expected})"
            )
        expected = segment.end + 1
    if expected != n_frames:
        raise SceneError(f"{where}: segments end at frame {expected - 1}, the sequence at {n_frames - 1}")


def load_scene(path: Path | str) -> Scene:
    """Read and check a scene file; cached per (path, mtime) so concurrent items share it."""
    path = Path(path)
    return _load_cached(str(path.resolve()), path.stat().st_mtime_ns)


@lru_cache(maxsize=32)
def _load_cached(path: str, mtime_ns: int) -> Scene:
    try:
        return _parse(json.loads(Path(path).read_text(encoding="utf-8")))
    except json.JSONDecodeError as error:
        raise SceneError(f"malformed JSON at line {error.lineno} ({error.msg})") from None
    except SceneError:
        raise
    except (KeyError, TypeError, ValueError) as error:
        raise SceneError(f"malformed scene description ({type(error).__name__}: {error})") from None
