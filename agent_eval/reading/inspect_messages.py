"""One item's normalised transcript as Inspect chat messages (`inspect_ai.model`), for the Inspect export.

The prompt becomes the user message (with the images the mode attached inline); each assistant
turn (reasoning, text, tool calls) one assistant message; each tool result one tool message
with the images it returned. Images travel as data: URIs of the exact bytes that reached the
model (`seen/NNN.png`), so nothing is re-encoded. Imported only when inspect-ai is installed.
"""

from __future__ import annotations

import base64
from pathlib import Path

from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentReasoning,
    ContentText,
)
from inspect_ai.tool import ToolCall, ToolCallError

from agent_eval.analysis.item_images import resolve_image
from agent_eval.datamodel.transcript import Transcript

MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}


def image_content(base: Path, rel: str) -> ContentImage | ContentText:
    """The image as a data: URI, or a text note when the file is gone (the export still completes)."""
    path = resolve_image(base, rel)
    try:
        data = path.read_bytes()
    except OSError:
        return ContentText(text=f"[image {rel} is missing from the run directory]")
    mime = MIME.get(path.suffix.lower(), "application/octet-stream")
    return ContentImage(image=f"data:{mime};base64,{base64.b64encode(data).decode()}")


def prompt_message(prompt: str, images: list[str], base: Path) -> ChatMessageUser:
    if not images:
        return ChatMessageUser(content=prompt, source="input")
    return ChatMessageUser(
        content=[ContentText(text=prompt), *(image_content(base, rel) for rel in images)], source="input"
    )


def transcript_messages(transcript: Transcript, base: Path, model: str) -> tuple[list, list[float | None]]:
    """The conversation after the prompt: assistant turns and tool results, in order, and when each
    began (seconds since the agent started, when the CLI said)."""
    messages: list = []
    times: list[float | None] = []
    turn: dict | None = None  # the assistant message being built: content parts and calls
    call_names: dict[str, str] = {}  # call id -> tool name, for the tool messages

    def close_turn():
        nonlocal turn
        if turn and (turn["content"] or turn["calls"]):
            messages.append(
                ChatMessageAssistant(
                    content=turn["content"], tool_calls=turn["calls"] or None, model=model, source="generate"
                )
            )
            times.append(turn["t"])
        turn = None

    for number, step in enumerate(transcript.steps):
        if step.kind == "tool_result":
            close_turn()
            content: list[Content] = [ContentText(text=step.text)] if step.text else []
            content += [image_content(base, rel) for rel in step.images]
            error = ToolCallError("unknown", step.text or "tool error") if step.is_error else None
            messages.append(
                ChatMessageTool(
                    content=content or "",
                    tool_call_id=step.call_id,
                    function=call_names.get(step.call_id or ""),
                    error=error,
                )
            )
            times.append(step.t)
            continue
        turn = turn or {"content": [], "calls": [], "t": step.t}
        if step.kind == "reasoning":
            if step.text:  # Claude Code's thinking arrives as an empty, signed block: nothing to show
                turn["content"].append(ContentReasoning(reasoning=step.text))
        elif step.kind == "tool_call":
            call_id = step.call_id or f"call_{number}"
            call_names[call_id] = step.tool or "?"
            turn["calls"].append(ToolCall(id=call_id, function=step.tool or "?", arguments=step.input or {}))
        else:
            turn["content"].append(ContentText(text=step.text))
            turn["content"] += [image_content(base, rel) for rel in step.images]
    close_turn()
    return messages, times
