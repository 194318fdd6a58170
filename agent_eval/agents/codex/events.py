"""Codex `exec --json` events -> the normalised Transcript.

Events: thread.started, turn.started, item.started / item.updated / item.completed (item types
agent_message, reasoning, command_execution, mcp_tool_call, web_search, file_change, todo_list,
error), turn.completed (usage: running totals), turn.failed, error. Only completed items are
steps. An API failure arrives as text: often the API's JSON error body, with no status code
(a 400 is `{"error": {"type": "invalid_request_error", ...}}`, capacity trouble "We're currently
experiencing high demand..."): agents/failures.py classifies that text. `--json` leaves out view_image calls and the
number of model responses: `merge_rollout`
takes both from Codex's session log (the rollout file in the private CODEX_HOME); without it,
num_turns falls back to tool rounds + 1. Unknown event types are counted, never fatal.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from agent_eval.agents.logfiles import log_entries
from agent_eval.agents.placeholders import is_placeholder
from agent_eval.agents.seen_images import SeenImages
from agent_eval.datamodel.records import Usage
from agent_eval.datamodel.transcript import Step, Transcript

KNOWN_TYPES = {
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "error",
    "item.started",
    "item.updated",
    "item.completed",
}
_STATUS_IN_TEXT = re.compile(r"\b(400|401|403|404|422|429|500|502|503|529)\b")


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
    if kind == "agent_message" and is_placeholder(item.get("text")):
        transcript.steps.append(
            Step(kind="text", text=f"[codex placeholder, not the model's] {item['text']}", is_error=True)
        )
        transcript.error = item["text"]
    elif kind == "agent_message":
        transcript.steps.append(Step(kind="text", text=item.get("text", "")))
        transcript.final_text = item.get("text", "")
    elif kind == "reasoning":
        if item.get("text", "").strip():
            transcript.steps.append(Step(kind="reasoning", text=item["text"]))
    elif kind == "command_execution":
        transcript.steps.append(
            Step(kind="tool_call", tool="shell", call_id=call_id, input={"command": item.get("command")})
        )
        transcript.steps.append(
            Step(
                kind="tool_result",
                call_id=call_id,
                text=item.get("aggregated_output") or "",
                is_error=item.get("exit_code") not in (0, None),
            )
        )
    elif kind == "mcp_tool_call":
        name = f"mcp__{item.get('server')}__{item.get('tool')}"
        transcript.steps.append(Step(kind="tool_call", tool=name, call_id=call_id, input=item.get("arguments") or {}))
        text, images, is_error = _mcp_result(item, seen)
        transcript.steps.append(Step(kind="tool_result", call_id=call_id, text=text, images=images, is_error=is_error))
    elif kind == "error":
        transcript.steps.append(Step(kind="text", text=f"[codex error] {item.get('message', '')}", is_error=True))
    else:
        # web_search, file_change, todo_list, ... : kept as a generic tool step.
        transcript.steps.append(
            Step(
                kind="tool_call",
                tool=str(kind),
                call_id=call_id,
                input={k: v for k, v in item.items() if k not in ("id", "type")},
            )
        )


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
        transcript.usage = Usage(
            input_tokens=usage.get("input_tokens"),
            cached_input_tokens=usage.get("cached_input_tokens"),
            output_tokens=usage.get("output_tokens"),
            reasoning_tokens=usage.get("reasoning_output_tokens"),
        )
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


def inline_images_from_rollout(path: Path, seen: SeenImages) -> list[str]:
    """The first message's attachments as Codex sent them, from its rollout: `--json` does not echo them."""
    for entry in log_entries(path):
        payload = entry.get("payload") or {}
        if entry.get("type") == "response_item" and payload.get("type") == "message" and payload.get("role") == "user":
            urls = [
                part.get("image_url", "")
                for part in payload.get("content") or []
                if isinstance(part, dict) and part.get("type") == "input_image"
            ]
            if urls:
                return [p for p in map(seen.save_data_url, urls) if p]
    return []


def rollout_path(item_dir: Path) -> Path | None:
    """Codex's own session log in the private CODEX_HOME (one per item: one exec, one session)."""
    found = sorted((item_dir / "home" / ".codex" / "sessions").glob("**/rollout-*.jsonl"))
    return found[-1] if found else None


def merge_rollout(transcript: Transcript, path: Path, item_dir: Path) -> None:
    """What `--json` leaves out, taken from the rollout: `view_image` calls with the image the model
    got (inserted in call order among the other tool calls), and the number of model responses."""
    seen = SeenImages(item_dir)
    calls, outputs, responses = [], {}, 0
    for entry in log_entries(path):
        payload = entry.get("payload") or {}
        if entry.get("type") == "token_usage_record":
            responses += 1
        elif entry.get("type") == "response_item" and payload.get("type") == "function_call":
            calls.append(payload)
        elif entry.get("type") == "response_item" and payload.get("type") == "function_call_output":
            outputs[payload.get("call_id")] = payload.get("output")
    if responses:
        transcript.num_turns = responses
    position = 0  # index in transcript.steps after the last matched non-view call
    for call in calls:
        if call.get("name") != "view_image":
            position = _after_next_call(transcript.steps, position)
            continue
        output = outputs.get(call.get("call_id"))
        images = [
            p
            for p in (
                seen.save_data_url(part.get("image_url", ""))
                for part in output or []
                if isinstance(part, dict) and part.get("type") == "input_image"
            )
            if p
        ]
        try:
            arguments = json.loads(call.get("arguments") or "{}")
        except json.JSONDecodeError:
            arguments = {"raw": call.get("arguments")}
        steps = [
            Step(kind="tool_call", tool="view_image", call_id=call.get("call_id"), input=arguments),
            Step(
                kind="tool_result",
                call_id=call.get("call_id"),
                images=images,
                text="" if images else str(output)[:2000],
                is_error=not images,
            ),
        ]
        transcript.steps[position:position] = steps
        position += len(steps)


def _after_next_call(steps: list[Step], start: int) -> int:
    for index in range(start, len(steps)):
        if steps[index].kind == "tool_call":
            end = index + 1
            while end < len(steps) and steps[end].kind == "tool_result":
                end += 1
            return end
    return len(steps)
