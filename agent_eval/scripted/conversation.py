"""An API-neutral view of one model request, and resolution of scripted tool names.

Each wire module (anthropic_wire, responses_wire) turns a request body into a
``Conversation``; the server only looks at that view to pick and render a turn.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from agent_eval.scripted.scenario import Call

# Agent-neutral names -> the built-in tool each API's CLI offers, with argument renames.
# Values: list of (wire tool name, {neutral key: wire key}) tried in order.
NEUTRAL_TOOLS: dict[str, dict[str, list[tuple[str, dict[str, str]]]]] = {
    "anthropic": {
        "shell": [("Bash", {"command": "command", "cmd": "command"})],
        "view_file": [("Read", {"path": "file_path", "file_path": "file_path"})],
    },
    "responses": {
        "shell": [
            ("exec_command", {"command": "cmd", "cmd": "cmd"}),
            ("shell_command", {"command": "command", "cmd": "command"}),
        ],
        "view_file": [("view_image", {"path": "path", "file_path": "path"})],
    },
}
PATH_KEYS = {"file_path", "path"}  # made absolute against the conversation's cwd


@dataclass(frozen=True)
class OfferedTool:
    name: str
    namespace: str | None = None  # Codex: function inside a `namespace` tool (MCP servers)
    kind: str = "function"  # function | custom | builtin (web_search, ...) | deferred

    @property
    def qualified(self) -> str:
        return (
            f"{self.namespace}{'' if self.namespace.endswith('__') else '__'}{self.name}"
            if self.namespace
            else self.name
        )


@dataclass
class Conversation:
    api: str  # "anthropic" | "responses"
    prompt: str = ""  # text of the user messages (not tool results)
    n_results: int = 0  # tool results already in the conversation
    last_output: str | None = None  # text of the most recent tool result
    results_text: str = ""  # text of every tool result, in order (what a rule's `seen` searches)
    tools: list[OfferedTool] = field(default_factory=list)
    has_image: bool = False  # any image anywhere (prompt or tool results)
    cwd: str | None = None  # working directory the CLI told the model
    system: str = ""  # system / developer text (for side-request checks)
    nested_tools: list[str] = field(default_factory=list)  # Codex code mode: tools reachable from `exec`
    compaction: bool = False  # the CLI asks for a summary of the conversation (its own context compaction)


# The CLIs' own compaction: the request that asks the model for a summary (its last user text), and the
# marker the scripted summary carries so that the script goes on where it was once the earlier turns are gone.
COMPACTION_PROMPTS = (
    "Your task is to create a detailed summary of the conversation so far",  # Claude Code 2.1.332
    "You are performing a CONTEXT CHECKPOINT COMPACTION",  # Codex 0.171.0
)
SUMMARY_MARKER = re.compile(r"SCRIPTED-SUMMARY: (\d+) tool results so far\.")


def is_compaction_prompt(text: str) -> bool:
    return any(prompt in text for prompt in COMPACTION_PROMPTS)


def summary_text(conv: "Conversation") -> str:
    """The scripted answer to a compaction request: the user's messages (what a summary must keep, and what
    the scenario's rules match) and how many tool results the conversation had, which the next requests
    count on from (`ResultCounter`)."""
    said = SUMMARY_MARKER.sub("", conv.prompt).strip()
    return (
        "<analysis>scripted summary</analysis>\n<summary>\nThe user's messages so far:\n"
        f"{said}\n\nSCRIPTED-SUMMARY: {conv.n_results} tool results so far.\n</summary>"
    )


@dataclass
class ResultCounter:
    """Tool results in a conversation, in order: the last scripted summary's count, plus the results after
    it (a compacted conversation keeps only its most recent turns, or none)."""

    before: int = 0
    since: int = 0

    def result(self) -> None:
        self.since += 1

    def text(self, text: str) -> None:
        found = SUMMARY_MARKER.findall(text)
        if found:
            self.before, self.since = int(found[-1]), 0

    @property
    def total(self) -> int:
        return self.before + self.since


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
    suffix = [
        t for t in callable_tools if t.qualified.endswith("__" + call.tool) or (t.namespace and t.name == call.tool)
    ]
    for candidates in (exact, qualified, suffix):
        if candidates:
            tool = candidates[0]
            return ResolvedCall(tool.name, tool.namespace, dict(call.input))
    code_mode = _code_mode_call(call, conv)
    if code_mode is not None:
        return code_mode
    raise NotOffered(f"tool {call.tool} not offered (offered: {offered_summary(conv.tools)})")


# Codex "code mode" models (tool_mode code_mode_only: gpt-5.6+, gpt-6.x) get one freeform
# tool `exec` (namespace `functions`) that runs JavaScript; the real tools are methods of a
# global `tools` object (MCP tools may be "deferred": absent from the description but listed
# in ALL_TOOLS). A scenario call is then played as a small script calling that method and
# forwarding its text/image result.
_FORWARD = """const want = {name};
const hit = ALL_TOOLS.find(t => t.name === want || t.name.endsWith('__' + want));
if (!hit) {{ text('SCRIPTED-ERROR: tool ' + want + ' not offered (ALL_TOOLS: ' + ALL_TOOLS.map(t => t.name).join(', ') + ')'); exit(); }}
const r = await tools[hit.name]({args});
if (r && Array.isArray(r.content)) {{ for (const c of r.content) {{ if (c.type === 'image') image(c); else if (c.type === 'text') text(c.text); }} }}
else if (r && r.image_url) image(r);
else text(typeof r === 'string' ? r : JSON.stringify(r));"""


def _code_mode_call(call: Call, conv: Conversation) -> ResolvedCall | None:
    exec_tool = next(
        (t for t in conv.tools if t.kind == "custom" and t.name == "exec" and t.namespace == "functions"), None
    )
    if exec_tool is None:
        return None
    if call.tool == "shell":
        if conv.nested_tools and "exec_command" not in conv.nested_tools:
            return None  # shell switched off
        args = _rename(call.input, {"command": "cmd"}, conv.cwd)
        script = f"const r = await tools.exec_command({json.dumps(args)});\ntext(r.output);"
    else:
        name = {"view_file": "view_image"}.get(call.tool, call.tool)
        args = _rename(call.input, {"file_path": "path"}, conv.cwd)
        script = _FORWARD.format(name=json.dumps(name), args=json.dumps(args))
    return ResolvedCall(exec_tool.name, exec_tool.namespace, {"input": script})


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
# \nOutput:\n<text>" (just "...Output:" before an image), code-mode exec "Script completed
# \nWall time 0.5 seconds\nOutput:\n<text>". {last_tool_output} is the <text>.
_CODEX_EXEC_HEADER = re.compile(
    r"\A(?:(?:Chunk ID|Wall time|Process exited|Process running|Original token count|Total output lines|Script)"
    r"[^\n]*\n)*Output:(?:\n|\Z)"
)


def clean_tool_output(text: str) -> str:
    return _CODEX_EXEC_HEADER.sub("", text, count=1).strip()


def fill(template: str, conv: Conversation) -> str:
    """Substitute {last_tool_output} and {cwd} (plain replace: other braces stay as they are)."""
    return template.replace("{last_tool_output}", clean_tool_output(conv.last_output or "")).replace(
        "{cwd}", conv.cwd or ""
    )


def fill_input(value: Any, conv: Conversation) -> Any:
    if isinstance(value, str):
        return fill(value, conv)
    if isinstance(value, list):
        return [fill_input(v, conv) for v in value]
    if isinstance(value, dict):
        return {k: fill_input(v, conv) for k, v in value.items()}
    return value
