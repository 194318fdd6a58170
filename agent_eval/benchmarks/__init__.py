"""Benchmark kinds behind one interface (base.Benchmark); registry.py names them and says which kind a
dataset directory is. One package per kind: activevision/, activeobs/, arcgames/."""

from __future__ import annotations

from pathlib import Path

from agent_eval.benchmarks.base import Benchmark, BenchmarkGrade, ItemError, ItemSetup, ReadingHooks
from agent_eval.benchmarks.registry import all_tool_modes, detect, get_benchmark, reading_hooks

__all__ = [
    "Benchmark",
    "BenchmarkGrade",
    "ItemError",
    "ItemSetup",
    "ReadingHooks",
    "get_benchmark",
    "load_benchmark",
    "reading_hooks",
]

ALL_TOOL_MODES = all_tool_modes()


def load_benchmark(root: Path):
    """(benchmark, dataset) for a dataset directory of any registered kind."""
    benchmark = detect(Path(root))
    return benchmark, benchmark.load(Path(root))
