"""Question families over a scene, each with its exact answer and evidence track.

Families (as in JRDB-AVR):
* unique_anchor:   a person singled out by look + action at one time; what do they do later?
* action_boundary: when does a person first start an action (frame), or its whole span (span)?
* chain:           the nearest person to the left of the person with a given hat; their action?
* frame_viewpoint: at which frame and angle does a person first start an action?
* numeric:         how many seconds between two people's first starts of two actions?

Every generator returns None when the scene offers no unambiguous instance.
"""
from __future__ import annotations

import itertools
import random

from .geometry import wrap_angle
from .render import person_box
from .scene import ACTIONS, Person, Scene, Segment
from .schema import ActiveItem

START_PHRASE = {"walking": "start walking", "standing": "start standing still", "sitting": "sit down",
                "waving": "start waving"}
STARTS_PHRASE = {"walking": "starts walking", "standing": "starts standing still", "sitting": "sits down",
                 "waving": "starts waving"}
DOING_PHRASE = {"walking": "walking", "standing": "standing still", "sitting": "sitting", "waving": "waving"}
LOOK_KEYS = ("shirt", "hat", "bag", "pants")


def _stamp(scene: Scene, frame: int) -> str:
    return f"{scene.time_of(frame):.1f} s (frame {frame})"


def describe(person: Person, keys: tuple[str, ...]) -> str:
    with_parts, without_parts = [], []
    for key in keys:
        if key == "hat":
            (with_parts.append(f"a {person.hat} hat") if person.hat else without_parts.append("a hat"))
        elif key == "bag":
            (with_parts.append("a bag") if person.bag else without_parts.append("a bag"))
        elif key == "pants":
            with_parts.append(f"{person.pants} trousers")
    text = f"the person in the {person.shirt} shirt" if "shirt" in keys else "the person"
    if with_parts:
        text += " with " + " and ".join(with_parts)
    if without_parts:
        text += (", " if with_parts else " ") + "without " + " or ".join(without_parts)
    return text


def look_phrase(person: Person, key: str) -> str:
    """One attribute as a phrase after "a person ...": "in a red shirt", "without a hat"."""
    value = getattr(person, key)
    return {"shirt": f"in a {value} shirt", "pants": f"in {value} trousers",
            "hat": f"wearing a {value} hat" if value else "without a hat",
            "bag": "carrying a bag" if value else "without a bag"}[key]


def _look(person: Person, keys: tuple[str, ...]) -> tuple:
    return tuple(getattr(person, key) for key in keys)


def unique_description(scene: Scene, person: Person) -> str:
    """The shortest look description (always naming the shirt) that fits only this person."""
    for size in range(0, len(LOOK_KEYS)):
        for extra in itertools.combinations(LOOK_KEYS[1:], size):
            keys = ("shirt", *extra)
            if sum(_look(p, keys) == _look(person, keys) for p in scene.people) == 1:
                return describe(person, keys)
    raise ValueError(f"person {person.id} has no unique look")


def _boxes(scene: Scene, person: Person, frames) -> dict[int, tuple]:
    return {f: person_box(scene, person, f) for f in frames if 0 <= f < scene.n_frames}


def _first(person: Person, action: str) -> Segment | None:
    return next((s for s in person.segments if s.action == action), None)


def _item(scene: Scene, family: str, index: int, question: str, mode: str, answer, person: Person,
          frames, choices=None, meta=None) -> ActiveItem:
    return ActiveItem(id=f"{scene.sequence}-{family}-{index}", sequence=scene.sequence, family=family,
                      question=question, answer_mode=mode, answer=answer, track=person.id,
                      boxes=_boxes(scene, person, frames), fps=scene.fps, n_frames=scene.n_frames,
                      choices=tuple(choices) if choices else None, width=scene.width, height=scene.height,
                      meta={"target": person.id, **(meta or {})})


def unique_anchor(scene: Scene, rng: random.Random, index: int) -> ActiveItem | None:
    fps = scene.fps
    for _ in range(200):
        t1 = rng.randrange(0, scene.n_frames - int(4 * fps))
        key = rng.choice(LOOK_KEYS)
        person = rng.choice(scene.people)
        same_look = [p for p in scene.people if getattr(p, key) == getattr(person, key)]
        action = person.action_at(t1)
        doing = [p for p in same_look if p.action_at(t1) == action]
        if len(same_look) < 2 or len(doing) != 1:
            continue  # the look alone must not identify them; look + action at t1 must
        t2 = t1 + rng.randint(int(4 * fps), int(12 * fps))
        if t2 >= scene.n_frames:
            continue
        segment = person.segment_at(t2)
        frames = range(max(segment.start, t2 - int(2 * fps)), min(segment.end, t2 + int(2 * fps)) + 1)
        question = (f"At {_stamp(scene, t1)}, exactly one person {look_phrase(person, key)} "
                    f"is {DOING_PHRASE[action]}. What is that person doing at {_stamp(scene, t2)}?")
        return _item(scene, "unique_anchor", index, question, "choice", ACTIONS.index(segment.action) + 1, person,
                     frames, choices=[DOING_PHRASE[a] for a in ACTIONS],
                     meta={"anchor_frame": t1, "query_frame": t2, "look_key": key})
    return None


def action_boundary(scene: Scene, rng: random.Random, index: int, span: bool) -> ActiveItem | None:
    candidates = []
    for person in scene.people:
        for action in ACTIONS:
            matching = [s for s in person.segments if s.action == action]
            segment = matching[0] if matching else None
            if segment is None or segment.start == 0 or (span and (len(matching) > 1 or segment.end == scene.n_frames - 1)):
                continue
            candidates.append((person, segment))
    if not candidates:
        return None
    person, segment = rng.choice(candidates)
    who = unique_description(scene, person)
    if span:
        question = (f"During which frames is {who} {DOING_PHRASE[segment.action]}? "
                    f"Give [first_frame, last_frame] of that one continuous period.")
        return _item(scene, "action_boundary", index, question, "span", [segment.start, segment.end], person,
                     range(segment.start, segment.end + 1), meta={"action": segment.action})
    question = f"At which frame does {who} {START_PHRASE[segment.action]} for the first time? Give the frame index."
    return _item(scene, "action_boundary", index, question, "frame", segment.start, person,
                 range(segment.start, min(segment.end, segment.start + int(scene.fps)) + 1),
                 meta={"action": segment.action})


def chain(scene: Scene, rng: random.Random, index: int) -> ActiveItem | None:
    hatted = [p for p in scene.people if p.hat]
    if not hatted or len(scene.people) < 3:
        return None
    anchor = rng.choice(hatted)
    frame = rng.randrange(0, scene.n_frames)
    here = anchor.angle_at(frame)
    gaps = sorted(((wrap_angle(here - p.angle_at(frame)), p) for p in scene.people if p is not anchor),
                  key=lambda pair: pair[0])
    (gap, target), (next_gap, _) = gaps[0], gaps[1]
    if gap > 120 or next_gap - gap < 15:
        return None
    segment = target.segment_at(frame)
    frames = range(max(segment.start, frame - int(scene.fps)), min(segment.end, frame + int(scene.fps)) + 1)
    question = (f"At {_stamp(scene, frame)}, find the person wearing a {anchor.hat} hat. Consider the nearest "
                f"person to their left in the panorama (at a smaller angle; angles wrap from 0° to 360°). "
                f"What is that person doing at that moment?")
    return _item(scene, "chain", index, question, "choice", ACTIONS.index(segment.action) + 1, target, frames,
                 choices=[DOING_PHRASE[a] for a in ACTIONS],
                 meta={"anchor": anchor.id, "frame": frame, "gap_deg": round(gap, 1)})


def frame_viewpoint(scene: Scene, rng: random.Random, index: int) -> ActiveItem | None:
    candidates = [(p, s) for p in scene.people for a in ACTIONS if (s := _first(p, a)) and s.start > 0]
    if not candidates:
        return None
    person, segment = rng.choice(candidates)
    angle = round(person.angle_at(segment.start), 1)
    question = (f"At which frame does {unique_description(scene, person)} {START_PHRASE[segment.action]} for the "
                f"first time, and at what viewing angle (degrees, 0-360) are they at that frame? "
                f"Give [frame_index, angle_deg].")
    return _item(scene, "frame_viewpoint", index, question, "frame_angle", [segment.start, angle], person,
                 range(segment.start, min(segment.end, segment.start + int(scene.fps)) + 1),
                 meta={"action": segment.action})


def numeric(scene: Scene, rng: random.Random, index: int) -> ActiveItem | None:
    events = [(p, s) for p in scene.people for a in ACTIONS if (s := _first(p, a)) and s.start > 0]
    for _ in range(100):
        (p1, s1), (p2, s2) = rng.sample(events, 2) if len(events) >= 2 else (None, None)
        if p1 is None:
            return None
        if p1 is p2 or abs(s1.start - s2.start) < 2 * scene.fps:
            continue
        first, second = sorted([(p1, s1), (p2, s2)], key=lambda e: e[1].start)
        seconds = round((second[1].start - first[1].start) / scene.fps, 2)
        question = (f"How many seconds pass between the moment {unique_description(scene, first[0])} first "
                    f"{STARTS_PHRASE[first[1].action]} and the "
                    f"moment {unique_description(scene, second[0])} first "
                    f"{STARTS_PHRASE[second[1].action]}? "
                    f"Give a number of seconds.")
        target, segment = second
        return _item(scene, "numeric", index, question, "numeric", seconds, target,
                     range(segment.start, min(segment.end, segment.start + int(scene.fps)) + 1),
                     meta={"first": [first[0].id, first[1].action, first[1].start],
                           "second": [target.id, segment.action, segment.start]})
    return None


FAMILIES = {
    "unique_anchor": lambda scene, rng, i: unique_anchor(scene, rng, i),
    "action_boundary": lambda scene, rng, i: action_boundary(scene, rng, i, span=bool(i % 2 == 0)),
    "chain": lambda scene, rng, i: chain(scene, rng, i),
    "frame_viewpoint": lambda scene, rng, i: frame_viewpoint(scene, rng, i),
    "numeric": lambda scene, rng, i: numeric(scene, rng, i),
}
