"""`--profile vista` for GameWorld: VISTA's model-facing setting of the benchmark (joshhhhhan/VISTA, MIT; stored
copy agent-memory-atlas-archive/joshhhhhan--VISTA at c97c354) as one switch, every value a run option a user could
give; docs/kinds/gameworld.md has the table, row by row, each value with its file in VISTA's code.

The evaluator's settings are built as GameWorld's catalog builder builds them (catalog.py), not as VISTA's engine.py
does: at the GameWorld commit that can be fetched, VISTA's runtime config leaves the evaluator out and scores
nothing (/work/shared/design.md)."""

from __future__ import annotations

from agent_eval.benchmarks.registry import Profile
from agent_eval.datamodel.sandbox_policy import PROJECT_ROOT

VISTA_SYSTEM_PROMPT = PROJECT_ROOT / "prompts" / "gameworld" / "vista-system.md"

PROFILES = (
    Profile(
        name="vista",
        kind="gameworld",
        about="VISTA's GameWorld harness (joshhhhhan/VISTA)",
        options={
            "tools": "image",
            "protocol": "vista",
            "interface": "computer-use",
            "max_steps": 100,
            "realtime": "off",
            "system_prompt": str(VISTA_SYSTEM_PROMPT),
            "task_prompt": "vista",
            "final_answer": "redirect",
            "tell_steps": "off",
            "action_batches": "off",
            "notes": "on",
            "game_tools": "vista",
            "act_schema": "vista",
            "roles": "isolated",
            "context": "handoff:cli",
            "session_images": 600,
        },
    ),
)
