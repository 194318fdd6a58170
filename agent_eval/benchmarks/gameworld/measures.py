"""GameWorld's own measures, in place of accuracy wherever a run is read (analysis/measures.py): the suite's two,
success rate and mean progress (grading.py rollup_records); a task reads as whether it succeeded (if not, the
evaluator's last status) and its progress."""

from __future__ import annotations

from collections.abc import Sequence

from agent_eval.analysis.measures import GRADED, NONE, KindMeasure, averaged
from agent_eval.benchmarks.gameworld.grading import TaskMetrics, rollup_records
from agent_eval.datamodel.records import ItemRecord


def _succeeded(record: ItemRecord) -> str:
    """yes, or no and the evaluator's last status (fail, unknown, error)."""
    if record.status not in GRADED:
        return NONE
    metrics = TaskMetrics.of(record)
    return "yes" if metrics.success else f"no ({metrics.status})"


def _success_rate(records: Sequence[ItemRecord]) -> str:
    suite = rollup_records(records)
    return NONE if not suite["tasks"] else f"{suite['success_rate']:.1%}"


def _progress(record: ItemRecord) -> float | None:
    return TaskMetrics.of(record).progress


MEASURES = [
    KindMeasure("success", "success rate (GameWorld's suite)", _succeeded, _success_rate),
    averaged("progress", "mean progress, 0-1 (GameWorld's suite)", _progress, "{:.3f}".format),
]
