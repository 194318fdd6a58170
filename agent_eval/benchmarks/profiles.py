"""Each kind's named configurations (`run --profile NAME`): `vista`, VISTA's setting of each benchmark it reports
(joshhhhhan/VISTA, MIT; stored copy agent-memory-atlas-archive/joshhhhhan--VISTA at c97c354), as one switch, every
value a run option a user could give (so each rung is the profile with one option changed: `--profile vista --tools
python` adds the shell). docs/kinds/<kind>.md tables each value beside the file of VISTA's code it comes from; the
system prompts replace the CLI's own (ARC-AGI-3's: the "Player instructions" VISTA's README publishes, 900aa33;
BabyVision's: its profiles.py system_prompt())."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_eval.datamodel.sandbox_policy import PROJECT_ROOT


@dataclass(frozen=True)
class Profile:
    """A named configuration of one kind: values for run options, each by its name in `run` (a kind's own options
    and the run's alike), used wherever the command line does not give that option."""

    name: str
    kind: str
    about: str  # whose configuration, in a few words
    options: dict[str, object]


def vista_system_prompt(kind: str) -> Path:
    return PROJECT_ROOT / "prompts" / kind / "vista-system.md"


def vista(kind: str, benchmark: str, options: dict[str, object]) -> Profile:
    return Profile("vista", kind, f"VISTA's {benchmark} harness (joshhhhhan/VISTA)", options)


# VISTA's protocol on both browser games: its words, redirect, untold steps, one action per observation, notes, tools
VISTA_BROWSER_GAME = {
    "task_prompt": "vista",
    "final_answer": "redirect",
    "tell_steps": "off",
    "action_batches": "off",
    "notes": "on",
    "game_tools": "vista",
}

# In registry order (babyvision, arcgames, aigamestore, gameworld): `run --help` writes them out in this order.
PROFILES = (
    vista(
        "babyvision",
        "BabyVision",
        {
            "tools": "image",
            "system_prompt": str(vista_system_prompt("babyvision")),
            "task_prompt": "vista",
            "image_tools": "vista",
            "grade": "vista",
        },
    ),
    vista(
        "arcgames",
        "ARC-AGI-3",
        {
            "tools": "image",
            "system_prompt": str(vista_system_prompt("arcgames")),
            "task_prompt": "vista",
            "game_tools": "vista",
            "notes": "on",
            "working_scope": "level",
            "frame_scale": 8,
            "frame_grid": "on",
            "coordinates": "display",
            "observation": "image",
            "pixel_readout": "on",
            "max_actions": 2000,
            "timeout_s": 2_000_000.0,  # no clock of its own: its task timeout's bound, MAX_TASK_TIMEOUT_SECONDS
            "context": "handoff:cli",
            "session_images": 600,
            "initial_frame": "on",
            "action_batches": "off",
            "early_stop": "continue",
            "recoveries": 5,
            "silent_minutes": 120.0,
        },
    ),
    vista(
        "aigamestore",
        "AI GameStore",
        {
            "tools": "image",
            "protocol": "vista",
            "decisions": 120,
            "realtime": "off",
            "system_prompt": str(vista_system_prompt("aigamestore")),
            **VISTA_BROWSER_GAME,
            "context": "handoff:cli",
            "session_images": 600,
        },
    ),
    # The evaluator's settings are built as GameWorld's catalog builder builds them (catalog.py), not as VISTA's
    # engine.py does: at the GameWorld commit that can be fetched, VISTA's runtime config leaves the evaluator out
    # and scores nothing (/work/shared/design.md).
    vista(
        "gameworld",
        "GameWorld",
        {
            "tools": "image",
            "protocol": "vista",
            "interface": "computer-use",
            "max_steps": 100,
            "realtime": "off",
            "system_prompt": str(vista_system_prompt("gameworld")),
            **VISTA_BROWSER_GAME,
            "act_schema": "vista",
            "roles": "isolated",
            "context": "handoff:cli",
            "session_images": 600,
        },
    ),
)
