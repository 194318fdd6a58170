"""Benchmark kinds behind one interface (base.Benchmark); the dataset directory says which."""
from __future__ import annotations

from pathlib import Path

from agent_eval.benchmarks.base import (
    Benchmark,
    BenchmarkGrade,
    ItemSetup,
    McpServer,
    ToolSet,
)

__all__ = ["Benchmark", "BenchmarkGrade", "ItemSetup", "McpServer", "ToolSet", "get_benchmark", "load_benchmark"]

KINDS = ("activevision", "activeobs")
ALL_TOOL_MODES = ("none", "image", "observe", "python")


def get_benchmark(name: str) -> Benchmark:
    if name == "activevision":
        from agent_eval.benchmarks.activevision.benchmark import ActiveVision
        return ActiveVision()
    if name == "activeobs":
        from agent_eval.benchmarks.activeobs.benchmark import ActiveObservation
        return ActiveObservation()
    raise ValueError(f"unknown benchmark {name!r}")


def detect(root: Path) -> Benchmark:
    from agent_eval.benchmarks.activeobs import is_active_dataset
    return get_benchmark("activeobs" if is_active_dataset(root) else "activevision")


def load_benchmark(root: Path):
    """(benchmark, dataset) for a dataset directory of either kind."""
    benchmark = detect(Path(root))
    return benchmark, benchmark.load(Path(root))
