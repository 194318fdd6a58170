"""The agent's explicit memory (JRDB-AVR's world model; docs/kinds/activeobs.md): a graph of what it saw, every
fact citing an observation it obtained (a numbered view, or in tool mode none an attached panorama frame). A write
citing anything else is refused with a message saying what it can cite. The graph holds only what the agent wrote
plus where its own observations were: nothing of the scene or the answer. Kept in `<item>/worldmodel/`.
"""

from __future__ import annotations

import contextlib
import json
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from agent_eval.benchmarks.activeobs.geometry import NORM, canonical_box, view_box_to_pano
from agent_eval.benchmarks.notes import write_atomic
from agent_eval.datamodel.jsonl import append_line, log_lines

ENTITY_KINDS = ("person", "object")
ATTRIBUTE_TYPES = ("appearance", "action", "state")
RELATION_TYPES = ("spatial", "temporal", "social")
RECORDS = ("entities", "attributes", "relations")  # the graph's lists, in the order saved
GRAPH_FILE = "graph.json"
HISTORY_FILE = "history.jsonl"
VERSIONS_DIR = "versions"
FOLDER = "worldmodel"


class GraphRefusal(ValueError):
    """A write the graph does not accept; its message says what the agent can do instead."""


@dataclass(frozen=True)
class Sighting:
    """One observation the agent obtained: a view (frame, centred on angle) or a whole panorama frame
    (angle None, tool mode none)."""

    number: int
    frame: int
    angle: float | None
    time_s: float | None = None

    def cited(self) -> dict:
        """What a fact written from this observation records of it."""
        return {"observation": self.number, "frame": self.frame}

    def describe(self) -> str:
        where = "the whole panorama" if self.angle is None else f"view at {self.angle:g}°"
        return f"frame {self.frame}, {where}"


def sightings_from_log(entries: list[dict]) -> dict[int, Sighting]:
    """The observe tool's logged entries (ObservationLog.entries or observations.jsonl) -> its views."""
    return {
        int(e["n"]): Sighting(int(e["n"]), int(e["frame_index"]), float(e["angle_deg"]), e.get("time_s"))
        for e in entries
        if e.get("ok") and "frame_index" in e and "angle_deg" in e
    }


def passive_sightings(frames: list[tuple[int, float | None]]) -> dict[int, Sighting]:
    """The attached panorama frames of tool mode none, numbered from 1 as the prompt names them."""
    return {n: Sighting(n, int(frame), None, time_s) for n, (frame, time_s) in enumerate(frames, start=1)}


def pano_box(entity: dict, width: int, height: int) -> tuple[float, float, float, float]:
    """An entity's 0-1000 box in the image it cites -> the panorama box (pixels, canonical)."""
    angle = entity.get("angle")
    x1, y1, x2, y2 = (float(v) for v in entity["bbox"])
    if angle is None:  # the whole strip: x spans the panorama's width
        return canonical_box((x1 * width / NORM, y1 * height / NORM, x2 * width / NORM, y2 * height / NORM), width)
    return view_box_to_pano((x1, y1, x2, y2), float(angle), width, height, height)


def _text(value, name: str, limit: int = 300) -> str:
    if not isinstance(value, str) or not value.strip():
        raise GraphRefusal(f"{name} must be a non-empty text")
    if len(value) > limit:
        raise GraphRefusal(f"{name} is {len(value)} characters long; keep it under {limit}")
    return value.strip()


def _choice(value, name: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise GraphRefusal(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _bbox(value) -> list[float]:
    ok = isinstance(value, (list, tuple)) and len(value) == 4
    numbers = [v for v in value if isinstance(v, (int, float)) and not isinstance(v, bool)] if ok else []
    if len(numbers) != 4 or not all(math.isfinite(v) for v in numbers):
        raise GraphRefusal("bbox must be [x1, y1, x2, y2], four numbers from 0 to 1000")
    x1, y1, x2, y2 = numbers
    if not (0 <= x1 < x2 <= NORM and 0 <= y1 < y2 <= NORM):
        raise GraphRefusal(
            f"bbox {list(value)} is not a box in the image: need 0 <= x1 < x2 <= 1000 and 0 <= y1 < y2 <= 1000"
        )
    return [round(float(v), 1) for v in numbers]


class WorldGraph:
    """The graph of one item attempt; thread-safe (the MCP server runs tool calls in worker threads).

    `sightings` returns, at the time of each write, the observations the agent has obtained so far."""

    def __init__(self, directory: Path | str, sightings: Callable[[], dict[int, Sighting]], passive: bool = False):
        self.directory = Path(directory)
        (self.directory / VERSIONS_DIR).mkdir(parents=True, exist_ok=True)
        self.sightings = sightings
        self.passive = passive
        self.started = time.monotonic()
        self.entities: list[dict] = []
        self.attributes: list[dict] = []
        self.relations: list[dict] = []
        self.version = 0
        self._lock = threading.Lock()
        self._save()

    # -- what the agent can cite
    def _cite(self, observation) -> Sighting:
        seen = self.sightings()
        if isinstance(observation, int) and not isinstance(observation, bool) and observation in seen:
            return seen[observation]
        if self.passive:
            raise GraphRefusal(
                f"observation {observation!r} is not one of the frames you were shown: cite the number of an "
                f"attached image ({_numbers(seen)})"
            )
        if not seen:
            raise GraphRefusal(
                f"observation {observation!r} was never made: you have made no observation yet; call observe "
                "first and cite the `observation` number it returns"
            )
        listed = "; ".join(f"{n}: {s.describe()}" for n, s in sorted(seen.items())[-12:])
        raise GraphRefusal(
            f"observation {observation!r} was never made: cite one of the observations you made ({listed}), "
            "or call observe to look first"
        )

    def _entity(self, entity) -> dict:
        found = next((e for e in self.entities if e["id"] == entity), None)
        if found is None:
            known = ", ".join(e["id"] for e in self.entities) or "none yet: add_entity first"
            raise GraphRefusal(f"no entity {entity!r} in the graph (entities: {known})")
        return found

    # -- writes
    def add_entity(self, observation, kind, label, bbox) -> dict:
        with self._write("add_entity", observation=observation, kind=kind, label=label, bbox=bbox) as add:
            kind, label, box = _choice(kind, "kind", ENTITY_KINDS), _text(label, "label"), _bbox(bbox)
            seen = self._cite(observation)
            entity = {"id": f"e{len(self.entities) + 1}", "kind": kind, "label": label, **seen.cited()}
            return add(self.entities, {**entity, "angle": seen.angle, "time_s": seen.time_s, "bbox": box})

    def add_attribute(self, entity, observation, type, value) -> dict:  # noqa: A002 - the tool's own word
        with self._write("add_attribute", entity=entity, observation=observation, type=type, value=value) as add:
            type_, value = _choice(type, "type", ATTRIBUTE_TYPES), _text(value, "value")
            owner, seen = self._entity(entity), self._cite(observation)
            attribute = {"id": f"a{len(self.attributes) + 1}", "entity": owner["id"], "type": type_, "value": value}
            return add(self.attributes, {**attribute, **seen.cited()})

    def add_relation(self, subject, object, observation, type, predicate) -> dict:  # noqa: A002
        args = {"subject": subject, "object": object, "observation": observation, "type": type, "predicate": predicate}
        with self._write("add_relation", **args) as add:
            type_, predicate = _choice(type, "type", RELATION_TYPES), _text(predicate, "predicate")
            first, second = self._entity(subject), self._entity(object)
            if first is second:
                raise GraphRefusal("a relation joins two different entities (subject and object are the same)")
            if type_ == "social" and not first["kind"] == second["kind"] == "person":
                raise GraphRefusal("a social relation is between two persons; use spatial or temporal for objects")
            seen = self._cite(observation)
            relation = {"id": f"r{len(self.relations) + 1}", "type": type_, "subject": first["id"]}
            return add(self.relations, {**relation, "predicate": predicate, "object": second["id"], **seen.cited()})

    @contextlib.contextmanager
    def _write(self, tool: str, **args) -> Iterator[Callable[[list[dict], dict], dict]]:
        """One write under the lock, logged in history.jsonl with its arguments: refused (a GraphRefusal, raised on),
        or `add`ed: the record joins its list and the graph is saved as a new version."""
        with self._lock:
            cited = args.get("observation")
            entry = {
                **stamp(self.started),
                "tool": tool,
                "args": loggable(args),
                "observation": cited if isinstance(cited, int) and not isinstance(cited, bool) else None,
            }

            def add(records: list[dict], record: dict) -> dict:
                records.append(record)
                self.version += 1
                append_line(
                    self.directory / HISTORY_FILE, {**entry, "ok": True, "id": record["id"], "version": self.version}
                )
                self._save()
                return {"id": record["id"], "version": self.version, **{k: v for k, v in record.items() if k != "id"}}

            try:
                yield add
            except GraphRefusal as refusal:
                append_line(self.directory / HISTORY_FILE, {**entry, "ok": False, "error": str(refusal)})
                raise

    # -- reading
    def to_json(self) -> dict:
        return {"version": self.version, **{key: [dict(r) for r in getattr(self, key)] for key in RECORDS}}

    def get_graph(self) -> dict:
        with self._lock:
            return self.to_json()

    def _save(self) -> None:
        text = json.dumps(self.to_json(), indent=1)
        write_atomic(self.directory / VERSIONS_DIR / f"{self.version:04d}.json", text)
        write_atomic(self.directory / GRAPH_FILE, text)


def _numbers(seen: dict) -> str:
    numbers = sorted(seen)  # never empty: mode none always shows frames
    return f"{numbers[0]}-{numbers[-1]}" if numbers == list(range(numbers[0], numbers[-1] + 1)) else str(numbers)


def stamp(started: float) -> dict:
    """When a logged call came: the time, and the seconds since `started` (a time.monotonic())."""
    return {
        "at": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        "elapsed_s": round(time.monotonic() - started, 3),
    }


def loggable(value):
    """NaN and infinities are not JSON: logged as text."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return [loggable(v) for v in value]
    if isinstance(value, dict):
        return {k: loggable(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class StoredGraph:
    """A graph as kept in an item's folder, for grading and reading."""

    entities: list[dict]
    attributes: list[dict]
    relations: list[dict]
    history: list[dict]

    @property
    def size(self) -> int:
        return len(self.entities) + len(self.attributes) + len(self.relations)

    @property
    def refused(self) -> int:
        return sum(not h.get("ok") for h in self.history)


def load_graph(item_root: Path) -> StoredGraph | None:
    """The graph kept in `<item>/worldmodel/` (None when the item had no world model)."""
    folder = Path(item_root) / FOLDER
    path = folder / GRAPH_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        data = {}
    entities, attributes, relations = ([x for x in data.get(key, []) if isinstance(x, dict)] for key in RECORDS)
    return StoredGraph(entities, attributes, relations, log_lines(folder / HISTORY_FILE))
