"""`--profile vista` for GameWorld: VISTA's model-facing setting of the benchmark as one switch, every value a run
option a user could give (docs/kinds/gameworld.md has the table, row by row). From VISTA's harness
(joshhhhhan/VISTA, MIT; stored copy agent-memory-atlas-archive/joshhhhhan--VISTA at c97c354):

- the system prompt: the task's objective for the role (the game's rules, the task's prompt, "Role N: name" with
  its role and computer-use controls sections), then its method (benchmarks/gameworld/computer_use.py objective,
  profiles.py make_profile; core/prompts/claude.md, the only method text in the copy, used for Codex too):
  prompts/gameworld/vista-system.md, filled per task, in the CLI's own prompt's place;
- compaction by checkpoint: at the CLI's own compaction point the agent saves its notes and stops, and a fresh
  session goes on from them with VISTA's recovery words (profiles.py SessionPolicy CHECKPOINT; backends/claude
  lifecycle): --context handoff:cli;
- a hand-off before the 600th image of a session (backends/claude/runner.py CLAUDE_PROVIDER_IMAGE_LIMIT, its
  harness's for every benchmark): --session-images 600, VISTA's tools' images counted (not yet with isolated roles);
- its first message "Game screen:" with the first screen, its recovery words (profiles.py PromptBundle);
- the computer-use `act` tool in VISTA's schema, its bad input refused in VISTA's words (computer_use.py
  action_schema, action_description; core/runtime.py: vista_act.py), 100 decisions (profiles.py make_experiment
  `game_decisions`);
- a final reply is a step with no action, answered "No valid action was executed. Final game screen." with the
  screen, and the task goes on (session.py RoleSession.submit; `final_answers`: 100);
- in a game of several roles, each role its own context and one action a turn (profiles.py SessionPolicy
  `one_action_per_turn`, make_experiment `role_context: isolated`; run.py play_loop): --roles isolated, roles.py;
- neither the step count nor the horizon told (`host_action_count`, `host_action_horizon`: False);
- VISTA_TOOLS (profiles.py): inspect, read_pixels and history over the task's events (core/support.py
  TaskContext: mode image) and the notes through read_guide, write_guide, read_working, write_working (--notes on);
  act is answered in VISTA's words; for Codex save_compact_checkpoint too (docs/kinds/gameworld.md).

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
