"""connected_component_counting: anchors joined by thin strands; count the linked groups.

Strands are edges of a Delaunay triangulation, so they never cross one another, and every
strand keeps a clearance from anchors it doesn't join: the drawn ink components are exactly
the graph components. Some anchors get a "twin" a few pixels away that is usually in another
group, which is the detail that rewards zooming in."""

from __future__ import annotations

import numpy as np
from scipy.cluster.hierarchy import DisjointSet
from scipy.spatial import Delaunay

from agent_eval.benchmarks.activevision.samples import common

QUESTION = common.question(
    "How many connected components are there in the image? A connected component is a maximal "
    "group of anchor points such that any two are linked by a path of one or more strands "
    "(directly or through other anchors in the same group). Anchors not linked by any chain "
    "belong to different components, even if they appear visually close. Count every connected "
    "component and report the total."
)
ANCHOR = (25, 45, 110)
STRAND = (70, 70, 70)


def _place_anchors(rng, n, width, height, margin, min_dist):
    """Dart throwing: uniform points no closer than min_dist."""
    pts = np.empty((0, 2))
    for _ in range(n * 300):
        p = rng.uniform((margin, margin), (width - margin, height - margin))
        if not len(pts) or np.hypot(*(pts - p).T).min() >= min_dist:
            pts = np.vstack([pts, p])
            if len(pts) == n:
                break
    return list(pts)


def _add_twins(rng, pts, count, radius, width, height, margin):
    """Put a few anchors a hair's breadth from existing ones (gap of a few pixels)."""
    out = list(pts)
    for i in rng.permutation(len(pts))[:count]:
        for _ in range(20):
            ang = rng.uniform(0, 2 * np.pi)
            p = pts[i] + (2 * radius + rng.uniform(4, 7)) * np.array([np.cos(ang), np.sin(ang)])
            near = min(np.hypot(*(p - q)) for j, q in enumerate(out) if j != i)
            if margin <= p[0] <= width - margin and margin <= p[1] <= height - margin and near > 3 * radius + 12:
                out.append(p)
                break
    return np.array(out)


def _allowed_edges(pts, radius, line_w, max_len):
    """Delaunay edges that are visible (not too short), not too long, and clear of other anchors."""
    indptr, neighbours = Delaunay(pts).vertex_neighbor_vertices
    edges = {(a, b) for a in range(len(pts)) for b in neighbours[indptr[a] : indptr[a + 1]] if a < b}
    clearance = radius + line_w / 2 + 5
    keep = []
    for a, b in sorted(edges):
        length = np.hypot(*(pts[a] - pts[b]))
        if length < 2 * radius + 14 or length > max_len:
            continue
        others = np.delete(np.arange(len(pts)), [a, b])
        if common.point_segment_distance(pts[others], pts[a], pts[b]).min() >= clearance:
            keep.append((a, b))
    return keep


def generate(rng: np.random.Generator, difficulty: str):
    width, height = common.level(difficulty, (1024, 768), (1280, 960), (1536, 1152))
    n = common.level(difficulty, 40, 70, 105)
    radius = common.level(difficulty, 7, 5, 4)
    line_w = common.level(difficulty, 3, 2, 2)
    target = int(rng.integers(*common.level(difficulty, (5, 9), (10, 19), (16, 27))))
    margin = 30
    min_dist = common.level(difficulty, 80, 70, 64)
    pts = _place_anchors(rng, n, width, height, margin, min_dist)
    if len(pts) < n // 2:
        raise common.GenerationFailed("could not place anchors")
    pts = _add_twins(rng, pts, common.level(difficulty, 2, 5, 9), radius, width, height, margin)
    edges = _allowed_edges(pts, radius, line_w, max_len=2.2 * min_dist)

    # Random spanning forest (Kruskal in random order) stopped at the target number of groups,
    # then a few extra strands inside groups so groups contain cycles too.
    forest = DisjointSet(range(len(pts)))
    chosen, rest = [], []
    for k in rng.permutation(len(edges)):
        a, b = edges[k]
        if not forest.connected(a, b) and forest.n_subsets > target:
            forest.merge(a, b)
            chosen.append((a, b))
        else:
            rest.append((a, b))
    extra_p = common.level(difficulty, 0.1, 0.2, 0.3)
    chosen += [(a, b) for a, b in rest if forest.connected(a, b) and rng.random() < extra_p]

    img, draw = common.canvas(width, height)
    for a, b in chosen:
        draw.line([tuple(pts[a]), tuple(pts[b])], fill=STRAND, width=line_w)
    for x, y in pts:
        draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=ANCHOR)
    return img, QUESTION, str(forest.n_subsets)


SPEC = common.TaskSpec("connected_component_counting", "CCC", "distributed_scanning", generate, r"[1-9]\d*")
