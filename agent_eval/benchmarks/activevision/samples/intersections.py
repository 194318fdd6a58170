"""line_intersection_sequencing: smooth curves tangle; list the curves that A crosses, in order.

Curves are centripetal Catmull-Rom splines from a labelled point on the frame through random
interior points. Crossings are computed exactly on the sampled polylines. Candidates are
rejected unless every crossing is clean: no self-crossings, crossing angles >= 40 degrees,
crossings well apart, and curves never run close together except where they cross, so the
drawn picture has exactly the computed crossings (some of them close enough to need zooming)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from agent_eval.benchmarks.activevision.samples import common

COLORS = [(210, 40, 40), (30, 90, 210), (20, 150, 60), (150, 60, 175), (225, 130, 0)]
FRAME = (190, 190, 190)
LETTERS = "ABCDE"
MIN_ANGLE = 20.0
NEAR = 14.0  # curves closer than this must be at a crossing
MIN_CROSS_GAP = 24.0  # px between any two crossings
MARGIN = 70


def question_for(n: int) -> str:
    labels = ", ".join(LETTERS[:n])
    return common.question(
        f"The image shows {n} curves. Each curve has one labeled endpoint on the perimeter (labels: "
        f"{labels}). Starting from the labeled endpoint of curve A, follow curve A through the interior "
        "tangle. At every crossing you pass through, record the label of the OTHER curve involved — when "
        "curve A crosses itself, record A. Report the ordered sequence of labels, separated by commas "
        "(for example: A, C, B, C, A)."
    )


def _spline(points, step=2.5):
    """Centripetal Catmull-Rom through points (no cusps or overshooting loops), sampled densely."""
    p = np.vstack([2 * points[0] - points[1], points, 2 * points[-1] - points[-2]])
    out = []
    for i in range(1, len(p) - 2):
        p0, p1, p2, p3 = p[i - 1], p[i], p[i + 1], p[i + 2]
        t1 = np.linalg.norm(p1 - p0) ** 0.5
        t2 = t1 + np.linalg.norm(p2 - p1) ** 0.5
        t3 = t2 + np.linalg.norm(p3 - p2) ** 0.5
        n = max(8, int(np.linalg.norm(p2 - p1) / step))
        t = np.linspace(t1, t2, n, endpoint=False)[:, None]
        a1 = (t1 - t) / t1 * p0 + t / t1 * p1
        a2 = (t2 - t) / (t2 - t1) * p1 + (t - t1) / (t2 - t1) * p2
        a3 = (t3 - t) / (t3 - t2) * p2 + (t - t2) / (t3 - t2) * p3
        b1 = (t2 - t) / t2 * a1 + t / t2 * a2
        b2 = (t3 - t) / (t3 - t1) * a2 + (t - t1) / (t3 - t1) * a3
        out.append((t2 - t) / (t2 - t1) * b1 + (t - t1) / (t2 - t1) * b2)
    out.append(points[-1][None])
    return np.vstack(out)


def _crossings(a, b, same=False):
    """Crossings of polylines a and b as arrays: position along a, along b, point, angle (deg)."""
    seg_a, seg_b = a[1:] - a[:-1], b[1:] - b[:-1]
    reach = 1.01 * max(np.linalg.norm(seg_a, axis=1).max(), np.linalg.norm(seg_b, axis=1).max())
    ta = cKDTree(a[:-1])
    if same:
        pairs = ta.query_pairs(reach, output_type="ndarray")
        pairs = pairs[np.abs(pairs[:, 0] - pairs[:, 1]) > 1]
    else:
        close = ta.sparse_distance_matrix(cKDTree(b[:-1]), reach, output_type="ndarray")
        pairs = np.stack([close["i"], close["j"]], axis=1) if len(close) else np.zeros((0, 2), int)
    i, j = pairs[:, 0], pairs[:, 1]
    r, s, q = seg_a[i], seg_b[j], b[j] - a[i]
    den = r[:, 0] * s[:, 1] - r[:, 1] * s[:, 0]
    ok = np.abs(den) > 1e-12
    den = np.where(ok, den, 1.0)
    t = (q[:, 0] * s[:, 1] - q[:, 1] * s[:, 0]) / den
    u = (q[:, 0] * r[:, 1] - q[:, 1] * r[:, 0]) / den
    hit = ok & (t >= 0) & (t < 1) & (u >= 0) & (u < 1)
    i, j, t, u, r, s = i[hit], j[hit], t[hit], u[hit], r[hit], s[hit]
    cos = np.abs((r * s).sum(1)) / (np.linalg.norm(r, axis=1) * np.linalg.norm(s, axis=1))
    return i + t, j + u, a[i] + t[:, None] * r, np.degrees(np.arccos(np.minimum(1.0, cos)))


def _clean(curve, others, points_so_far):
    """Crossings of a new curve with the placed ones, or None if the picture would be ambiguous."""
    if len(_crossings(curve, curve, same=True)[0]):
        return None
    new, points = [], list(points_so_far)
    for k, other in enumerate(others):
        pos, pos_other, pts, ang = _crossings(curve, other)
        if (ang < MIN_ANGLE).any():
            return None
        new += [(k, pos[n], pos_other[n]) for n in range(len(pos))]
        points += list(zip(pts, ang, [k] * len(pos)))
    ends = np.array([curve[0], curve[-1]] + [e for o in others for e in (o[0], o[-1])])
    xy = np.array([p for p, _, _ in points]).reshape(-1, 2)
    gaps = np.linalg.norm(xy[:, None] - np.vstack([xy, ends])[None], axis=2)
    gaps[np.arange(len(xy)), np.arange(len(xy))] = np.inf
    if gaps.size and gaps.min() < MIN_CROSS_GAP:
        return None
    # Closeness is only allowed around a crossing (the shallower, the longer the close stretch).
    arc = np.concatenate([[0], np.cumsum(np.linalg.norm(np.diff(curve, axis=0), axis=1))])
    tree = cKDTree(curve)
    pairs = tree.query_pairs(NEAR, output_type="ndarray")
    if (np.abs(arc[pairs[:, 0]] - arc[pairs[:, 1]]) > 3 * NEAR).any():
        return None  # the curve doubles back close to itself
    for k, other in enumerate(others):
        close = np.array([i for i, js in enumerate(tree.query_ball_tree(cKDTree(other), NEAR)) if js], int)
        if not len(close):
            continue
        mine = [(p, NEAR / np.sin(np.radians(a)) + 4) for p, a, kk in points[len(points_so_far) :] if kk == k]
        if not mine:
            return None
        centres = np.array([p for p, _ in mine])
        radii = np.array([r for _, r in mine])
        d = np.linalg.norm(curve[close][:, None] - centres[None], axis=2)
        if not (d <= radii[None]).any(axis=1).all():
            return None  # runs alongside another curve without crossing it there
    return new, [(p, a, -1) for p, a, _ in points[len(points_so_far) :]]


def _curve(rng, width, height, n_ctrl):
    side, start = common.side_point(rng, width, height, MARGIN, MARGIN + 60)  # a point on the frame
    out = np.array(common.OUTWARD[side])
    inner = rng.uniform((MARGIN + 50, MARGIN + 50), (width - MARGIN - 50, height - MARGIN - 50), size=(n_ctrl, 2))
    # Visit the points roughly away from the start, so the curve sweeps across instead of knotting itself.
    turn = rng.uniform(-0.8, 0.8)
    axis = -np.array([np.cos(turn) * out[0] - np.sin(turn) * out[1], np.sin(turn) * out[0] + np.cos(turn) * out[1]])
    inner = inner[np.argsort(inner @ axis)]
    first = start - 90 * out  # head straight into the tangle from the frame
    curve = _spline(np.vstack([start, first, inner]))
    lo, hi = MARGIN - 10, np.array([width, height]) - MARGIN + 10
    if (curve < lo).any() or (curve > hi).any():
        return None
    return start, out, curve


def generate(rng: np.random.Generator, difficulty: str):
    width, height = common.level(difficulty, (1024, 800), (1280, 960), (1536, 1152))
    n_curves = common.level(difficulty, 3, 4, 5)
    n_ctrl = common.level(difficulty, 3, 4, 5)
    min_cross = common.level(difficulty, 3, 6, 8)
    line_w = common.level(difficulty, 4, 3, 3)
    for _ in range(40):
        # crosses: (curve i, curve j, position along i, position along j); points: crossing points so far
        curves: list[Any] = []
        starts: list[Any] = []
        crosses: list[tuple[int, int, float, float]] = []
        points: list[Any] = []
        for _ in range(60 * n_curves):
            if len(curves) == n_curves:
                break
            made = _curve(rng, width, height, n_ctrl)
            if made is None or any(np.hypot(*(made[0] - s)) < 90 for s, _ in starts):
                continue
            checked = _clean(made[2], curves, points)
            if checked is None:
                continue
            new, added = checked
            points += added
            crosses += [(len(curves), k, pos_new, pos_other) for k, pos_new, pos_other in new]
            curves.append(made[2])
            starts.append(made[:2])
        if len(curves) == n_curves and sum(0 in (i, j) for i, j, _, _ in crosses) >= min_cross:
            break
    else:
        raise common.GenerationFailed("could not draw a clean tangle")

    # Crossings met along curve A (index 0), ordered by position along A.
    along_a = sorted((pj, i) for i, j, _, pj in crosses if j == 0)  # curve A is placed first, so it is j
    answer = ", ".join(LETTERS[k] for _, k in along_a)

    img, draw = common.canvas(width, height)
    draw.rectangle([MARGIN, MARGIN, width - MARGIN, height - MARGIN], outline=FRAME, width=1)
    for k in list(rng.permutation(range(1, n_curves))) + [0]:  # A on top: its path is never interrupted
        draw.line([tuple(p) for p in curves[k]], fill=COLORS[k], width=line_w, joint="curve")
    for k, (start, out) in enumerate(starts):
        common.draw_label(draw, start + 26 * out, LETTERS[k], common.BLACK, common.level(difficulty, 28, 24, 22))
    return img, question_for(n_curves), answer


SPEC = common.TaskSpec("line_intersection_sequencing", "LIS", "sequential_traversal", generate, r"[A-Z](, [A-Z])*")
