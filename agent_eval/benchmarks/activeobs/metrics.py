"""What an active-observation record's `metrics` holds: the answer's and the evidence's grades."""

from __future__ import annotations

from dataclasses import field

from pydantic.dataclasses import dataclass

from agent_eval.benchmarks.base import KindMetrics


@dataclass
class ActiveObsMetrics(KindMetrics):
    family: str | None = None  # the question family (the item's category)
    answer_correct: bool | None = None  # None: not graded (an old record or a harness failure)
    evidence_correct: bool = False
    combined: bool = False  # answer and evidence both right: the kind's headline score
    evidence: dict | None = None  # the evidence object the agent gave, as given
    grade_detail: dict = field(default_factory=dict)  # why: parse error, best IoU, matched frame, ...
    # What the evidence rests on (seen.py; descriptive, beside the grade). None: not known (no evidence to place,
    # nothing logged, an older record) or, for the graph's, no world model.
    evidence_view_observed: bool | None = None  # the evidence names a view the agent obtained
    evidence_in_graph: bool | None = None  # the evidence box is an entity the agent wrote into its graph
    graph_entities: int | None = None
    graph_attributes: int | None = None
    graph_relations: int | None = None
    graph_size: int | None = None  # entities + attributes + relations
    graph_refused: int | None = None  # writes refused (citing no observation obtained, unknown entity, ...)

    def answer_right(self, record) -> bool:
        """Whether the answer was right: these metrics say so, else (an ungraded or old record) the record."""
        return self.answer_correct if self.answer_correct is not None else record.correct
