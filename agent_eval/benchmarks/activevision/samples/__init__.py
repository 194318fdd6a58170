"""Bundled sample tasks: procedural ActiveVision-style items with exact ground truth.

`write_sample_set` writes the released dataset layout (`metadata.jsonl` with rows
`id, file_name, task, category, question, answer` and `<id>.png` beside it), so `make demo`
and a first `agent-eval run` work before the real dataset is downloaded. The same seed gives
byte-identical files: every item draws from its own numpy Generator seeded by
(seed, task, index), drawing is free of anti-aliasing and PNGs carry no metadata.

common.py         what the generators share: their interface, difficulty levels, drawing helpers
arrows.py         arrow_chain_following
components.py     connected_component_counting
differences.py    field_difference_spotting
intersections.py  line_intersection_sequencing
maze.py           maze_path_tracing
regions.py        region_counting
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
import zlib
from pathlib import Path
from typing import Iterable

import numpy as np

from agent_eval.benchmarks.activevision.samples import arrows, components, differences, intersections, maze, regions
from agent_eval.benchmarks.activevision.samples.common import DIFFICULTIES, GenerationFailed

# task name -> generator spec, in the real bank's task-name order
TASKS = {m.SPEC.name: m.SPEC for m in (arrows, components, differences, intersections, maze, regions)}
# The small common interface: (numpy Generator, difficulty) -> (PIL image, question, answer).
GENERATORS = {name: spec.generate for name, spec in TASKS.items()}

DEFAULT_SEED = 0
DEFAULT_PER_TASK = 5
DEFAULT_DIFFICULTY = "normal"
# Bump when any generator's output changes, so cached default sets are rebuilt.
SAMPLES_VERSION = 1
_STAMP = ".samples-version"


class SampleError(ValueError):
    """Bad sample-set request (unknown task or difficulty, bad count, unusable output dir)."""


def item_rng(seed: int, task: str, index: int) -> np.random.Generator:
    """The item's own Generator: crc32 (not hash()) keeps it stable across processes."""
    return np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(task.encode()), index]))


def _resolve_tasks(tasks: Iterable[str] | str | None) -> list[str]:
    if tasks is None:
        return list(TASKS)
    if isinstance(tasks, str):
        tasks = [t for t in tasks.split(",")]
    by_prefix = {spec.prefix: name for name, spec in TASKS.items()}
    out = []
    for raw in tasks:
        name = raw.strip()
        name = by_prefix.get(name.upper(), name)
        if name not in TASKS:
            raise SampleError(f"unknown sample task {raw!r}; choose from: {', '.join(TASKS)}")
        if name not in out:
            out.append(name)
    if not out:
        raise SampleError("no sample tasks selected")
    return out


def _check(seed, per_task, difficulty):
    if difficulty not in DIFFICULTIES:
        raise SampleError(f"unknown difficulty {difficulty!r}; choose from: {', '.join(DIFFICULTIES)}")
    if isinstance(per_task, bool) or not isinstance(per_task, int) or per_task < 1:
        raise SampleError(f"per-task count must be a positive integer, got {per_task!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SampleError(f"seed must be a non-negative integer, got {seed!r}")


def generate_item(task: str, index: int, seed: int = DEFAULT_SEED, difficulty: str = DEFAULT_DIFFICULTY):
    """One item: (metadata row, PIL image)."""
    spec = TASKS[_resolve_tasks([task])[0]]
    _check(seed, 1, difficulty)
    image, question, answer = spec.generate(item_rng(seed, spec.name, index), difficulty)
    if not re.fullmatch(spec.answer_pattern, answer):  # a generator bug, never user error
        raise GenerationFailed(f"{spec.name}: answer {answer!r} breaks the format {spec.answer_pattern}")
    item_id = f"{spec.prefix}-{index}"
    row = {
        "id": item_id,
        "file_name": f"{item_id}.png",
        "task": spec.name,
        "category": spec.category,
        "question": question,
        "answer": answer,
    }
    return row, image


def _fresh_path(beside: Path) -> Path:
    """An unused hidden name next to `beside`, for writing before an atomic rename."""
    return beside.parent / f".{beside.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def write_sample_set(
    out_dir,
    seed: int = DEFAULT_SEED,
    per_task: int = DEFAULT_PER_TASK,
    difficulty: str = DEFAULT_DIFFICULTY,
    tasks: Iterable[str] | str | None = None,
) -> list[dict]:
    """Generate `per_task` items of each task (all tasks, or the given names or id prefixes) into
    out_dir, which must be new or empty; returns the metadata rows. Bad requests raise SampleError."""
    _check(seed, per_task, difficulty)
    names = _resolve_tasks(tasks)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise SampleError(f"{out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()):
        raise SampleError(f"{out} exists and is not empty; choose a new directory or empty it first")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = _fresh_path(out)
        tmp.mkdir()
    except OSError as error:
        raise SampleError(f"cannot write to {out.parent}: {error.strerror or error}") from None
    # Written beside OUT and renamed into place, so a crash never leaves a half-written set.
    try:
        rows = []
        for name in names:
            for index in range(per_task):
                row, image = generate_item(name, index, seed, difficulty)
                # Fixed options and no info chunks: same pixels -> same bytes.
                image.save(tmp / row["file_name"], format="PNG", compress_level=6)
                rows.append(row)
        with (tmp / "metadata.jsonl").open("w", encoding="utf-8", newline="\n") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        try:
            os.replace(tmp, out)  # also replaces an existing empty directory
        except OSError as error:
            raise SampleError(f"cannot create {out}: {error.strerror or error}") from None
        return rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def default_cache_root() -> Path:
    """$AGENT_EVAL_CACHE_DIR/samples, else $XDG_CACHE_HOME/agent-eval/samples, else ~/.cache/agent-eval/samples."""
    if os.environ.get("AGENT_EVAL_CACHE_DIR"):
        return Path(os.environ["AGENT_EVAL_CACHE_DIR"]) / "samples"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "agent-eval" / "samples"


def _stamp() -> str:
    return json.dumps(
        {
            "version": SAMPLES_VERSION,
            "seed": DEFAULT_SEED,
            "per_task": DEFAULT_PER_TASK,
            "difficulty": DEFAULT_DIFFICULTY,
        }
    )


def _is_current(path: Path) -> bool:
    try:
        return (path / "metadata.jsonl").is_file() and (path / _STAMP).read_text() == _stamp()
    except OSError:
        return False


def ensure_default_sample_set(cache_dir=None) -> Path:
    """The default sample set (seed 0, 5 items per task) under cache_dir (default: see
    default_cache_root), generated once. It is written to a temporary directory and renamed into
    place, so a crash never leaves a half-written set, and concurrent callers agree on one copy."""
    root = Path(cache_dir) if cache_dir is not None else default_cache_root()
    target = root / f"seed-{DEFAULT_SEED}"
    if _is_current(target):
        return target
    tmp = _fresh_path(target)
    try:
        write_sample_set(tmp, DEFAULT_SEED, DEFAULT_PER_TASK, DEFAULT_DIFFICULTY)
        (tmp / _STAMP).write_text(_stamp())
        if target.exists() and not _is_current(target):  # stale (older generator version): move aside
            stale = _fresh_path(target)
            os.replace(target, stale)
            shutil.rmtree(stale, ignore_errors=True)
        try:
            os.rename(tmp, target)
        except OSError:
            if not _is_current(target):  # anything but another process having won the race
                raise
        return target
    except OSError as error:
        raise SampleError(f"cannot write the sample cache under {root}: {error.strerror or error}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
