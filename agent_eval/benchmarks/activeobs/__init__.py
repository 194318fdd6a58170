"""Active observation: questions about a 360° panoramic video the agent never sees whole.

The agent requests views by frame and angle through the `observe` MCP tool (served from
outside the sandbox), answers, and points at its evidence; grading scores both. Follows the
JRDB-AVR protocol (3760x480 panorama, 15 FPS, 480x480 views). docs/kinds/activeobs.md.

Modules: geometry (angles, spans, boxes), scene (scene model), render (pixels and boxes),
synth + questions + generate (synthetic datasets), schema + loader (items and their loading),
grading (answer modes, evidence, rollup), observe_server (the MCP tool), passive (mode none
frames), prompting (answer format text), worldmodel + worldmodel_server (the agent's graph and its tools,
--world-model on), seen (whether the evidence names a view obtained, a box in the graph), graph_view (the graph for
show and report).
"""

import importlib

# Where each public name lives. Loaded on first use (PEP 562), so checking a dataset's kind or
# reading its items does not import the mcp SDK and the renderer.
_EXPORTS = {
    "ActiveDataset": "loader",
    "is_active_dataset": "loader",
    "load_active_dataset": "loader",
    "DEFAULT_RULES": "grading",
    "ActiveGrade": "grading",
    "Rules": "grading",
    "grade_active": "grading",
    "rollup_active": "grading",
    "rules_hash": "grading",
    "SERVER_NAME": "observe_server",
    "TOOL_NAME": "observe_server",
    "ObservationServer": "observe_server",
    "PassiveFrame": "passive",
    "passive_preamble": "passive",
    "sample_frames": "passive",
    "write_passive_sample": "passive",
    "answer_instructions": "prompting",
    "question_block": "prompting",
    "ActiveItem": "schema",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
