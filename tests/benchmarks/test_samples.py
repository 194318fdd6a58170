"""Sample tasks: every answer is re-derived from the rendered pixels alone (flood fills, ray
casting, glyph matching of the labels), never from a generator's internal state."""

import hashlib
import json
import re
from functools import lru_cache

import numpy as np
import pytest
from PIL import Image, ImageDraw
from scipy import ndimage
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

import agent_eval.benchmarks.activevision.samples as samples
from agent_eval.benchmarks.activevision.samples import (
    DIFFICULTIES,
    SampleError,
    ensure_default_sample_set,
    generate_item,
    write_sample_set,
)
from agent_eval.benchmarks.activevision.samples.common import get_font

# What the real bank uses for each task: id prefix, category, answer format.
EXPECTED = {
    "arrow_chain_following": ("ACF", "sequential_traversal", r"[A-Z]"),
    "connected_component_counting": ("CCC", "distributed_scanning", r"[1-9]\d*"),
    "field_difference_spotting": ("FDS", "visual_attribute_transfer", r"none|[1-9]\d*(, [1-9]\d*)*"),
    "line_intersection_sequencing": ("LIS", "sequential_traversal", r"[A-Z](, [A-Z])*"),
    "maze_path_tracing": ("MPT", "sequential_traversal", r"[A-Z]-[A-Z]"),
    "region_counting": ("RC", "distributed_scanning", r"[1-9]\d*"),
}
EIGHT = np.ones((3, 3), bool)


# ---------------------------------------------------------------- pixel helpers


def rgb(image) -> np.ndarray:
    return np.asarray(image.convert("RGB")).astype(int)


def is_white(a):
    return (a == 255).all(-1)


@lru_cache(maxsize=None)
def glyphs(size: int) -> dict:
    """Binary rasters of A-Z in the bundled font, cropped to their ink."""
    out = {}
    font = get_font(size)
    for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        im = Image.new("L", (size * 3, size * 3), 0)
        draw = ImageDraw.Draw(im)
        draw.fontmode = "1"
        draw.text((size, size), ch, fill=255, font=font)
        m = np.asarray(im) > 127
        ys, xs = np.nonzero(m)
        out[ch] = m[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    return out


def read_letter(mask: np.ndarray) -> str:
    """OCR by template: the letter (any size 12-40) whose raster equals the mask's ink."""
    ys, xs = np.nonzero(mask)
    crop = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    best = (1.0, None)
    for size in range(12, 41):
        for ch, g in glyphs(size).items():
            if g.shape == crop.shape:
                best = min(best, ((g != crop).mean(), ch))
    assert best[0] < 0.03, f"unreadable label (best {best})"
    return best[1]


def components(mask, structure=EIGHT):
    lab, n = ndimage.label(mask, structure=structure)
    return lab, n


# ---------------------------------------------------------------- independent solvers


def solve_components(img) -> str:
    """Anchors and strands are all ink; linked groups are the 8-connected ink blobs."""
    return str(components(~is_white(rgb(img)))[1])


def solve_regions(img) -> str:
    """Regions are the 4-connected background areas; a few stray pixels where lines meet at
    an acute angle are rasterisation crumbs, not regions."""
    lab, n = components(is_white(rgb(img)), structure=None)
    sizes = np.bincount(lab.ravel())[1:]
    return str(int((sizes >= 30).sum()))


def solve_maze(img) -> str:
    """Find the gaps in the outer wall, flood-fill the corridors inside the frame from each gap,
    read the letter beside each gap, and report the only pair that shares a corridor system."""
    a = rgb(img)
    wall = (a < 50).all(-1)
    ys, xs = np.nonzero(wall)
    y0, y1, x0, x1 = ys.min(), ys.max(), xs.min(), xs.max()
    t = 0
    while wall[y0 + t, x0 : x1 + 1].mean() > 0.5:
        t += 1
    free = ~wall[y0 : y1 + 1, x0 : x1 + 1]
    seeds = []  # (seed pixel inside the frame, in frame-local coordinates)
    for line, fixed, inward, along_x in (
        (wall[y0, x0 : x1 + 1], y0, t, True),
        (wall[y1, x0 : x1 + 1], y1, -t, True),
        (wall[y0 : y1 + 1, x0], x0, t, False),
        (wall[y0 : y1 + 1, x1], x1, -t, False),
    ):
        gap_lab, n = ndimage.label(~line)
        for k in range(1, n + 1):
            mid = int(np.nonzero(gap_lab == k)[0].mean())
            inner = fixed + inward
            y, x = (inner, mid + x0) if along_x else (mid + y0, inner)
            seeds.append((y - y0, x - x0))
    corridors, _ = components(free, structure=None)  # flood fill of the corridors, walls block
    region_of = [corridors[s] for s in seeds]
    assert all(region_of), "an opening does not lead into the maze"

    ink = ~is_white(a) & ~wall
    lab, n = components(ink)
    letter_at = {}
    for k in range(1, n + 1):
        m = lab == k
        cy, cx = (v.mean() for v in np.nonzero(m))
        nearest = min(range(len(seeds)), key=lambda i: np.hypot(seeds[i][0] + y0 - cy, seeds[i][1] + x0 - cx))
        assert nearest not in letter_at, "two labels by one opening"
        letter_at[nearest] = read_letter(m)
    assert len(letter_at) == len(seeds), "every opening is labelled"
    groups = {}
    for i, r in enumerate(region_of):
        groups.setdefault(r, []).append(letter_at[i])
    linked = [g for g in groups.values() if len(g) > 1]
    assert len(linked) == 1 and len(linked[0]) == 2, f"expected exactly one connected pair, got {linked}"
    return "-".join(sorted(linked[0]))


def _piece_direction(ys, xs):
    """Centroid and pointing direction of a small triangle: its long axis (PCA), signed towards
    the apex (the skewed side), snapped to the 15-degree steps the pieces are drawn in."""
    c = np.array([xs.mean(), ys.mean()])
    p = np.stack([xs - c[0], ys - c[1]])
    axis = np.linalg.eigh(p @ p.T)[1][:, 1]
    if ((axis @ p) ** 3).sum() < 0:
        axis = -axis
    ang = np.round(np.arctan2(axis[1], axis[0]) / (np.pi / 12)) * (np.pi / 12)
    return c, np.array([np.cos(ang), np.sin(ang)])


def solve_arrows(img) -> str:
    """Start at the piece inside the green ring, cast its ray over the pixels, hop to the first
    other ink blob entered, repeat until a red terminus, then read the letter on it."""
    a = rgb(img)
    green = (a[..., 1] > 120) & (a[..., 0] < 60) & (a[..., 2] < 60)
    red = (a[..., 0] > 150) & (a[..., 1] < 80) & (a[..., 2] < 80)
    lab, _ = components(~is_white(a) & ~green)
    gy, gx = np.nonzero(green)
    cur = lab[int(round(gy.mean())), int(round(gx.mean()))]
    assert cur and not red[lab == cur].any(), "the ring holds a piece"
    h, w = lab.shape
    for _ in range(100):
        m = lab == cur
        if red[m].any():
            inside = ndimage.binary_fill_holes(m) & is_white(a)  # the white letter on the disc
            return read_letter(inside)
        c, u = _piece_direction(*np.nonzero(m))
        hit = None
        for t in np.arange(0.5, 2 * (h + w), 0.5):
            x, y = np.round(c + t * u).astype(int)
            if not (0 <= x < w and 0 <= y < h):
                break
            if lab[y, x] and lab[y, x] != cur:
                hit = lab[y, x]
                break
        assert hit is not None, "a ray left the canvas"
        cur = hit
    raise AssertionError("the chain does not end")


def along(band, start):
    """Breadth-first (8-neighbour step) distance from start over the band's pixels; -1 off it."""
    h, w = band.shape
    index = np.full(band.shape, -1)
    index[band] = np.arange(band.sum())
    src, dst = [], []
    for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
        xs0, xs1 = (0, w - dx) if dx >= 0 else (-dx, w)
        here = index[0 : h - dy, xs0:xs1]
        there = index[dy:h, xs0 + dx : xs1 + dx]
        ok = (here >= 0) & (there >= 0)
        src.append(here[ok])
        dst.append(there[ok])
    src, dst = np.concatenate(src), np.concatenate(dst)
    graph = csr_matrix((np.ones(len(src)), (src, dst)), shape=(index.max() + 1,) * 2)
    hops = shortest_path(graph, directed=False, unweighted=True, indices=index[start])
    dist = np.full(band.shape, -1.0)
    dist[band] = np.where(np.isinf(hops), -1, hops)
    return dist


def solve_intersections(img) -> str:
    """Curves are told apart by colour and named by the letter nearest their labelled end.
    Walking along curve A (breadth-first distance from its start), each run of another curve's
    pixels touching A is one crossing; list them in order of distance along A."""
    a = rgb(img)
    grey = (a[..., 0] == a[..., 1]) & (a[..., 1] == a[..., 2])
    colours, counts = np.unique(a[~grey].reshape(-1, 3), axis=0, return_counts=True)
    colours = [tuple(c) for c, n in zip(colours, counts) if n > 300]
    masks = {c: (a == c).all(-1) for c in colours}
    black = (a == 0).all(-1)
    lab, n = components(black)
    coords = {c: np.nonzero(m) for c, m in masks.items()}
    curve_of, start_of = {}, {}
    for k in range(1, n + 1):
        m = lab == k
        letter = read_letter(m)
        cy, cx = (v.mean() for v in np.nonzero(m))
        best = None
        for c, (ys, xs) in coords.items():
            d = np.hypot(ys - cy, xs - cx)
            i = d.argmin()
            if best is None or d[i] < best[0]:
                best = (d[i], c, (ys[i], xs[i]))
        curve_of[letter], start_of[letter] = best[1], best[2]
    assert len(set(curve_of.values())) == len(curve_of) == len(colours)
    a_mask = masks[curve_of["A"]]
    dist = along(ndimage.binary_dilation(a_mask, EIGHT, iterations=3), start_of["A"])
    near_a = ndimage.binary_dilation(a_mask, EIGHT, iterations=2)
    events = []
    for letter, colour in curve_of.items():
        if letter == "A":
            continue
        touch = masks[colour] & near_a
        # A is drawn on top, so the other curve shows on both sides of A at a crossing: join them.
        joined, k = components(ndimage.binary_dilation(touch, EIGHT, iterations=5))
        for j in range(1, k + 1):
            where = (joined == j) & touch
            events.append((dist[where].min(), letter))
    assert all(d >= 0 for d, _ in events)
    return ", ".join(letter for _, letter in sorted(events))


def solve_differences(img) -> str:
    """The three black grids are the panels; the grid lines inside Field A give the cells; a cell
    is listed when any of its pixels differs between Field A and Field B."""
    a = rgb(img)
    black = (a == 0).all(-1)
    lab, n = components(black)
    sizes = np.bincount(lab.ravel())[1:]
    panels = sorted((ndimage.find_objects(lab)[k] for k in np.argsort(sizes)[-3:]), key=lambda s: s[1].start)
    index, field_a, field_b = (a[s] for s in panels)
    assert field_a.shape == field_b.shape == index.shape

    def lines(mask, axis):
        pos = np.nonzero(mask.mean(axis=axis) > 0.95)[0]
        return [int(p) for i, p in enumerate(pos) if i == 0 or p != pos[i - 1] + 1]

    grid_a = (field_a == 0).all(-1)
    rows, cols = lines(grid_a, 1), lines(grid_a, 0)
    assert (rows, cols) == (lines((index == 0).all(-1), 1), lines((index == 0).all(-1), 0))
    ys, xs = np.nonzero((field_a != field_b).any(-1))
    cells = sorted(
        {(np.searchsorted(rows, y) - 1) * (len(cols) - 1) + np.searchsorted(cols, x) for y, x in zip(ys, xs)}
    )
    return ", ".join(str(c) for c in cells) if cells else "none"


SOLVERS = {
    "arrow_chain_following": solve_arrows,
    "connected_component_counting": solve_components,
    "field_difference_spotting": solve_differences,
    "line_intersection_sequencing": solve_intersections,
    "maze_path_tracing": solve_maze,
    "region_counting": solve_regions,
}


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def default_cache(tmp_path_factory):
    root = tmp_path_factory.mktemp("cache")
    return root, ensure_default_sample_set(root)


@pytest.fixture(scope="module")
def sample_set(default_cache):
    _, path = default_cache
    rows = [json.loads(line) for line in (path / "metadata.jsonl").read_text(encoding="utf-8").splitlines()]
    return path, rows


@pytest.fixture
def small_default(monkeypatch):
    """A 1-per-task default set, for the cache tests that must regenerate it."""
    monkeypatch.setattr(samples, "DEFAULT_PER_TASK", 1)


def file_hashes(root):
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.iterdir()) if not p.name.startswith(".")
    }


# ---------------------------------------------------------------- ground truth from pixels


@pytest.mark.parametrize("task", sorted(SOLVERS))
def test_default_set_answers_match_pixels(sample_set, task):
    out, rows = sample_set
    mine = [r for r in rows if r["task"] == task]
    assert len(mine) == 5
    for row in mine:
        with Image.open(out / row["file_name"]) as img:
            assert SOLVERS[task](img) == row["answer"], row["id"]


@pytest.mark.parametrize("difficulty", ["easy", "hard"])
@pytest.mark.parametrize("task", sorted(SOLVERS))
def test_other_difficulties_match_pixels(task, difficulty):
    row, img = generate_item(task, 7, seed=3, difficulty=difficulty)
    assert SOLVERS[task](img) == row["answer"]


def test_difficulty_changes_size_and_counts():
    _, easy_img = generate_item("maze_path_tracing", 0, difficulty="easy")
    _, hard_img = generate_item("maze_path_tracing", 0, difficulty="hard")
    assert easy_img.size[0] < hard_img.size[0]
    for _, img in (generate_item(t, 0) for t in SOLVERS):
        assert 1024 <= img.size[0] <= 1536


# ---------------------------------------------------------------- layout and formats


def test_sample_questions_are_the_real_banks_word_for_word(sample_set, bank_questions):
    _, rows = sample_set
    questions = {}
    for b in bank_questions:
        questions.setdefault(b["task"], set()).add(b["question"])
    for r in rows:
        assert r["question"] in questions[r["task"]], r["id"]


def test_metadata_rows_validate(sample_set):
    out, rows = sample_set
    lines = (out / "metadata.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == rows
    assert len({r["id"] for r in rows}) == len(rows) == 30
    for r in rows:
        assert list(r) == ["id", "file_name", "task", "category", "question", "answer"]
        prefix, category, pattern = EXPECTED[r["task"]]
        assert r["category"] == category
        assert re.fullmatch(rf"{prefix}-[0-4]", r["id"]) and r["file_name"] == f"{r['id']}.png"
        assert (out / r["file_name"]).is_file()
        assert re.fullmatch(pattern, r["answer"]), r
        assert r["question"].endswith("Provide your final answer enclosed in <answer>...</answer> tags.")
        if r["task"] == "field_difference_spotting" and r["answer"] != "none":
            numbers = [int(v) for v in r["answer"].split(", ")]
            assert numbers == sorted(set(numbers))
        if r["task"] == "maze_path_tracing":
            assert r["answer"][0] < r["answer"][2]
    assert {r["task"] for r in rows} == set(EXPECTED)


def test_expected_formats_are_the_banks(bank):
    for b in bank:
        if b["task"] in EXPECTED:
            prefix, category, pattern = EXPECTED[b["task"]]
            assert b["id"].startswith(prefix + "-") and b["category"] == category
            assert re.fullmatch(pattern, b["answer"]), b


def test_registry_matches_expectations():
    assert set(samples.TASKS) == set(EXPECTED) == set(samples.GENERATORS)
    for name, spec in samples.TASKS.items():
        assert (spec.prefix, spec.category, spec.answer_pattern) == EXPECTED[name]


# ---------------------------------------------------------------- determinism


def test_same_seed_same_bytes_other_seed_differs(sample_set, tmp_path):
    out, rows = sample_set
    again = tmp_path / "again"
    assert write_sample_set(again, seed=0, per_task=2) == [r for r in rows if int(r["id"].split("-")[1]) < 2]
    first = file_hashes(out)
    for name, digest in file_hashes(again).items():
        if name.endswith(".png"):
            assert digest == first[name], name  # generated twice, independently: identical bytes
    other = tmp_path / "seed1"
    write_sample_set(other, seed=1, per_task=1)
    for name, digest in file_hashes(other).items():
        if name.endswith(".png"):
            assert digest != first[name], name
    with Image.open(other / "CCC-0.png") as im:
        assert not im.info, "PNG carries no metadata chunks"


# ---------------------------------------------------------------- default set and errors


def test_default_set_cached_once(default_cache, monkeypatch):
    root, path = default_cache
    assert path == root / f"seed-{samples.DEFAULT_SEED}"
    rows = [json.loads(line) for line in (path / "metadata.jsonl").read_text().splitlines()]
    assert len(rows) == 30
    for task in EXPECTED:
        assert sum(r["task"] == task for r in rows) == 5
    stamp = (path / "metadata.jsonl").stat().st_mtime_ns

    def boom(*args, **kwargs):
        raise AssertionError("regenerated a current set")

    monkeypatch.setattr(samples, "write_sample_set", boom)
    assert ensure_default_sample_set(root) == path
    assert (path / "metadata.jsonl").stat().st_mtime_ns == stamp
    assert sorted(p.name for p in root.iterdir()) == [path.name]  # no temp dirs left


def test_default_set_crash_leaves_nothing(tmp_path, monkeypatch, small_default):
    real = samples.generate_item
    calls = []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:
            raise RuntimeError("crash mid-way")
        return real(*args, **kwargs)

    monkeypatch.setattr(samples, "generate_item", flaky)
    root = tmp_path / "cache"
    with pytest.raises(RuntimeError):
        ensure_default_sample_set(root)
    assert list(root.iterdir()) == []


def test_written_set_is_all_or_nothing(tmp_path, monkeypatch):
    real = samples.generate_item

    def flaky(task, index, *args, **kwargs):
        if task == "maze_path_tracing":
            raise RuntimeError("crash mid-way")
        return real(task, index, *args, **kwargs)

    monkeypatch.setattr(samples, "generate_item", flaky)
    (tmp_path / "out").mkdir()
    with pytest.raises(RuntimeError):
        write_sample_set(tmp_path / "out", per_task=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert list((tmp_path / "out").iterdir()) == []


def test_stale_default_set_is_rebuilt(tmp_path, small_default):
    root = tmp_path / "cache"
    path = root / "seed-0"
    path.mkdir(parents=True)
    (path / "metadata.jsonl").write_text("")
    (path / ".samples-version").write_text('{"version": -1}')
    assert ensure_default_sample_set(root) == path
    assert len((path / "metadata.jsonl").read_text().splitlines()) == 6
    assert sorted(p.name for p in root.iterdir()) == ["seed-0"]


def test_clear_errors(tmp_path):
    for kwargs, message in (
        ({"difficulty": "extreme"}, "unknown difficulty 'extreme'"),
        ({"tasks": ["maze"]}, "unknown sample task 'maze'"),
        ({"per_task": 0}, "positive integer"),
        ({"seed": -1}, "non-negative"),
    ):
        with pytest.raises(SampleError, match=message):
            write_sample_set(tmp_path / "new", **kwargs)
        assert not (tmp_path / "new").exists()
    assert issubclass(SampleError, ValueError)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "x").write_text("x")
    with pytest.raises(SampleError, match="not empty"):
        write_sample_set(busy)
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(SampleError, match="not a directory"):
        write_sample_set(afile)


def test_task_selection_and_empty_dir(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    rows = write_sample_set(empty, per_task=2, difficulty="easy", tasks=["MPT", "region_counting"])
    assert [r["id"] for r in rows] == ["MPT-0", "MPT-1", "RC-0", "RC-1"]
    assert set(DIFFICULTIES) == {"easy", "normal", "hard"}
