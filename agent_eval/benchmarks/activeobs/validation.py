"""The generator's validation pass (JRDB-AVR): a candidate question is kept only if it passes every rule (RULES,
in the order checked; what each removes: docs/kinds/activeobs.md, "The validation pass"), checked against the scene
from the question's own parameters (item.meta), not from the proposer's choices. A removed candidate is counted
under the first rule it fails."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from agent_eval.benchmarks.activeobs.geometry import at_least, at_most, circular_iou, pano_box_to_view, wrap_angle
from agent_eval.benchmarks.activeobs.questions import POINT_WINDOW_S, START_WINDOW_S, left_neighbours
from agent_eval.benchmarks.activeobs.render import person_box
from agent_eval.benchmarks.activeobs.scene import ACTIONS, Person, Scene, Segment
from agent_eval.benchmarks.activeobs.schema import ActiveItem

RULES = ("anchor", "answer", "evidence", "temporal", "view", "hop", "unique")
TEMPORAL_SHIFT_S = 2.0  # a question about a moment must change its answer within this shift
DEFAULT_VIEW_ANGLE = 180.0  # this generator's default view: the panorama's middle, away from the seam
VISIBLE_SHARE = 0.5  # a person counts as seen in a view when half their box width is in it
CHAIN_MAX_GAP_DEG = 120.0  # the left neighbour must be near ...
CHAIN_MARGIN_DEG = 15.0  # ... and clearly nearer than the next one
BOX_MATCH_IOU = 0.95  # a listed box is the person's box (boxes are stored to 0.1 px)


@dataclass
class Derived:
    """What the scene says about a question, from its parameters."""

    answer: object
    target: Person
    holds: Callable[[int], bool]  # the answered fact holds at this frame
    needed: list[tuple[Person, int]]  # person-moments an answerer must see
    temporal: bool  # the temporal-necessity rule passes
    shortcuts: list = field(default_factory=list)  # answers a skipped hop would give
    point: int | None = None  # the asked moment, for a question about one moment


def _matching(scene: Scene, look: dict) -> list[Person]:
    return [p for p in scene.people if all(getattr(p, k) == v for k, v in look.items())]


def _one(scene: Scene, look: dict) -> Person | None:
    found = _matching(scene, look)
    return found[0] if len(found) == 1 else None


def _choice(action: str) -> int:
    return ACTIONS.index(action) + 1


def _is_change(person: Person, frame: int, n_frames: int) -> bool:
    """A visible boundary: inside the video, with another action on the frame before."""
    return 0 < frame < n_frames and person.action_at(frame - 1) != person.action_at(frame)


def _unique_anchor_answer(scene: Scene, meta: dict, query: int) -> tuple[int, Person] | None:
    anchor_frame = meta["anchor_frame"]
    doing = [p for p in _matching(scene, meta["look"]) if p.action_at(anchor_frame) == meta["anchor_action"]]
    return (_choice(doing[0].action_at(query)), doing[0]) if len(doing) == 1 else None


def _unique_anchor(scene: Scene, item: ActiveItem) -> Derived | str:
    meta = item.meta
    if len(_matching(scene, meta["look"])) < 2:
        return "anchor"  # the look alone names them: the anchor action is not needed
    found = _unique_anchor_answer(scene, meta, meta["query_frame"])
    if found is None:
        return "anchor"
    t1, t2 = meta["anchor_frame"], meta["query_frame"]
    needed = [(p, t1) for p in _matching(scene, meta["look"])] + [(found[1], t2)]
    shortcuts = [_choice(meta["anchor_action"])]
    return _at_point(scene, t2, lambda f: _unique_anchor_answer(scene, meta, f), found, needed, shortcuts)


def _chain_answer(scene: Scene, meta: dict, frame: int) -> tuple[int, Person] | None:
    anchor = _one(scene, {"hat": meta["anchor_hat"]})
    if anchor is None or len(scene.people) < 3:
        return None
    (gap, target), (next_gap, _) = left_neighbours(scene, anchor, frame)[:2]
    if not (at_most(gap, CHAIN_MAX_GAP_DEG) and at_least(next_gap - gap, CHAIN_MARGIN_DEG)):
        return None
    return _choice(target.action_at(frame)), target


def _chain(scene: Scene, item: ActiveItem) -> Derived | str:
    meta, frame = item.meta, item.meta["frame"]
    found, anchor = _chain_answer(scene, meta, frame), _one(scene, {"hat": meta["anchor_hat"]})
    if found is None or anchor is None:
        return "anchor"
    right = min(
        (p for p in scene.people if p is not anchor),
        key=lambda p: wrap_angle(p.angle_at(frame) - anchor.angle_at(frame)),
    )
    needed = [(anchor, frame), (found[1], frame)]
    shortcuts = [_choice(anchor.action_at(frame)), _choice(right.action_at(frame))]
    return _at_point(scene, frame, lambda f: _chain_answer(scene, meta, f), found, needed, shortcuts)


def _same(a: tuple | None, b: tuple) -> bool:
    return a is not None and a[0] == b[0] and a[1] is b[1]


def _at_point(scene: Scene, point: int, answer_at: Callable, found: tuple, needed: list, shortcuts: list) -> Derived:
    """A question about one moment: its fact holds near that moment for the same target and answer, and the answer
    must change when the moment moves by TEMPORAL_SHIFT_S (no answer there, or another one)."""
    answer, target = found
    shift = int(round(TEMPORAL_SHIFT_S * scene.fps))
    moved = [answer_at(f) for f in (point - shift, point + shift) if 0 <= f < scene.n_frames]
    return Derived(
        answer,
        target,
        holds=lambda f: at_most(abs(f - point), POINT_WINDOW_S * scene.fps) and _same(answer_at(f), found),
        needed=needed,
        temporal=any(other is None or other[0] != answer for other in moved),
        shortcuts=shortcuts,
        point=point,
    )


def _at_start(scene: Scene, answer, person: Person, segment: Segment, starts: list | None = None) -> Derived:
    """A question about when someone starts an action: its fact holds in the first START_WINDOW_S of that segment;
    an answerer must see each start it asks about (`starts`, else this one: the frame before and the frame itself),
    and each must be a visible change."""
    starts = starts or [(person, segment)]
    return Derived(
        answer,
        person,
        holds=lambda f: (
            segment.start <= f <= segment.end
            and person.action_at(f) == segment.action
            and at_most(f - segment.start, START_WINDOW_S * scene.fps)
        ),
        needed=[(p, f) for p, s in starts for f in (s.start - 1, s.start) if f >= 0],
        temporal=all(_is_change(p, s.start, scene.n_frames) for p, s in starts),
    )


def _boundary(scene: Scene, item: ActiveItem) -> Derived | str:
    person = _one(scene, item.meta["who"])
    if person is None:
        return "anchor"
    occurrences = [s for s in person.segments if s.action == item.meta["action"]]
    if not occurrences:
        return "answer"
    first = occurrences[0]
    if item.answer_mode == "span":
        if len(occurrences) != 1:
            return "answer"  # "that one continuous period" names no single period
        before_after = [first.start - 1, first.start, first.end, first.end + 1]
        return Derived(
            [first.start, first.end],
            person,
            holds=lambda f: first.start <= f <= first.end,
            needed=[(person, f) for f in before_after if 0 <= f < scene.n_frames],
            temporal=_is_change(person, first.start, scene.n_frames)
            and _is_change(person, first.end + 1, scene.n_frames),
        )
    return _at_start(scene, first.start, person, first)


def _viewpoint(scene: Scene, item: ActiveItem) -> Derived | str:
    person = _one(scene, item.meta["who"])
    if person is None:
        return "anchor"
    segment = person.first_segment(item.meta["action"])
    if segment is None:
        return "answer"
    return _at_start(scene, [segment.start, round(person.angle_at(segment.start), 1)], person, segment)


def _numeric(scene: Scene, item: ActiveItem) -> Derived | str:
    events = []
    for key in ("first", "second"):
        person = _one(scene, item.meta[key]["who"])
        if person is None:
            return "anchor"
        segment = person.first_segment(item.meta[key]["action"])
        if segment is None:
            return "answer"
        events.append((person, segment))
    (_, s1), (later, s2) = sorted(events, key=lambda e: e[1].start)
    return _at_start(scene, round((s2.start - s1.start) / scene.fps, 2), later, s2, events)


DERIVE = {
    "unique_anchor": _unique_anchor,
    "chain": _chain,
    "action_boundary": _boundary,
    "frame_viewpoint": _viewpoint,
    "numeric": _numeric,
}


def _same_answer(mode: str, stored, derived) -> bool:
    if mode == "frame_angle":
        return stored[0] == derived[0] and at_most(abs(stored[1] - derived[1]), 0.05)  # stored to 0.1°
    if mode == "numeric":
        return at_most(abs(stored - derived), 0.005)  # stored to 0.01 s
    return stored == derived


def visible(scene: Scene, person: Person, frame: int, angle: float = DEFAULT_VIEW_ANGLE) -> bool:
    box = person_box(scene, person, frame)
    shown = pano_box_to_view(box, angle, scene.width, scene.height)
    return shown is not None and at_least(shown[2] - shown[0], VISIBLE_SHARE * (box[2] - box[0]))


def _evidence_ok(scene: Scene, item: ActiveItem, derived: Derived) -> bool:
    if item.track != derived.target.id or not item.boxes:
        return False
    if derived.point is not None and derived.point not in item.boxes:
        return False
    return all(
        derived.holds(f)
        and at_least(circular_iou(box, person_box(scene, derived.target, f), scene.width), BOX_MATCH_IOU)
        for f, box in item.boxes.items()
    )


def check(item: ActiveItem, scene: Scene) -> str | None:
    """The first rule (except `unique`) the candidate fails, or None when it passes them all."""
    return _judge(item, scene)[0]


def _judge(item: ActiveItem, scene: Scene) -> tuple[str | None, Derived | None]:
    derived = DERIVE[item.family](scene, item)
    if isinstance(derived, str):
        return derived, None
    if not _same_answer(item.answer_mode, item.answer, derived.answer):
        return "answer", derived
    if not _evidence_ok(scene, item, derived):
        return "evidence", derived
    if not derived.temporal:
        return "temporal", derived
    if all(visible(scene, person, frame) for person, frame in derived.needed):
        return "view", derived
    if derived.answer in derived.shortcuts:
        return "hop", derived
    return None, derived


def repeat_keys(item: ActiveItem, derived: Derived) -> list[tuple]:
    """What makes two candidates the same question: the same text in the same sequence, or, for a
    question about one moment, the same family asking about the same person in the same action
    segment (same answer, overlapping evidence: the errors would be one error counted twice)."""
    keys: list[tuple] = [("text", item.sequence, " ".join(item.question.split()).lower())]
    if derived.point is not None:
        segment = derived.target.segment_at(derived.point)
        keys.append(("fact", item.sequence, item.family, derived.target.id, segment.start))
    return keys


@dataclass
class Validator:
    """Checks candidates one by one for one dataset, remembering kept questions (uniqueness) and
    counting, per family, candidates seen, kept and removed by each rule."""

    seen: set = field(default_factory=set)
    counts: dict[str, Counter] = field(default_factory=dict)

    def keep(self, item: ActiveItem, scene: Scene) -> bool:
        counts = self.counts.setdefault(item.family, Counter())
        counts["candidates"] += 1
        rule, derived = _judge(item, scene)
        keys = repeat_keys(item, derived) if derived else []
        if rule is None and any(key in self.seen for key in keys):
            rule = "unique"
        if rule:
            counts[rule] += 1
            return False
        self.seen.update(keys)
        counts["kept"] += 1
        return True

    def report(self) -> dict:
        """{"rules": [...], "families": {family: {candidates, kept, <rule>: removed}}, "total": {...}}"""
        fields = ("candidates", "kept", *RULES)
        families = {f: {k: c[k] for k in fields} for f, c in sorted(self.counts.items())}
        total = {k: sum(c[k] for c in self.counts.values()) for k in fields}
        return {"rules": list(RULES), "families": families, "total": total}
