"""arrow_chain_following: small pointed pieces, lettered terminus discs, a green-ringed start.

The chain is built forwards: each piece points straight at the next one's centre, and every
other marker is kept at least a few pixels clear of each ray (some deliberately only just clear,
so near misses must be checked up close). The answer is then recomputed by casting the exact
rays against the exact shapes, which must reproduce the intended terminus."""

from __future__ import annotations

import numpy as np

from agent_eval.benchmarks.activevision.samples import common

QUESTION = common.question(
    "The image shows many small pieces scattered across the canvas, each clearly oriented in a "
    "specific direction, plus several larger labeled terminus markers (each marker bears a distinct "
    "letter). The piece highlighted by a green ring is the starting point. From that piece, cast an "
    "infinitely thin ray (a mathematical half-line with zero width) from its centre along the "
    "direction it points; the next step is the FIRST other marker this ray enters. A marker only "
    "counts if the ray actually crosses its boundary — grazing nearby without entering does not "
    "count. Continue until the ray enters a labeled terminus marker and report its letter. Answer "
    "with a single letter."
)
PIECE = (35, 35, 35)
TERMINUS = (175, 30, 30)
RING = (0, 160, 0)
DIRECTIONS = 24  # pieces point in multiples of 15 degrees
CLEAR = 4.0  # px between a ray and the circumcircle of any marker it must miss
LETTERS = "ABCDEFGHIJ"


def _unit(k):
    a = 2 * np.pi * k / DIRECTIONS
    return np.array([np.cos(a), np.sin(a)])


def _triangle(c, u, length, base):
    """Isosceles triangle whose centroid is c and whose apex points along u."""
    n = np.array([-u[1], u[0]])
    tip, back = c + (2 / 3) * length * u, c - (1 / 3) * length * u
    return [tip, back + (base / 2) * n, back - (base / 2) * n]


def _ray_entry(c, u, obj, length, base):
    """Distance along the ray from c where it enters obj, or None."""
    if obj["kind"] == "terminus":
        d = c - obj["c"]
        b = float(d @ u)
        disc = b * b - (float(d @ d) - obj["r"] ** 2)
        if disc < 0:
            return None
        t = -b - np.sqrt(disc)
        return t if t > 0 else None
    tri = _triangle(obj["c"], obj["u"], length, base)
    hits = []
    for a, b in zip(tri, tri[1:] + tri[:1]):
        e = b - a
        den = u[0] * e[1] - u[1] * e[0]
        if abs(den) < 1e-12:
            continue
        q = a - c
        t = (q[0] * e[1] - q[1] * e[0]) / den
        s = (q[0] * u[1] - q[1] * u[0]) / den
        if t > 0 and 0 <= s <= 1:
            hits.append(t)
    return min(hits) if hits else None


def _follow(objs, start, length, base):
    """Cast the exact rays from the start until one enters a terminus; return its letter."""
    cur, seen = start, {start}
    for _ in range(len(objs)):
        o = objs[cur]
        entries = [(_ray_entry(o["c"], o["u"], p, length, base), j) for j, p in enumerate(objs) if j != cur]
        entries = [e for e in entries if e[0] is not None]
        if not entries:
            return None
        cur = min(entries)[1]
        if objs[cur]["kind"] == "terminus":
            return objs[cur]["letter"]
        if cur in seen:
            return None
        seen.add(cur)
    return None


class _Board:
    def __init__(self, rng, width, height, piece_r, term_r):
        self.rng, self.width, self.height = rng, width, height
        self.piece_r, self.term_r = piece_r, term_r
        self.objs, self.rays = [], []  # rays: (from, to) centre segments of the chain

    def fits(self, p, r, ray_exempt=None, extra_gap=6.0):
        edge = r + 12
        if not (edge <= p[0] <= self.width - edge and edge <= p[1] <= self.height - edge):
            return False
        for o in self.objs:
            if np.hypot(*(p - o["c"])) < r + o["r"] + extra_gap:
                return False
        for k, (a, b) in enumerate(self.rays):
            if k != ray_exempt and common.point_segment_distance(p, a, b) < r + CLEAR:
                return False
        return True

    def ray_clear(self, a, b, skip):
        return all(
            common.point_segment_distance(o["c"], a, b) >= o["r"] + CLEAR
            for j, o in enumerate(self.objs)
            if j not in skip
        )


def _build_chain(board, steps, step_range, ring_r):
    rng = board.rng
    start = rng.uniform((80, 80), (board.width - 80, board.height - 80))
    board.objs.append({"kind": "piece", "c": start, "r": board.piece_r, "u": None})
    cur = 0
    for step in range(steps):
        last = step == steps - 1
        r = board.term_r if last else board.piece_r
        for _ in range(300):
            k = int(rng.integers(DIRECTIONS))
            u = _unit(k)
            c = board.objs[cur]["c"]
            q = c + rng.uniform(*step_range) * u
            if np.hypot(*(q - start)) < ring_r + r + 6 or not board.fits(q, r):
                continue
            if not board.ray_clear(c, q, skip={cur}):
                continue
            board.objs[cur]["u"] = u
            board.objs[cur]["k"] = k
            board.rays.append((c, q))
            kind = "terminus" if last else "piece"
            board.objs.append({"kind": kind, "c": q, "r": r, "u": None})
            cur = len(board.objs) - 1
            break
        else:
            return False
    return True


def generate(rng: np.random.Generator, difficulty: str):
    width, height = common.level(difficulty, (1024, 768), (1280, 960), (1536, 1152))
    length, base = common.level(difficulty, (28, 14), (22, 11), (18, 9))
    piece_r = 2 / 3 * length  # circumradius about the centroid
    term_r = common.level(difficulty, 24, 20, 18)
    steps = common.level(difficulty, 3, 5, 7)
    n_terms = common.level(difficulty, 4, 6, 8)
    n_pieces = common.level(difficulty, 25, 60, 110)
    ring_r = piece_r + 8
    for _ in range(50):
        board = _Board(rng, width, height, piece_r, term_r)
        if _build_chain(board, steps, common.level(difficulty, (160, 360), (120, 320), (100, 300)), ring_r):
            break
    else:
        raise common.GenerationFailed("could not build the arrow chain")
    start = board.objs[0]["c"]

    def place(r, near_ray):
        for _ in range(300):
            if near_ray:  # a near miss: just outside the clearance of a chain ray
                a, b = board.rays[int(rng.integers(len(board.rays)))]
                n = np.array([-(b - a)[1], (b - a)[0]]) / np.hypot(*(b - a))
                p = a + rng.uniform(0.2, 0.8) * (b - a) + rng.choice([-1, 1]) * (r + CLEAR + rng.uniform(0.5, 4)) * n
            else:
                p = rng.uniform((0, 0), (width, height))
            if np.hypot(*(p - start)) >= ring_r + r + 6 and board.fits(p, r):
                return p
        return None

    for _ in range(n_terms - 1):
        p = place(term_r, near_ray=False)
        if p is not None:
            board.objs.append({"kind": "terminus", "c": p, "r": term_r, "u": None})
    n_near = common.level(difficulty, 2, 5, 9)
    for i in range(n_pieces):
        p = place(piece_r, near_ray=i < n_near)
        if p is not None:
            k = int(rng.integers(DIRECTIONS))
            board.objs.append({"kind": "piece", "c": p, "r": piece_r, "u": _unit(k), "k": k})

    letters = list(LETTERS[: sum(o["kind"] == "terminus" for o in board.objs)])
    rng.shuffle(letters)
    for o in board.objs:
        if o["kind"] == "terminus":
            o["letter"] = letters.pop()
    answer = _follow(board.objs, 0, length, base)
    if answer != board.objs[steps]["letter"]:
        raise common.GenerationFailed("ray casting disagrees with the constructed chain")

    img, draw = common.canvas(width, height)
    draw.ellipse([start[0] - ring_r, start[1] - ring_r, start[0] + ring_r, start[1] + ring_r], outline=RING, width=3)
    for o in board.objs:
        x, y = o["c"]
        if o["kind"] == "terminus":
            draw.ellipse([x - term_r, y - term_r, x + term_r, y + term_r], fill=TERMINUS)
            common.draw_label(draw, (x, y), o["letter"], (255, 255, 255), int(term_r * 1.2))
        else:
            draw.polygon([tuple(v) for v in _triangle(o["c"], o["u"], length, base)], fill=PIECE)
    return img, QUESTION, answer


SPEC = common.TaskSpec("arrow_chain_following", "ACF", "sequential_traversal", generate, r"[A-Z]")
