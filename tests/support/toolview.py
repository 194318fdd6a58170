"""What the model sees of the image tools, from a recorded request body: the tool definitions
offered and the results of the calls made. Volatile parts (call ids, Codex's wall time) are
blanked so that two runs of the same episode compare equal."""

from __future__ import annotations

import copy
import re

from agent_eval.tools.imagetools import SERVER_NAME

PREFIX = f"mcp__{SERVER_NAME}"


def offered_tools(body: dict) -> list[dict]:
    """The image tools' definitions as offered: Claude Code's `mcp__imagetools__*` tools, or
    Codex's `mcp__imagetools` namespace tool, whole (names, descriptions, schemas)."""
    return [copy.deepcopy(tool) for tool in body.get("tools", []) if str(tool.get("name", "")).startswith(PREFIX)]


def tool_results(body: dict) -> list:
    """Every tool result in the request, ids blanked: Anthropic `tool_result` blocks, Responses
    `function_call_output` items; wall times and saved-image paths blanked."""
    found = []
    for message in body.get("messages", []):  # Anthropic Messages
        for block in message.get("content", []) if isinstance(message.get("content"), list) else []:
            if block.get("type") == "tool_result":
                found.append(_blank_volatile({**block, "tool_use_id": "-"}))
    for item in body.get("input", []):  # OpenAI Responses
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            found.append(_blank_volatile({**item, "call_id": "-", "id": "-"}))
    return found


def _blank_volatile(value):
    """Codex's wall time; the path where Claude Code saved an image it received (session id, clock)."""
    if isinstance(value, str):
        value = re.sub(r"Wall time: [0-9.]+ seconds", "Wall time: - seconds", value)
        return re.sub(r"/\S*/tool-results/mcp-[\w.-]+\.png", "<saved image>", value)
    if isinstance(value, list):
        return [_blank_volatile(v) for v in value]
    if isinstance(value, dict):
        return {k: _blank_volatile(v) for k, v in value.items()}
    return value
