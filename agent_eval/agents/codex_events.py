"""Codex `exec --json` events -> the normalised Transcript.

Events: thread.started, turn.started, item.started / item.updated / item.completed (item types
agent_message, reasoning, command_execution, mcp_tool_call, web_search, file_change, todo_list,
error), turn.completed (usage: running totals), turn.failed, error. Only completed items are
steps. Codex does not report turns; num_turns is the number of model responses we can see
(one per tool round plus the final message). Unknown event types are counted, never fatal.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from ..records import Usage
from ..transcript import Step, Transcript
from .images import SeenImages

KNOWN_TYPES = {"thread.started", "turn.started", "turn.completed", "turn.failed", "error",
               "item.started", "item.updated", "item.completed"}
_STATUS_IN_TEXT = re.compile(r"\b(401|403|429|500|502|503|529)\b")


def _mcp_result(item: dict, seen: SeenImages) -> tuple[str, list[str], bool]:
    error = item.get("error")
    if error:
        return (error.get("message") if isinstance(error, dict) else str(error)), [], True
    result = item.get("result") or {}
    texts, images = [], []
    for block in result.get("content") or []:
        if block.get("type") == "text":
            texts.append(block.get("text", ""))
        elif block.get("type") == "image":
            path = seen.save(block.get("data", ""), block.get("mimeType") or block.get("mime_type") or "image/png")
            if path:
                images.append(path)
    if result.get("structured_content") and not texts:
        texts.append(json.dumps(result["structured_content"]))
    return "\n".join(texts), images, bool(result.get("is_error") or result.get("isError"))


def _add_item(transcript: Transcript, item: dict, seen: SeenImages) -> None:
    kind, call_id = item.get("type"), item.get("id")
    if kind == "agent_message":
        transcript.steps.append(Step(kind="text", text=item.get("text", "")))
        transcript.final_text = item.get("text", "")
    elif kind == "reasoning":
        if item.get("text", "").strip():
            transcript.steps.append(Step(kind="reasoning", text=item["text"]))
    elif kind == "command_execution":
        transcript.steps.append(Step(kind="tool_call", tool="shell", call_id=call_id, input={"command": item.get("command")}))
        transcript.steps.append(Step(kind="tool_result", call_id=call_id, text=item.get("aggregated_output") or "",
                                     is_error=item.get("exit_code") not in (0, None)))
    elif kind == "mcp_tool_call":
        name = f"mcp__{item.get('server')}__{item.get('tool')}"
        transcript.steps.append(Step(kind="tool_call", tool=name, call_id=call_id, input=item.get("arguments") or {}))
        text, images, is_error = _mcp_result(item, seen)
        transcript.steps.append(Step(kind="tool_result", call_id=call_id, text=text, images=images, is_error=is_error))
    elif kind == "error":
        transcript.steps.append(Step(kind="text", text=f"[codex error] {item.get('message', '')}", is_error=True))
    else:
        # web_search, file_change, todo_list, ... : kept as a generic tool step.
        transcript.steps.append(Step(kind="tool_call", tool=str(kind), call_id=call_id,
                                     input={k: v for k, v in item.items() if k not in ("id", "type")}))


def parse_codex_events(events: list[dict], item_dir: Path) -> Transcript:
    transcript = Transcript(agent="codex")
    seen = SeenImages(item_dir)
    usage = None
    errors = []
    for event in events:
        kind = event.get("type")
        if kind not in KNOWN_TYPES:
            transcript.unknown_events[str(kind)] = transcript.unknown_events.get(str(kind), 0) + 1
        elif kind == "item.completed":
            _add_item(transcript, event.get("item") or {}, seen)
        elif kind == "turn.completed":
            usage = event.get("usage") or usage
        elif kind == "turn.failed":
            errors.append(((event.get("error") or {}).get("message")) or "turn failed")
        elif kind == "error":
            errors.append(event.get("message") or "error")
    if usage:
        transcript.usage = Usage(input_tokens=usage.get("input_tokens"),
                                 cached_input_tokens=usage.get("cached_input_tokens"),
                                 output_tokens=usage.get("output_tokens"),
                                 reasoning_tokens=usage.get("reasoning_output_tokens"))
    rounds = sum(step.kind == "tool_call" for step in transcript.steps)
    transcript.num_turns = rounds + 1 if (transcript.final_text is not None or rounds) else 0
    failed = any(e.get("type") == "turn.failed" for e in events)
    completed = usage is not None
    if errors and (failed or not completed):
        # `error` events before a completed turn are transient (Codex reconnecting); only a failed
        # or unfinished turn makes them the outcome.
        transcript.error = errors[-1]
        transcript.final_text = None if failed else transcript.final_text
        match = _STATUS_IN_TEXT.search(transcript.error)
        transcript.error_status = int(match.group(1)) if match else None
    transcript.api_retries = [int(m.group(1)) for m in map(_STATUS_IN_TEXT.search, errors) if m]
    return transcript
