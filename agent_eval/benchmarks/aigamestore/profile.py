"""`--profile vista` for AI GameStore: VISTA's model-facing setting of the benchmark as one switch, every value a run
option a user could give. docs/kinds/aigamestore.md has the table, row by row, each with its file in VISTA's harness
(joshhhhhan/VISTA, MIT; stored copy agent-memory-atlas-archive/joshhhhhan--VISTA at c97c354)."""

from __future__ import annotations

from agent_eval.benchmarks.registry import Profile
from agent_eval.datamodel.sandbox_policy import PROJECT_ROOT

VISTA_SYSTEM_PROMPT = PROJECT_ROOT / "prompts" / "aigamestore" / "vista-system.md"

PROFILES = (
    Profile(
        name="vista",
        kind="aigamestore",
        about="VISTA's AI GameStore harness (joshhhhhan/VISTA)",
        options={
            "tools": "image",
            "protocol": "vista",
            "decisions": 120,
            "realtime": "off",
            "system_prompt": str(VISTA_SYSTEM_PROMPT),
            "task_prompt": "vista",
            "final_answer": "redirect",
            "tell_steps": "off",
            "action_batches": "off",
            "notes": "on",
            "game_tools": "vista",
            "context": "handoff:cli",
            "session_images": 600,
        },
    ),
)
