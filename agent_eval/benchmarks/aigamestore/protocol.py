"""AI GameStore's decision: one game second as five 0.2 s segments, each a set of simultaneous inputs, VISTA's
vocabulary (its adapter, MIT): taps pressed at the segment's start, HOLD_ forms held for the whole segment, NOOP.
Escape, R and Enter belong to the host (pause, restart, start), never the model. The official harness's reply
(`<keys>` with five lists, `<scratchpad>`) is read by its rules (lance-ying/aigamestore_harness
utils/parsing_utils.py): what it cannot read is five NOOP segments, padded or cut to five, unknown inputs dropped."""

from __future__ import annotations

import json
import re

from agent_eval.browser import steps as S

SEGMENTS = 5
SEGMENT_MS = 200
ARROWS = {side: f"Arrow{side.title()}" for side in ("UP", "DOWN", "LEFT", "RIGHT")}
KEYS = {**ARROWS, "SPACE": "Space", "Z": "z", "SHIFT": "Shift", **{key: key.lower() for key in "WASD"}}
NOOP = "NOOP"
INPUTS = (*KEYS, *(f"HOLD_{k}" for k in KEYS), NOOP)
Segment = tuple[str, ...]


class BadSegments(ValueError):
    """Segments the model can fix (not five, empty, an unknown input): nothing was played."""


def normalised(segment: list[str] | tuple[str, ...]) -> Segment:
    """One segment as played: NOOP beside other inputs dropped, a tapped and held key held, repeats once."""
    held = {s.removeprefix("HOLD_") for s in segment if s.startswith("HOLD_")}
    kept: list[str] = []
    for action in segment:
        if action != NOOP and action not in held and action not in kept:
            kept.append(action)
    return tuple(kept) or (NOOP,)


def checked_segments(segments) -> tuple[Segment, ...]:
    """VISTA's play: exactly five non-empty segments of known inputs, normalised; else BadSegments."""
    if not isinstance(segments, (list, tuple)) or len(segments) != SEGMENTS:
        given = len(segments) if isinstance(segments, (list, tuple)) else type(segments).__name__
        raise BadSegments(f"give exactly {SEGMENTS} segments (one per 0.2 s), got {given}")
    out = []
    for index, segment in enumerate(segments, start=1):
        if not isinstance(segment, (list, tuple)) or not segment:
            raise BadSegments(f'segment {index} must be a non-empty list of inputs, e.g. ["NOOP"]')
        unknown = [a for a in segment if not isinstance(a, str) or a not in INPUTS]
        if unknown:
            raise BadSegments(f"segment {index}: unknown input {unknown[0]!r}; the inputs are {', '.join(INPUTS)}")
        out.append(normalised(segment))
    return tuple(out)


def segment_steps(segment: Segment, canvas: str) -> list[dict]:
    """One segment on the page: taps (held one frame) and holds at its start, the canvas captured at its end."""
    taps = tuple(KEYS[a] for a in segment if a in KEYS)
    holds = tuple(KEYS[a.removeprefix("HOLD_")] for a in segment if a.startswith("HOLD_"))
    return S.keys_for(SEGMENT_MS, taps=taps, holds=holds, canvas=canvas)


# -- the official harness's reply

_KEYS_TAG = re.compile(r"<keys>(.*?)</keys>", re.DOTALL)
_SCRATCHPAD_TAG = re.compile(r"<scratchpad>(.*?)</scratchpad>", re.DOTALL)


def reply_segments(text: str | None) -> tuple[tuple[Segment, ...], str | None]:
    """The five segments an official-protocol reply asks for, and what was wrong with it (None: nothing)."""
    noop = tuple((NOOP,) for _ in range(SEGMENTS))
    found = _KEYS_TAG.search(text or "")
    if found is None:
        return noop, "no <keys> in the reply: five NOOP segments"
    body = found.group(1).strip()
    if "'" in body and '"' not in body:
        body = body.replace("'", '"')
    try:
        lists = json.loads(body)
    except json.JSONDecodeError:
        return noop, "the <keys> are not a JSON list: five NOOP segments"
    if not isinstance(lists, list):
        return noop, "the <keys> are not a list: five NOOP segments"
    problem = None
    if len(lists) != SEGMENTS:
        problem = f"{len(lists)} segments given: padded with NOOP or cut to {SEGMENTS}"
        lists = (lists + [[NOOP]] * SEGMENTS)[:SEGMENTS]
    out = []
    for segment in lists:
        items = segment if isinstance(segment, list) else [segment]
        names = [NOOP if a is None else str(a).upper() for a in items]
        unknown = [a for a in names if a not in INPUTS]
        if unknown:
            problem = f"unknown input(s) dropped: {', '.join(unknown)}"
        out.append(normalised([a for a in names if a in INPUTS]))
    return tuple(out), problem


def reply_scratchpad(text: str | None, earlier: str | None) -> str | None:
    """The scratchpad the next request carries: the reply's, else the earlier one, else the whole reply."""
    found = _SCRATCHPAD_TAG.search(text or "")
    if found is not None:
        return found.group(1).strip()
    return earlier if earlier is not None else (text or None)
