"""`--profile vista` on BabyVision: VISTA's setting of the benchmark (joshhhhhan/VISTA, MIT; stored copy
agent-memory-atlas-archive/joshhhhhan--VISTA at c97c354) as one switch, every value a run option a user could give
(so each rung is the profile with one option changed). docs/kinds/babyvision.md tables each setting beside the file
of VISTA's code it comes from; the system prompt is VISTA's profiles.py system_prompt() text."""

from __future__ import annotations

from agent_eval.benchmarks.registry import Profile
from agent_eval.datamodel.sandbox_policy import PROJECT_ROOT

VISTA_SYSTEM_PROMPT = PROJECT_ROOT / "prompts" / "babyvision" / "vista-system.md"

PROFILES = (
    Profile(
        name="vista",
        kind="babyvision",
        about="VISTA's BabyVision harness (joshhhhhan/VISTA)",
        options={
            "tools": "image",
            "system_prompt": str(VISTA_SYSTEM_PROMPT),
            "task_prompt": "vista",
            "image_tools": "vista",
            "grade": "vista",
        },
    ),
)
