"""An API-neutral view of one model request, and resolution of scripted tool names.

Each wire module (anthropic_wire, responses_wire) turns a request body into a
``Conversation``; the server only looks at that view to pick and render a turn.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from .scenario import Call

# Agent-neutral names -> the built-in tool each API's CLI offers, with argument renames.
# Values: list of (wire tool name, {neutral key: wire key}) tried in order.
NEUTRAL_TOOLS: dict[str, dict[str, list[tuple[str, dict[str, str]]]]] = {
    "anthropic": {
        "shell": [("Bash", {"command": "command", "cmd": "command"})],
        "view_file": [("Read", {"path": "file_path", "file_path": "file_path"})],
    },
    "responses": {
        "shell": [("exec_command", {"command": "cmd", "cmd": "cmd"}),
                  ("shell_command", {"command": "command", "cmd": "command"})],
        "view_file": [("view_image", {"path": "path", "file_path": "path"})],
    },
}
PATH_KEYS = {"file_path", "path"}   # made absolute against the conversation's cwd


@dataclass(frozen=True)
class OfferedTool:
    name: str
    namespace: str | None = None    # Codex: function inside a `namespace` tool (MCP servers)
    kind: str = "function"          # function | custom | builtin (web_search, ...) | deferred

    @property
    def qualified(self) -> str:
        return f"{self.namespace}{'' if self.namespace.endswith('__') else '__'}{self.name}" \
            if self.namespace else self.name


@dataclass
class Conversation:
    api: str                                   # "anthropic" | "responses"
    prompt: str = ""                           # text of the user messages (not tool results)
    n_results: int = 0                         # tool results already in the conversation
    last_output: str | None = None             # text of the most recent tool result
    tools: list[OfferedTool] = field(default_factory=list)
    has_image: bool = False                    # any image anywhere (prompt or tool results)
    cwd: str | None = None                     # working directory the CLI told the model
    system: str = ""                           # system / developer text (for side-request checks)


@dataclass(frozen=True)
class ResolvedCall:
    name: str
    namespace: str | None
    input: dict[str, Any]


class NotOffered(LookupError):
    """The scenario asks for a tool the request does not offer."""


def offered_summary(tools: list[OfferedTool]) -> str:
    return ", ".join(t.qualified for t in tools) or "none"


def resolve_call(call: Call, conv: Conversation) -> ResolvedCall:
    """Map a scenario call onto a tool this request offers, or raise NotOffered."""
    callable_tools = [t for t in conv.tools if t.kind in ("function", "custom")]
    for wire_name, renames in NEUTRAL_TOOLS[conv.api].get(call.tool, []):
        for tool in callable_tools:
            if tool.name == wire_name and tool.namespace is None:
                return ResolvedCall(wire_name, None, _rename(call.input, renames, conv.cwd))
    exact = [t for t in callable_tools if t.name == call.tool and t.namespace is None]
    qualified = [t for t in callable_tools if t.namespace and t.qualified == call.tool]
    suffix = [t for t in callable_tools
              if t.qualified.endswith("__" + call.tool) or (t.namespace and t.name == call.tool)]
    for candidates in (exact, qualified, suffix):
        if candidates:
            tool = candidates[0]
            return ResolvedCall(tool.name, tool.namespace, dict(call.input))
    raise NotOffered(f"tool {call.tool} not offered (offered: {offered_summary(conv.tools)})")


def _rename(inp: dict[str, Any], renames: dict[str, str], cwd: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in inp.items():
        key = renames.get(key, key)
        if key in PATH_KEYS and isinstance(value, str) and cwd and not os.path.isabs(value):
            value = os.path.join(cwd, value)
        out[key] = value
    return out


# Codex wraps tool output in a header: exec_command "Chunk ID: ..\nWall time: ..\nProcess
# exited with code 0\nOriginal token count: ..\nOutput:\n<text>", MCP tools "Wall time: ..
# \nOutput:\n<text>" (just "...Output:" before an image). {last_tool_output} is the <text>.
_CODEX_EXEC_HEADER = re.compile(r"\A(?:[A-Z][A-Za-z ]+: [^\n]*\n|Process exited with code -?\d+\n)*Output:(?:\n|\Z)")


def clean_tool_output(text: str) -> str:
    return _CODEX_EXEC_HEADER.sub("", text, count=1).strip()


def fill(template: str, conv: Conversation) -> str:
    """Substitute {last_tool_output} and {cwd} (plain replace: other braces stay as they are)."""
    return (template.replace("{last_tool_output}", clean_tool_output(conv.last_output or ""))
            .replace("{cwd}", conv.cwd or ""))


def fill_input(value: Any, conv: Conversation) -> Any:
    if isinstance(value, str):
        return fill(value, conv)
    if isinstance(value, list):
        return [fill_input(v, conv) for v in value]
    if isinstance(value, dict):
        return {k: fill_input(v, conv) for k, v in value.items()}
    return value
