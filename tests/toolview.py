"""What the model sees of the image tools, from a recorded request body: the tool definitions
offered and the results of the calls made. Volatile parts (call ids, Codex's wall time) are
blanked so that two runs of the same episode compare equal."""
from __future__ import annotations

import copy
import re

from agent_eval.imagetools import SERVER_NAME

PREFIX = f"mcp__{SERVER_NAME}"


def offered_tools(body: dict) -> list[dict]:
    """The image tools' definitions as offered: Claude Code's `mcp__imagetools__*` tools, or
    Codex's `mcp__imagetools` namespace tool, whole (names, descriptions, schemas)."""
    return [copy.deepcopy(tool) for tool in body.get("tools", [])
            if str(tool.get("name", "")).startswith(PREFIX)]


def tool_results(body: dict) -> list:
    """Every tool result in the request, ids blanked: Anthropic `tool_result` blocks, Responses
    `function_call_output` items (Codex reports MCP results with a wall time, blanked too)."""
    found = []
    for message in body.get("messages", []):                          # Anthropic Messages
        for block in message.get("content", []) if isinstance(message.get("content"), list) else []:
            if block.get("type") == "tool_result":
                found.append({**block, "tool_use_id": "-"})
    for item in body.get("input", []):                                 # OpenAI Responses
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            found.append(_blank_wall_time({**item, "call_id": "-", "id": "-"}))
    return found


def _blank_wall_time(value):
    if isinstance(value, str):
        return re.sub(r"Wall time: [0-9.]+ seconds", "Wall time: - seconds", value)
    if isinstance(value, list):
        return [_blank_wall_time(v) for v in value]
    if isinstance(value, dict):
        return {k: _blank_wall_time(v) for k, v in value.items()}
    return value
