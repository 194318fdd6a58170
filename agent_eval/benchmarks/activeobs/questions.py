"""Question families over a scene (as in JRDB-AVR; docs/kinds/activeobs.md): each proposes one candidate with its
answer and evidence. A proposer returns None only when the scene cannot hold such a question at all; whether a
candidate is unambiguous and necessary is validation.py's job (it re-derives the answer from the question's
parameters, kept in `meta`). Evidence frames are only frames where the answered fact holds.
"""

from __future__ import annotations

import itertools
import random

from agent_eval.benchmarks.activeobs.geometry import wrap_angle
from agent_eval.benchmarks.activeobs.render import person_box
from agent_eval.benchmarks.activeobs.scene import ACTIONS, Person, Scene, Segment
from agent_eval.benchmarks.activeobs.schema import ActiveItem

STARTING = {  # (after "does someone", after "someone")
    "walking": ("start walking", "starts walking"),
    "standing": ("start standing still", "starts standing still"),
    "sitting": ("sit down", "sits down"),
    "waving": ("start waving", "starts waving"),
}
DOING_PHRASE = {"walking": "walking", "standing": "standing still", "sitting": "sitting", "waving": "waving"}
CHOICES = [DOING_PHRASE[a] for a in ACTIONS]  # a question about what someone does: its choices, in ACTIONS' order
LOOK_KEYS = ("shirt", "hat", "bag", "pants")
POINT_WINDOW_S = 0.5  # a question about one moment: evidence within this of it, in the same action
START_WINDOW_S = 1.0  # a question about a start: evidence in the first second of the action


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
    return {
        "shirt": f"in a {value} shirt",
        "pants": f"in {value} trousers",
        "hat": f"wearing a {value} hat" if value else "without a hat",
        "bag": "carrying a bag" if value else "without a bag",
    }[key]


def look_of(person: Person, keys: tuple[str, ...]) -> dict:
    return {key: getattr(person, key) for key in keys}


def unique_keys(scene: Scene, person: Person) -> tuple[str, ...]:
    """The shortest set of look attributes (always the shirt) that fits only this person."""
    for size in range(0, len(LOOK_KEYS)):
        for extra in itertools.combinations(LOOK_KEYS[1:], size):
            keys = ("shirt", *extra)
            if sum(look_of(p, keys) == look_of(person, keys) for p in scene.people) == 1:
                return keys
    raise ValueError(f"person {person.id} has no unique look")


def point_window(scene: Scene, segment: Segment, frame: int) -> range:
    half = int(POINT_WINDOW_S * scene.fps)
    return range(max(segment.start, frame - half), min(segment.end, frame + half) + 1)


def start_window(scene: Scene, segment: Segment) -> range:
    return range(segment.start, min(segment.end, segment.start + int(START_WINDOW_S * scene.fps)) + 1)


def _first_starts(scene: Scene) -> list[tuple[Person, Segment]]:
    """Each person's first segment of each action they do."""
    return [(p, s) for p in scene.people for a in ACTIONS if (s := p.first_segment(a))]


def build_item(
    scene: Scene,
    family: str,
    index: int,
    question: str,
    mode: str,
    answer,
    person: Person,
    frames,
    choices=None,
    meta=None,
) -> ActiveItem:
    return ActiveItem(
        id=f"{scene.sequence}-{family}-{index}",
        sequence=scene.sequence,
        family=family,
        question=question,
        answer_mode=mode,
        answer=answer,
        track=person.id,
        boxes={f: person_box(scene, person, f) for f in frames if 0 <= f < scene.n_frames},
        fps=scene.fps,
        n_frames=scene.n_frames,
        choices=tuple(choices) if choices else None,
        width=scene.width,
        height=scene.height,
        meta={"target": person.id, **(meta or {})},
    )


def unique_anchor(scene: Scene, rng: random.Random, index: int) -> ActiveItem | None:
    fps = scene.fps
    if scene.n_frames <= int(4 * fps):
        return None
    t1 = rng.randrange(0, scene.n_frames - int(4 * fps))
    key = rng.choice(LOOK_KEYS)
    person = rng.choice(scene.people)
    t2 = t1 + rng.randint(int(4 * fps), int(12 * fps))
    if t2 >= scene.n_frames:
        return None
    action, segment = person.action_at(t1), person.segment_at(t2)
    question = (
        f"At {_stamp(scene, t1)}, exactly one person {look_phrase(person, key)} "
        f"is {DOING_PHRASE[action]}. What is that person doing at {_stamp(scene, t2)}?"
    )
    meta = {"anchor_frame": t1, "query_frame": t2, "look": look_of(person, (key,)), "anchor_action": action}
    answer, frames = ACTIONS.index(segment.action) + 1, point_window(scene, segment, t2)
    return build_item(scene, "unique_anchor", index, question, "choice", answer, person, frames, CHOICES, meta)


def action_boundary(scene: Scene, rng: random.Random, index: int, span: bool) -> ActiveItem | None:
    person, segment = rng.choice(_first_starts(scene))
    keys = unique_keys(scene, person)
    who, meta = describe(person, keys), {"who": look_of(person, keys), "action": segment.action}
    if span:
        question = (
            f"During which frames is {who} {DOING_PHRASE[segment.action]}? "
            f"Give [first_frame, last_frame] of that one continuous period."
        )
        answer, frames = [segment.start, segment.end], range(segment.start, segment.end + 1)
        return build_item(scene, "action_boundary", index, question, "span", answer, person, frames, meta=meta)
    question = f"At which frame does {who} {STARTING[segment.action][0]} for the first time? Give the frame index."
    frames = start_window(scene, segment)
    return build_item(scene, "action_boundary", index, question, "frame", segment.start, person, frames, meta=meta)


def left_neighbours(scene: Scene, anchor: Person, frame: int) -> list[tuple[float, Person]]:
    """Everyone else by how far to the anchor's left (smaller angle, wrapping) they are, nearest first."""
    here = anchor.angle_at(frame)
    return sorted(
        ((wrap_angle(here - p.angle_at(frame)), p) for p in scene.people if p is not anchor), key=lambda pair: pair[0]
    )


def chain(scene: Scene, rng: random.Random, index: int) -> ActiveItem | None:
    hatted = [p for p in scene.people if p.hat]
    if not hatted or len(scene.people) < 3:
        return None
    anchor = rng.choice(hatted)
    frame = rng.randrange(0, scene.n_frames)
    gap, target = left_neighbours(scene, anchor, frame)[0]
    segment = target.segment_at(frame)
    question = (
        f"At {_stamp(scene, frame)}, find the person wearing a {anchor.hat} hat. Consider the nearest "
        f"person to their left in the panorama (at a smaller angle; angles wrap from 0° to 360°). "
        f"What is that person doing at that moment?"
    )
    meta = {"anchor": anchor.id, "anchor_hat": anchor.hat, "frame": frame, "gap_deg": round(gap, 1)}
    answer, frames = ACTIONS.index(segment.action) + 1, point_window(scene, segment, frame)
    return build_item(scene, "chain", index, question, "choice", answer, target, frames, CHOICES, meta)


def frame_viewpoint(scene: Scene, rng: random.Random, index: int) -> ActiveItem | None:
    person, segment = rng.choice(_first_starts(scene))
    keys = unique_keys(scene, person)
    angle = round(person.angle_at(segment.start), 1)
    question = (
        f"At which frame does {describe(person, keys)} {STARTING[segment.action][0]} for the "
        f"first time, and at what viewing angle (degrees, 0-360) are they at that frame? "
        f"Give [frame_index, angle_deg]."
    )
    meta = {"who": look_of(person, keys), "action": segment.action}
    answer, frames = [segment.start, angle], start_window(scene, segment)
    return build_item(scene, "frame_viewpoint", index, question, "frame_angle", answer, person, frames, meta=meta)


def numeric(scene: Scene, rng: random.Random, index: int) -> ActiveItem | None:
    events = _first_starts(scene)
    if len(events) < 2:
        return None
    (p1, s1), (p2, s2) = rng.sample(events, 2)
    if p1 is p2 or abs(s1.start - s2.start) < 2 * scene.fps:  # a difference worth measuring: >= 2 s
        return None
    (first, s_first), (target, segment) = sorted([(p1, s1), (p2, s2)], key=lambda e: e[1].start)
    seconds = round((segment.start - s_first.start) / scene.fps, 2)
    keys_first, keys_second = unique_keys(scene, first), unique_keys(scene, target)
    question = (
        f"How many seconds pass between the moment {describe(first, keys_first)} first "
        f"{STARTING[s_first.action][1]} and the moment {describe(target, keys_second)} first "
        f"{STARTING[segment.action][1]}? Give a number of seconds."
    )
    meta = {
        "first": {"who": look_of(first, keys_first), "action": s_first.action, "id": first.id},
        "second": {"who": look_of(target, keys_second), "action": segment.action, "id": target.id},
    }
    frames = start_window(scene, segment)
    return build_item(scene, "numeric", index, question, "numeric", seconds, target, frames, meta=meta)


FAMILIES = {  # each proposes one candidate: (scene, rng, index) -> item or None
    "unique_anchor": unique_anchor,
    "action_boundary": lambda scene, rng, i: action_boundary(scene, rng, i, span=bool(i % 2 == 0)),
    "chain": chain,
    "frame_viewpoint": frame_viewpoint,
    "numeric": numeric,
}
