"""The `game` MCP server: one item's game tools, ours (ours_tools.py) or VISTA's (vista_tools.py), as the run's
`--game-tools` says; which of them a mode and rung offers is ladder.py's `tools()`. Served from the harness
process (the process's one MCP host, tools/mcp_http.py), mounted for one item only, like active observation's
`observe`: the game, its source and its frames stay outside the sandbox.

With `--working-scope level`, every play of either style is followed by the level check of games/working_scope.py
(WORKING.md archived and cleared when a level is completed)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from agent_eval.benchmarks.arcgames import ours_tools, vista_tools
from agent_eval.benchmarks.arcgames import turns as t
from agent_eval.benchmarks.arcgames.ladder import Ladder
from agent_eval.benchmarks.arcgames.session import GameSession
from agent_eval.benchmarks.games.served import SERVER_NAME
from agent_eval.benchmarks.games.tools import served
from agent_eval.benchmarks.games.vista.mcp import tools_of
from agent_eval.benchmarks.notes import Notes
from agent_eval.tools.imagetools.mcp_server import fixed_tools_server


def build_server(
    session: GameSession, mode: str, scale: int, ladder: Ladder = Ladder(), notes: Notes | None = None
) -> MCPServer:
    """The game tools of this mode and rung on one item's session."""
    names = ladder.tools(mode)
    if ladder.vista:
        game = vista_tools.VistaGame(session, ladder, scale, notes)
        return fixed_tools_server(SERVER_NAME, tools_of(game.definitions(), game.functions(), names))
    levels = t.Levels(session, t.Turns(session), notes if ladder.working_scope == "level" else None)
    return served(ours_tools.tool_functions(session, scale, ladder, notes, levels.where, levels.after_play), names)
