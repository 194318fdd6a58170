"""field_difference_spotting: an index key plus two smooth colour fields on the same grid;
list the cells where the fields differ.

Field B is Field A with a small local bump added inside some cells. Each bump is windowed to
zero well inside its cell (so it never leaks over a grid line) and must change the rendered
colours visibly; its size and strength shrink with difficulty, so small ones need zooming."""

from __future__ import annotations

import numpy as np
from PIL import Image
from scipy import ndimage

from agent_eval.benchmarks.activevision.samples import common

QUESTION = common.question(
    "Three panels are shown side by side. The leftmost panel is an INDEX key: a grid of cells "
    "numbered in row-major order (top-left = 1, increasing left-to-right then top-to-bottom). The "
    "middle and right panels are 2D color fields, each divided into the same grid. Compare the middle "
    "(Field A) and right (Field B) panels cell by cell. List the numbers of all cells that DIFFER "
    'between Field A and Field B, in ascending order, separated by commas. If no cells differ, write "none".'
)
# A perceptually ordered ramp (dark blue -> teal -> yellow) so value changes read as colour changes.
RAMP = np.array([(40, 30, 110), (40, 100, 160), (40, 160, 140), (130, 200, 80), (240, 220, 60)], float)
TITLE = (60, 60, 60)
VISIBLE = 24  # a bump must move some pixel's colour by at least this much (max channel difference)


def _colorize(values):
    x = np.clip(values, 0, 1) * (len(RAMP) - 1)
    i = np.minimum(x.astype(int), len(RAMP) - 2)
    f = (x - i)[..., None]
    return np.round(RAMP[i] * (1 - f) + RAMP[i + 1] * f).astype(np.uint8)


def _smooth_field(rng, size):
    coarse = rng.uniform(0, 1, (6, 6))
    field = ndimage.zoom(coarse, size / 6, order=3, mode="nearest")[:size, :size]
    lo, hi = field.min(), field.max()
    return 0.1 + 0.8 * (field - lo) / (hi - lo)


def _bump(rng, cell, sigma, amp):
    """A smooth blob for one cell (cell x cell values), exactly zero beyond 2.5 sigma from its centre,
    which stays clear of the cell's edges."""
    pad = 2.5 * sigma + 4
    cy, cx = rng.uniform(pad, cell - pad, size=2)
    stretch = rng.uniform(0.6, 1.0)  # slightly elliptical so blobs don't all look alike
    yy, xx = np.mgrid[0:cell, 0:cell]
    d = np.hypot((yy - cy) * stretch, xx - cx) / sigma
    window = np.clip(1 - (d / 2.5) ** 2, 0, None) ** 2
    return amp * rng.choice([-1, 1]) * np.exp(-0.5 * d * d) * window


def generate(rng: np.random.Generator, difficulty: str):
    grid = common.level(difficulty, 3, 4, 5)
    panel = common.level(difficulty, 360, 420, 480)
    cell = panel // grid
    panel = cell * grid
    sigma = cell * common.level(difficulty, 0.12, 0.07, 0.05)
    amp = common.level(difficulty, 0.3, 0.16, 0.12)
    n_cells = grid * grid
    n_diff = 0 if rng.random() < 0.1 else int(rng.integers(1, n_cells - 1))
    cells = sorted(int(i) for i in rng.choice(n_cells, size=n_diff, replace=False))

    field_a = _smooth_field(rng, panel)
    field_b = field_a.copy()
    img_a = _colorize(field_a)
    for i in cells:
        r, c = divmod(i, grid)
        box = np.s_[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell]
        for _ in range(20):
            trial = field_a[box] + _bump(rng, cell, sigma, amp)
            if np.abs(_colorize(trial).astype(int) - img_a[box].astype(int)).max() >= VISIBLE:
                field_b[box] = trial
                break
        else:
            raise common.GenerationFailed("could not make a visible difference")
    img_b = _colorize(field_b)

    gap, top, side = 28, 56, 28
    width, height = side * 2 + 3 * panel + 2 * gap, top + panel + side
    img, draw = common.canvas(width, height)
    xs = [side + k * (panel + gap) for k in range(3)]
    img.paste(Image.fromarray(img_a), (xs[1], top))
    img.paste(Image.fromarray(img_b), (xs[2], top))
    for x0, title in zip(xs, ("INDEX", "Field A", "Field B")):
        common.draw_label(draw, (x0 + panel / 2, top / 2), title, TITLE, 22)
        for k in range(grid + 1):  # grid lines and frame, identical in all three panels
            draw.line([(x0 + k * cell, top), (x0 + k * cell, top + panel)], fill=common.BLACK, width=1)
            draw.line([(x0, top + k * cell), (x0 + panel, top + k * cell)], fill=common.BLACK, width=1)
    for i in range(n_cells):
        r, c = divmod(i, grid)
        common.draw_label(
            draw,
            (xs[0] + (c + 0.5) * cell, top + (r + 0.5) * cell),
            str(i + 1),
            common.BLACK,
            common.level(difficulty, 36, 30, 26),
        )
    answer = ", ".join(str(i + 1) for i in cells) if cells else "none"
    return img, QUESTION, answer


ANSWER_FORMAT = r"none|[1-9]\d*(, [1-9]\d*)*"  # "none", or the cell numbers ascending
SPEC = common.TaskSpec("field_difference_spotting", "FDS", "visual_attribute_transfer", generate, ANSWER_FORMAT)
