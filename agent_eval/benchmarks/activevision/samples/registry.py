"""Task name -> generator spec, in the real bank's task-name order."""

from __future__ import annotations

from agent_eval.benchmarks.activevision.samples import arrows, components, differences, intersections, maze, regions
from agent_eval.benchmarks.activevision.samples.common import TaskSpec

TASKS: dict[str, TaskSpec] = {
    spec.name: spec
    for spec in sorted(
        (arrows.SPEC, components.SPEC, differences.SPEC, intersections.SPEC, maze.SPEC, regions.SPEC),
        key=lambda s: s.name,
    )
}
# The small common interface: (numpy Generator, difficulty) -> (PIL image, question, answer).
GENERATORS = {name: spec.generate for name, spec in TASKS.items()}
