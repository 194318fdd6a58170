"""region_counting: straight lines cut the canvas into regions; count them.

Chords run edge to edge. Spurs start on an edge, may cross lines, and stop a few pixels short
of the next line: the gap leaves the region open, which is the detail that rewards zooming.
Every line touches the edge, so the drawing is one connected planar graph and Euler's formula
gives the count exactly: regions = 1 + chords + crossings (a spur's dangling end adds nothing).
General position is enforced (crossing angles, vertex-to-line clearances) so that the pixels
show exactly that topology."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from agent_eval.benchmarks.activevision.samples import common

QUESTION = common.question(
    "How many separated regions are inside the image? A region is a maximal area filled with one "
    "continuous fill. Boundaries between regions may appear as continuous lines OR as a chain of "
    "small individual markers — discrete dots, footprints, dashes, or short segments aligned along "
    "a curve — that you must visually link together to recognize as a single boundary. Two "
    "locations belong to the same region if you can travel between them without crossing such a "
    "boundary (continuous or chained). Count every distinct region and report the total as a "
    "positive integer."
)
LINE = (20, 20, 20)
MIN_ANGLE = 25.0  # degrees between crossing lines
CLEARANCE = 16.0  # px from any vertex to any line not through it
CORNER_CLEARANCE = 40.0


def _valid(segs, border_pts, gap):
    """General position: crossing angles, spacing between vertices and unrelated lines."""
    # vertices: (point, indices of segments through it, required clearance)
    verts = []
    for i, s in enumerate(segs):
        verts.append((s["p"], {i}, CLEARANCE))
        verts.append((s["q"], {i}, gap if s["spur"] else CLEARANCE))
    for i, j in itertools.combinations(range(len(segs)), 2):
        a, b = segs[i], segs[j]
        hit = common.segment_intersection(a["p"], a["q"], b["p"], b["q"])
        if hit is None:
            continue
        if common.angle_between(a["q"] - a["p"], b["q"] - b["p"]) < MIN_ANGLE:
            return False
        verts.append((a["p"] + hit[0] * (a["q"] - a["p"]), {i, j}, CLEARANCE))
    for point, on, clearance in verts:
        for k, s in enumerate(segs):
            if k not in on and common.point_segment_distance(point, s["p"], s["q"]) < clearance - 1e-6:
                return False
    for a, b in itertools.combinations(border_pts, 2):
        if np.hypot(*(a - b)) < 30:
            return False
    return True


def _crossings(segs):
    return sum(
        common.segment_intersection(a["p"], a["q"], b["p"], b["q"]) is not None
        for a, b in itertools.combinations(segs, 2)
    )


def _spur(rng, segs, width, height, gap):
    side, p = common.side_point(rng, width, height, 0, CORNER_CLEARANCE)
    inward = -np.array(common.OUTWARD[side])
    ang = np.arctan2(inward[1], inward[0]) + rng.uniform(-1.0, 1.0)
    d = np.array([np.cos(ang), np.sin(ang)])
    far = p + d * 3 * max(width, height)
    hits = []
    for s in segs:
        h = common.segment_intersection(p, far, s["p"], s["q"])
        if h is not None:
            hits.append((h[0] * np.hypot(*(far - p)), s))
    if not hits:
        return None
    hits.sort(key=lambda h: h[0])
    t, s = hits[int(rng.integers(min(3, len(hits))))]
    sin = np.sin(np.radians(common.angle_between(d, s["q"] - s["p"])))
    if sin < np.sin(np.radians(MIN_ANGLE)):
        return None
    return {"p": p, "q": p + d * (t - gap / sin), "spur": True}


def generate(rng: np.random.Generator, difficulty: str):
    width, height = common.level(difficulty, (1024, 768), (1280, 960), (1536, 1152))
    line_w = common.level(difficulty, 3, 2, 2)
    # Centreline distance from a spur's end to the line it stops at: a few clear pixels once both
    # line widths and rasterisation are taken off, so the region really stays open.
    gap = line_w + common.level(difficulty, 5, 3.5, 3)
    n_chords = int(rng.integers(*common.level(difficulty, (3, 5), (4, 7), (7, 10))))
    n_spurs = int(rng.integers(*common.level(difficulty, (1, 3), (2, 5), (4, 7))))
    segs: list[Any] = []
    border_pts: list[Any] = []
    for _ in range(400):
        if len(segs) == n_chords + n_spurs:
            break
        if len(segs) < n_chords:
            (sa, a), (sb, b) = (common.side_point(rng, width, height, 0, CORNER_CLEARANCE) for _ in range(2))
            if sa == sb:
                continue
            new, new_border = {"p": a, "q": b, "spur": False}, [a, b]
        else:
            new = _spur(rng, segs, width, height, gap)
            if new is None:
                continue
            new_border = [new["p"]]
        if _valid(segs + [new], border_pts + new_border, gap):
            segs.append(new)
            border_pts += new_border
    else:
        raise common.GenerationFailed("could not place region lines")

    img, draw = common.canvas(width, height)
    for s in segs:
        p, q = s["p"], s["q"]
        d = (q - p) / np.hypot(*(q - p))
        start = p - 4 * d  # overshoot the canvas edge so the line really touches it
        end = q if s["spur"] else q + 4 * d
        draw.line([tuple(start), tuple(end)], fill=LINE, width=line_w)
    answer = 1 + n_chords + _crossings(segs)
    return img, QUESTION, str(answer)


SPEC = common.TaskSpec("region_counting", "RC", "distributed_scanning", generate, r"[1-9]\d*")
