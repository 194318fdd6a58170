"""Claude Code `--output-format stream-json` events -> the normalised Transcript.

Events: system/init, system/api_retry, assistant (text, thinking, tool_use blocks), user
(tool_result blocks, text or image content), result (final text, is_error, api_error_status,
num_turns, total_cost_usd, usage). A failed API call can arrive as subtype "success" with
is_error true, so both are checked. Unknown event types are counted, never fatal.
"""
from __future__ import annotations

from pathlib import Path

from ..records import Usage
from ..transcript import Step, Transcript
from .images import SeenImages

KNOWN_TYPES = {"system", "assistant", "user", "result", "stream_event", "rate_limit_event"}


def _tool_result_content(content, seen: SeenImages) -> tuple[str, list[str]]:
    if isinstance(content, str):
        return content, []
    texts, images = [], []
    for block in content or []:
        if block.get("type") == "text":
            texts.append(block.get("text", ""))
        elif block.get("type") == "image":
            source = block.get("source") or {}
            path = seen.save(source.get("data", ""), source.get("media_type", "image/png"))
            if path:
                images.append(path)
    return "\n".join(texts), images


def parse_claude_events(events: list[dict], item_dir: Path, times: list[float] | None = None) -> Transcript:
    transcript = Transcript(agent="claude-code")
    seen = SeenImages(item_dir)
    result_event = None
    for event in events:
        kind = event.get("type")
        if kind not in KNOWN_TYPES:
            transcript.unknown_events[str(kind)] = transcript.unknown_events.get(str(kind), 0) + 1
            continue
        if kind == "system" and event.get("subtype") == "api_retry":
            transcript.api_retries.append(event.get("error_status"))
        elif kind == "assistant":
            for block in (event.get("message") or {}).get("content") or []:
                btype = block.get("type")
                if btype == "text" and block.get("text", "").strip():
                    transcript.steps.append(Step(kind="text", text=block["text"]))
                elif btype == "thinking" and block.get("thinking", "").strip():
                    transcript.steps.append(Step(kind="reasoning", text=block["thinking"]))
                elif btype == "tool_use":
                    transcript.steps.append(Step(kind="tool_call", tool=block.get("name"), call_id=block.get("id"),
                                                 input=block.get("input") or {}))
        elif kind == "user":
            content = (event.get("message") or {}).get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_result":
                    text, images = _tool_result_content(block.get("content"), seen)
                    transcript.steps.append(Step(kind="tool_result", call_id=block.get("tool_use_id"), text=text,
                                                 images=images, is_error=bool(block.get("is_error"))))
        elif kind == "result":
            result_event = event
    if result_event is not None:
        _apply_result(transcript, result_event)
    elif transcript.api_retries:
        transcript.error_status = transcript.api_retries[-1]
        transcript.error = f"API error {transcript.error_status} (retried {len(transcript.api_retries)} times)"
    return transcript


def _apply_result(transcript: Transcript, event: dict) -> None:
    usage = event.get("usage") or {}
    cache_read = usage.get("cache_read_input_tokens") or 0
    fresh = (usage.get("input_tokens") or 0) + (usage.get("cache_creation_input_tokens") or 0)
    transcript.usage = Usage(input_tokens=fresh + cache_read if usage else None,
                             cached_input_tokens=cache_read if usage else None,
                             output_tokens=usage.get("output_tokens"), reasoning_tokens=None)
    transcript.num_turns = event.get("num_turns")
    transcript.cost_usd = event.get("total_cost_usd")
    text = event.get("result")
    if event.get("is_error") or event.get("subtype") != "success":
        transcript.error = text or event.get("subtype") or "error"
        transcript.error_status = event.get("api_error_status")
        if transcript.error_status is None and transcript.api_retries:
            transcript.error_status = transcript.api_retries[-1]
    else:
        transcript.final_text = text
