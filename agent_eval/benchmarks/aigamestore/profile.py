"""`--profile vista` for AI GameStore: VISTA's model-facing setting of the benchmark as one switch, every value a run
option a user could give (docs/kinds/aigamestore.md has the table, row by row). From VISTA's harness
(joshhhhhan/VISTA, MIT; stored copy agent-memory-atlas-archive/joshhhhhan--VISTA at c97c354):

- the system prompt: its objective (the paper's role sentence and the scoring rule), its frozen-game paragraph,
  the game's description and controls, then its method (benchmarks/aigamestore/profiles.py system_prompt,
  make_profile; core/prompts/claude.md, the only method text in the copy, used for Codex too):
  prompts/aigamestore/vista-system.md, filled per game, in the CLI's own prompt's place;
- compaction by checkpoint: at the CLI's own compaction point the agent saves its notes and stops, and a fresh
  session goes on from them with VISTA's recovery words (profiles.py SessionPolicy CHECKPOINT; backends/claude
  lifecycle): --context handoff:cli;
- a hand-off before the 600th image of a session (backends/claude/runner.py CLAUDE_PROVIDER_IMAGE_LIMIT, its
  harness's for every benchmark): --session-images 600, VISTA's tools' images counted;
- its first message "Game screen (paused):" with the first frame, its recovery words (profiles.py PromptBundle);
- the episode: a final reply is no game action, answered "No game action was executed. Continue with the play or
  restart tool." and the game goes on, bounded by the decisions (session.py submit; profiles.py make_experiment
  `final_answers`); the host never says how many decisions are used or left (`host_action_count: False`);
- 120 game seconds a game (environment.py MAX_DECISIONS), each five 0.2 s segments, the game paused between;
- its tools: play and restart in its words (profiles.py action_specs; session.py), then VISTA_TOOLS (profiles.py):
  inspect, read_pixels and history over the game's events (core/support.py TaskContext: mode image) and the notes
  GUIDE.md and WORKING.md through read_guide, write_guide, read_working, write_working (--notes on), and for Codex
  save_compact_checkpoint (docs/kinds/aigamestore.md)."""

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
