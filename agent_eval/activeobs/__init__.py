"""Active observation: questions about a 360° panoramic video the agent never sees whole.

The agent requests views by frame and angle through the `observe` MCP tool (served from
outside the sandbox), answers, and points at its evidence; grading scores both. Follows the
JRDB-AVR protocol (3760x480 panorama, 15 FPS, 480x480 views). docs/active-observation.md.

Modules: geometry (angles, spans, boxes), scene (scene model), render (pixels and boxes),
synth + questions + generate (synthetic datasets), schema + data (items and loader),
grading (answer modes, evidence, rollup), observe_server (the MCP tool), passive (mode none
frames), prompting (answer format text).
"""
from .data import ActiveDataset, is_active_dataset, load_active_dataset
from .grading import DEFAULT_RULES, ActiveGrade, Rules, grade_active, rollup_active, rules_hash
from .observe_server import SERVER_NAME, TOOL_NAME, ObservationServer
from .passive import PassiveFrame, passive_preamble, sample_frames, write_passive_sample
from .prompting import answer_instructions, question_block
from .schema import ActiveItem

__all__ = [
    "ActiveDataset", "ActiveGrade", "ActiveItem", "DEFAULT_RULES", "ObservationServer", "PassiveFrame", "Rules",
    "SERVER_NAME", "TOOL_NAME", "answer_instructions", "grade_active", "is_active_dataset", "load_active_dataset",
    "passive_preamble", "question_block", "rollup_active", "rules_hash", "sample_frames", "write_passive_sample",
]
