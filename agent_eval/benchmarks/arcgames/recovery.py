"""Never quitting early (VISTA's lifecycle, backends/claude/lifecycle.py): an agent whose session ends while its
game is live (not won, budgets left) is continued. First in the same session, once per session and level
("The environment is still active. Continue."); then in fresh sessions told where the game stands and given
their notes, at most `recoveries` in a row with no action between; past that, the game is graded as it stands.
Every early stop is a line of <item>/game/stops.jsonl (so the count survives restarts of the harness), and the
record counts them (`early_stops`, `stopped_early`)."""

from __future__ import annotations

from pathlib import Path

from agent_eval.datamodel.itemdir import now_iso
from agent_eval.datamodel.jsonl import append_line, log_lines

STOPS = "stops.jsonl"
STILL_ACTIVE = "The environment is still active: the game is not over and your budget is not spent. Continue playing."
RESUME, FRESH, GIVE_UP = "resume", "fresh", "graded as it stands"


def read_stops(game_dir: Path) -> list[dict]:
    return log_lines(Path(game_dir) / STOPS)


def after_early_stop(
    game_dir: Path, session_id: str | None, level: int, actions_used: int, recoveries: int, can_resume: bool
) -> str:
    """What follows an early stop (RESUME, FRESH or GIVE_UP), recorded with it."""
    stops = read_stops(game_dir)
    resumed_here = any(
        s.get("then") == RESUME and s.get("session_id") == session_id and s.get("level") == level for s in stops
    )
    fresh_in_a_row = 0
    for stop in reversed(stops):  # the fresh sessions since the last action
        if stop.get("actions_used") != actions_used:
            break
        fresh_in_a_row += stop.get("then") == FRESH
    if can_resume and session_id and not resumed_here:
        then = RESUME
    elif fresh_in_a_row < recoveries:
        then = FRESH
    else:
        then = GIVE_UP
    append_line(
        Path(game_dir) / STOPS,
        {"at": now_iso(), "session_id": session_id, "level": level, "actions_used": actions_used, "then": then},
    )
    return then
