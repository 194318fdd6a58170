"""Never quitting early (VISTA's lifecycle, backends/claude/lifecycle.py): an agent whose session ends while its
game is live is continued, first in the same session (once per session and level), then in fresh sessions, at most
`recoveries` in a row with no action between; past that, the game is graded as it stands. Every early stop is a
line of <item>/game/stops.jsonl, so the count survives restarts of the harness. A kind supplies its game as a
LiveGame and its words for the next session (`going_on`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from agent_eval.benchmarks.base import Continuation
from agent_eval.datamodel.itemdir import now_iso
from agent_eval.datamodel.jsonl import append_line, log_lines
from agent_eval.datamodel.sessions import read_sessions

STOPS = "stops.jsonl"
STILL_ACTIVE = "The environment is still active: the game is not over and your budget is not spent. Continue playing."
RESUME, FRESH, GIVE_UP = "resume", "fresh", "graded as it stands"


def read_stops(game_dir: Path) -> list[dict]:
    return log_lines(Path(game_dir) / STOPS)


class LiveGame(Protocol):
    """What the policy reads of a kind's game session."""

    directory: Path  # the game's folder (<item>/game): stops.jsonl is kept there

    @property
    def actions_used(self) -> int: ...  # actions (decisions) spent: fresh sessions in a row are counted between two

    @property
    def level(self) -> int: ...  # the level the game is on (a session is resumed once per session and level)

    def progress_words(self) -> str: ...  # where the game stands, in one line


def after_the_stop(
    game: LiveGame, item_root: Path, recoveries: int, going_on: Callable[[str, bool], Continuation]
) -> Continuation | None:
    """What follows the agent's session ending with the game live (see above), or None: graded as it stands.
    `going_on(reason, resume)` is what the next session is told (the kind's words)."""
    sessions = read_sessions(item_root)
    last_id = sessions[-1].session_id if sessions else None
    level, actions_used, stops = game.level, game.actions_used, read_stops(game.directory)
    resumed_here = any(
        s.get("then") == RESUME and s.get("session_id") == last_id and s.get("level") == level for s in stops
    )
    fresh_in_a_row = 0
    for stop in reversed(stops):  # the fresh sessions since the last action
        if stop.get("actions_used") != actions_used:
            break
        fresh_in_a_row += stop.get("then") == FRESH
    if last_id and not resumed_here:
        then = RESUME
    elif fresh_in_a_row < recoveries:
        then = FRESH
    else:
        then = GIVE_UP
    stop = {"at": now_iso(), "session_id": last_id, "level": level, "actions_used": actions_used, "then": then}
    append_line(Path(game.directory) / STOPS, stop)  # recorded with what follows it
    if then == GIVE_UP:
        return None
    why = f"early stop: the game is live ({game.progress_words()})"
    if then == RESUME:
        return going_on(f"{why}; continued", True)
    return going_on(f"{why}; a fresh session goes on", False)
