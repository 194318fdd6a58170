"""maze_path_tracing: a grid maze with lettered openings; exactly one pair is connected.

A perfect maze (random depth-first spanning tree) connects everything, so passages are then
walled off: every other opening gets a wall somewhere on its way to the chosen pair's path, and
further walls split any two other openings that still share a part. Walls are thin and cells
small, so following a corridor rewards zooming."""

from __future__ import annotations

from collections import deque

import numpy as np
from scipy.cluster.hierarchy import DisjointSet

from agent_eval.benchmarks.activevision.samples import common

QUESTION = common.question(
    "The image shows a maze with several labeled openings on its border. Exactly one pair of "
    "openings is connected by a path through the maze; all other pairs are blocked by walls. "
    "Identify the connected pair. A path exists only if you can travel from one opening to another "
    "through corridors without crossing any wall. Report the connected pair in alphabetical order, "
    "formatted as X-Y."
)
LABEL = (20, 60, 170)
LETTERS = "ABCDEFGHIJ"


def _spanning_tree(rng, rows, cols):
    """Randomised depth-first search; returns adjacency sets of passages."""
    adj: dict[tuple[int, int], set[tuple[int, int]]] = {(r, c): set() for r in range(rows) for c in range(cols)}
    seen, stack = {(0, 0)}, [(0, 0)]
    while stack:
        r, c = stack[-1]
        nbrs = [(r + dr, c + dc) for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))]
        nbrs = [n for n in nbrs if n in adj and n not in seen]
        if not nbrs:
            stack.pop()
            continue
        n = nbrs[int(rng.integers(len(nbrs)))]
        adj[(r, c)].add(n)
        adj[n].add((r, c))
        seen.add(n)
        stack.append(n)
    return adj


def _path(adj, a, b):
    """Cells on the passage path from a to b, or None if not connected."""
    prev, queue = {a: None}, deque([a])
    while queue:
        cur = queue.popleft()
        if cur == b:
            out = []
            while cur is not None:
                out.append(cur)
                cur = prev[cur]
            return out[::-1]
        for n in adj[cur]:
            if n not in prev:
                prev[n] = cur
                queue.append(n)
    return None


def _components(adj):
    """The connected parts of the maze: comp[cell] names a cell's part."""
    comp = DisjointSet(adj)
    for cell, nbrs in adj.items():
        for n in nbrs:
            comp.merge(cell, n)
    return comp


def _border_slots(rows, cols):
    """(cell, side) along the border in perimeter order, skipping corner cells."""
    top = [((0, c), "top") for c in range(1, cols - 1)]
    right = [((r, cols - 1), "right") for r in range(1, rows - 1)]
    bottom = [((rows - 1, c), "bottom") for c in range(cols - 2, 0, -1)]
    left = [((r, 0), "left") for r in range(rows - 2, 0, -1)]
    return top + right + bottom + left


def _pick_openings(rng, rows, cols, n):
    slots = _border_slots(rows, cols)
    for _ in range(200):
        idx = np.sort(rng.choice(len(slots), size=n, replace=False))
        gaps = np.diff(np.append(idx, idx[0] + len(slots)))
        if gaps.min() >= 3:
            return [slots[i] for i in idx]
    raise common.GenerationFailed("could not space maze openings")


def _wall_off(rng, adj, cells, pair):
    """Cut passages until the pair is the only connected couple of openings."""
    keep = set(_path(adj, cells[pair[0]], cells[pair[1]]))
    if any(cells[i] in keep for i in range(len(cells)) if i not in pair):
        return False  # another opening sits on the pair's path: can't separate it
    for _ in range(4 * len(cells)):
        comp = _components(adj)
        groups: dict[object, list[int]] = {}
        for i, cell in enumerate(cells):
            groups.setdefault(comp[cell], []).append(i)
        bad = [g for g in groups.values() if len(g) > (2 if pair[0] in g else 1)]
        if not bad:
            return True
        group = bad[0]
        loose = [i for i in group if i not in pair]
        other = pair[0] if pair[0] in group else [i for i in group if i != loose[0]][0]
        path = _path(adj, cells[loose[0]], cells[other])
        edges = [(a, b) for a, b in zip(path, path[1:]) if not (a in keep and b in keep)]
        lo = 1 if len(edges) > 2 else 0  # avoid sealing the opening into a one-cell pocket
        a, b = edges[int(rng.integers(lo, len(edges)))]
        adj[a].discard(b)
        adj[b].discard(a)
    return False


def generate(rng: np.random.Generator, difficulty: str):
    cols, rows = common.level(difficulty, (16, 12), (28, 20), (36, 26))
    cell = common.level(difficulty, 56, 40, 36)
    half = common.level(difficulty, 2, 1, 1)  # wall thickness is 2 * half + 1 px
    n_open = common.level(difficulty, 4, 6, 8)
    margin = 56
    for _ in range(50):
        adj = _spanning_tree(rng, rows, cols)
        slots = _pick_openings(rng, rows, cols, n_open)
        cells = [s[0] for s in slots]
        lengths = {(i, j): len(_path(adj, cells[i], cells[j])) for i in range(n_open) for j in range(i + 1, n_open)}
        longish = [p for p, n in lengths.items() if n >= np.median(list(lengths.values()))]
        pair = longish[int(rng.integers(len(longish)))]
        if _wall_off(rng, adj, cells, pair):
            break
    else:
        raise common.GenerationFailed("could not wall off the maze")

    img, draw = common.canvas(cols * cell + 2 * margin, rows * cell + 2 * margin)

    def wall(x0, y0, x1, y1):  # grid-point coordinates; square caps close every joint
        left, top = margin + x0 * cell - half, margin + y0 * cell - half
        draw.rectangle([left, top, margin + x1 * cell + half, margin + y1 * cell + half], fill=common.BLACK)

    for r in range(rows):
        for c in range(cols):
            if c + 1 < cols and (r, c + 1) not in adj[(r, c)]:
                wall(c + 1, r, c + 1, r + 1)
            if r + 1 < rows and (r + 1, c) not in adj[(r, c)]:
                wall(c, r + 1, c + 1, r + 1)
    openings = set(slots)
    for c in range(cols):
        if ((0, c), "top") not in openings:
            wall(c, 0, c + 1, 0)
        if ((rows - 1, c), "bottom") not in openings:
            wall(c, rows, c + 1, rows)
    for r in range(rows):
        if ((r, 0), "left") not in openings:
            wall(0, r, 0, r + 1)
        if ((r, cols - 1), "right") not in openings:
            wall(cols, r, cols, r + 1)

    letters = list(LETTERS[:n_open])
    rng.shuffle(letters)
    offset = margin // 2
    for ((r, c), side), letter in zip(slots, letters):
        x, y = margin + (c + 0.5) * cell, margin + (r + 0.5) * cell
        x, y = {
            "top": (x, margin - offset),
            "bottom": (x, margin + rows * cell + offset),
            "left": (margin - offset, y),
            "right": (margin + cols * cell + offset, y),
        }[side]
        common.draw_label(draw, (x, y), letter, LABEL, common.level(difficulty, 26, 22, 20))
    answer = "-".join(sorted((letters[pair[0]], letters[pair[1]])))
    return img, QUESTION, answer


SPEC = common.TaskSpec("maze_path_tracing", "MPT", "sequential_traversal", generate, r"[A-Z]-[A-Z]")
