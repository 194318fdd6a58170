"""The notes tools (`read_notes`, `write_note`) as an MCP server of their own, mounted on the harness's MCP host for
one item, for a kind whose tools are not one server of its own (active observation; a game's notes are tools of
its `game` server, beside play). Outside the sandbox: the notes' files are never in the agent's reach."""

# No `from __future__ import annotations`: the tools' parameter descriptions are evaluated where each is defined.
from typing import Annotated

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from agent_eval.benchmarks.notes import NOTE_NAMES, NoteRefused, Notes
from agent_eval.tools.imagetools.mcp_server import fixed_tools_server, plain_tool

SERVER_NAME = "notes"
TOOL_NAMES = ("read_notes", "write_note")


WRITE_NOTE = f"Replace one of your notes ({' or '.join(NOTE_NAMES)}) with `text`. Every version is kept."


def note_functions(notes: Notes, where=lambda: {}):
    """(read_notes, write_note) over one item's notes: this server's, and a game's `game` server's beside play.
    `where()`: how far the item has got, recorded with each version (the observations made, the actions used)."""

    def read_notes() -> str:
        return notes.as_prompt()

    def write_note(
        name: Annotated[str, Field(description=f"{' or '.join(NOTE_NAMES)}.")],
        text: Annotated[str, Field(description="The note's whole new text.")],
    ) -> str:
        try:
            version = notes.write(name, text, where())
        except NoteRefused as refused:
            raise ToolError(str(refused)) from None
        return f"{name} saved (version {version}, {len(text)} characters)."

    return read_notes, write_note


def build_server(notes: Notes, where=lambda: {}):
    descriptions = {
        "read_notes": f"Read your two notes ({notes.describe()}). They are kept outside this conversation.",
        "write_note": WRITE_NOTE,
    }
    tools = [plain_tool(f, f.__name__, descriptions[f.__name__]) for f in note_functions(notes, where)]
    return fixed_tools_server(SERVER_NAME, tools)
