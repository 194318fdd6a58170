"""`--profile vista`: VISTA's ARC-AGI-3 configuration as one switch, every value a run option a user could give
(so each rung of the ladder is the profile with one option changed: `--profile vista --tools python` adds the
shell). From VISTA's harness (joshhhhhan/VISTA, MIT; stored copy agent-memory-atlas-archive/joshhhhhan--VISTA
at c97c354):

- the player instructions as the system prompt, replacing the CLI's own: prompts/arcgames/vista-system.md, the
  "Player instructions" its README publishes (joshhhhhan/VISTA 900aa33), passed as `--system-prompt` (Claude Code
  --system-prompt with --setting-sources ""; Codex its model instructions);
- its first message and recovery records: --task-prompt vista (arc3/claude/harness.py build_initial_prompt,
  arc3/claude/recovery.py);
- rendering: scale 8 with grid lines, clicks and regions in pixels of the 512x512 image (harness.py RENDER_SCALE,
  DEFAULT_RENDER_GRID, DISPLAY_SIZE);
- tools: play, inspect, read_pixels, history, read_guide, write_guide, read_working, write_working, no shell
  (arc3/claude/tools.py build_tools) with WORKING.md scoped to a level (controller.py _archive_level_working) and
  its note sizes (core/tools.py);
- limits: 2,000 actions (harness.py DEFAULT_MAX_STEPS), no clock of its own (its task timeout is bounded at
  MAX_TASK_TIMEOUT_SECONDS, 2,000,000 s);
- context: a hand-off at the CLI's own compaction point and before the 600th image of a session
  (backends/claude/lifecycle.py, mcp_host.py, runner.py CLAUDE_PROVIDER_IMAGE_LIMIT);
- the episode: the first observation up front, one action per observation, early stops continued with at most 5
  fresh sessions a step (lifecycle.py MAX_DECISION_LEASE_RECOVERIES_PER_STEP), a session silent for 120 minutes
  restarted."""

from __future__ import annotations

from agent_eval.benchmarks.registry import Profile
from agent_eval.datamodel.sandbox_policy import PROJECT_ROOT

VISTA_SYSTEM_PROMPT = PROJECT_ROOT / "prompts" / "arcgames" / "vista-system.md"

PROFILES = (
    Profile(
        name="vista",
        kind="arcgames",
        about="VISTA's ARC-AGI-3 harness (joshhhhhan/VISTA)",
        options={
            "tools": "image",
            "system_prompt": str(VISTA_SYSTEM_PROMPT),
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
            "timeout_s": 2_000_000.0,
            "context": "handoff:cli",
            "session_images": 600,
            "initial_frame": "on",
            "action_batches": "off",
            "early_stop": "continue",
            "recoveries": 5,
            "silent_minutes": 120.0,
        },
    ),
)
