"""The `game` MCP server: one item's game tools, ours (ours_tools.py) or VISTA's (vista_tools.py), as the run's
`--game-tools` says; which of them a mode and rung offers is ladder.py's `tools()`. Served from the harness
process (the process's one MCP host, tools/mcp_http.py), mounted for one item only, like active observation's
`observe`: the game, its source and its frames stay outside the sandbox.

With `--working-scope level`, every play of either style is followed by the level check of games/working_scope.py
(WORKING.md archived and cleared when a level is completed)."""

from __future__ import annotations

import threading

from mcp.server.mcpserver import MCPServer

from agent_eval.benchmarks.arcgames import ours_tools, vista_tools
from agent_eval.benchmarks.arcgames import turns as t
from agent_eval.benchmarks.arcgames.ladder import Ladder
from agent_eval.benchmarks.arcgames.session import GameSession
from agent_eval.benchmarks.games.browser.tools import served
from agent_eval.benchmarks.games.served import SERVER_NAME
from agent_eval.benchmarks.games.vista.mcp import tools_of
from agent_eval.benchmarks.games.working_scope import archive_level
from agent_eval.benchmarks.notes import Notes
from agent_eval.tools.imagetools.mcp_server import fixed_tools_server


class _LevelScope:
    """Ours: after each play, a completed level archives and clears WORKING.md (the game going on)."""

    def __init__(self, session: GameSession, notes: Notes | None, ladder: Ladder):
        self.session, self.notes, self.on = session, notes, notes is not None and ladder.working_scope == "level"
        self.turns = t.Turns(session, {})
        played = t.replayed(self.turns.all(), 0, t.termination_reason(session))
        self.start = max((turn.number for turn, shown in played if shown.get("level_boundary")), default=0)
        self._lock = threading.Lock()
        self._seen = len(session.plays)  # plays already checked (a restored game's were, before the restart)

    def where(self) -> dict:
        return self.session.where(self.start)

    def after_play(self) -> None:
        with self._lock:
            every = self.turns.all()
            reason = t.termination_reason(self.session)
            for index in range(len(every) - (len(self.session.plays) - self._seen), len(every)):
                before, turn = (every[index - 1] if index else None), every[index]
                if t.crossed_level(before, turn, reason is not None and index == len(every) - 1):
                    assert before is not None
                    self.start = turn.number
                    if self.on:
                        assert self.notes is not None
                        was = {"completed": before.levels_completed, "total": turn.win_levels}
                        now = {"completed": turn.levels_completed, "total": turn.win_levels}
                        archive_level(self.notes, turn.number, was, now, turn.actions_used)
            self._seen = len(self.session.plays)


def build_server(
    session: GameSession, mode: str, scale: int, ladder: Ladder = Ladder(), notes: Notes | None = None
) -> MCPServer:
    """The game tools of this mode and rung on one item's session."""
    names = ladder.tools(mode)
    if ladder.vista:
        game = vista_tools.VistaGame(session, ladder, scale, notes)
        return fixed_tools_server(SERVER_NAME, tools_of(game.definitions(), game.functions(), names))
    scope = _LevelScope(session, notes, ladder)
    return served(ours_tools.tool_functions(session, scale, ladder, notes, scope.where, scope.after_play), names)
