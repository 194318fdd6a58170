"""Claude Code `--output-format stream-json` events -> the normalised Transcript.

Events: system/init, system/api_retry (other system subtypes are counted), assistant (text,
thinking, tool_use blocks), user (tool_result blocks, text or image content), result (final text,
is_error, api_error_status, num_turns, total_cost_usd, usage, modelUsage). A failed API call can
arrive as subtype "success" with is_error true, so both are checked, and a final text that is the
CLI's own placeholder ("API Error: ...") is an error, never an answer. Usage is summed over
`modelUsage` (every model the CLI called, side calls included), since `usage` can leave part out.
Since 2.1.x thinking blocks carry an empty text and only a signature: they stay as steps saying so.
Unknown event types are counted, never fatal.
"""

from __future__ import annotations

from pathlib import Path

from agent_eval.agents.logfiles import log_entries
from agent_eval.agents.placeholders import is_placeholder, placeholder_status
from agent_eval.agents.seen_images import SeenImages
from agent_eval.datamodel.records import Usage
from agent_eval.datamodel.transcript import Step, Transcript

KNOWN_TYPES = {"system", "assistant", "user", "result", "stream_event", "rate_limit_event"}
KNOWN_SYSTEM_SUBTYPES = {"init", "api_retry"}
HIDDEN_THINKING = "(thinking: the CLI logged only a signature, no text)"


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


def _count(transcript: Transcript, name: str) -> None:
    transcript.unknown_events[name] = transcript.unknown_events.get(name, 0) + 1


def parse_claude_events(events: list[dict], item_dir: Path, times: list[float] | None = None) -> Transcript:
    transcript = Transcript(agent="claude-code")
    seen = SeenImages(item_dir)
    result_event = None
    for event in events:
        kind = event.get("type")
        if kind not in KNOWN_TYPES:
            _count(transcript, str(kind))
            continue
        if kind == "system" and event.get("subtype") == "api_retry":
            transcript.api_retries.append(event.get("error_status"))
        elif kind == "system" and event.get("subtype") not in KNOWN_SYSTEM_SUBTYPES:
            _count(transcript, f"system/{event.get('subtype')}")
        elif kind == "assistant":
            message = event.get("message") or {}
            # The CLI writes its own failure notices as "<synthetic>" assistant messages.
            synthetic = message.get("model") == "<synthetic>"
            for block in message.get("content") or []:
                btype = block.get("type")
                if btype == "text" and block.get("text", "").strip():
                    own = synthetic or is_placeholder(block["text"])
                    transcript.steps.append(
                        Step(
                            kind="text",
                            is_error=own,
                            text=(
                                f"[claude-code's own message, not the model's] {block['text']}"
                                if own
                                else block["text"]
                            ),
                        )
                    )
                elif btype in ("thinking", "redacted_thinking"):
                    text = (block.get("thinking") or "").strip()
                    transcript.steps.append(Step(kind="reasoning", text=text or HIDDEN_THINKING))
                elif btype == "tool_use":
                    transcript.steps.append(
                        Step(
                            kind="tool_call",
                            tool=block.get("name"),
                            call_id=block.get("id"),
                            input=block.get("input") or {},
                        )
                    )
        elif kind == "user":
            content = (event.get("message") or {}).get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_result":
                    text, images = _tool_result_content(block.get("content"), seen)
                    transcript.steps.append(
                        Step(
                            kind="tool_result",
                            call_id=block.get("tool_use_id"),
                            text=text,
                            images=images,
                            is_error=bool(block.get("is_error")),
                        )
                    )
        elif kind == "result":
            result_event = event
    if result_event is not None:
        _apply_result(transcript, result_event)
    elif transcript.api_retries:
        transcript.error_status = transcript.api_retries[-1]
        transcript.error = f"API error {transcript.error_status} (retried {len(transcript.api_retries)} times)"
    return transcript


def _usage(event: dict) -> tuple[Usage, dict[str, dict]]:
    """Totals over modelUsage (falling back to usage), and the per-model breakdown. Input tokens
    count every prompt token (fresh, cache writes and cache reads); cached ones are also given apart."""
    per_model = {}
    for model, u in (event.get("modelUsage") or {}).items():
        if not isinstance(u, dict):
            continue
        per_model[model] = {
            "input_tokens": (u.get("inputTokens") or 0)
            + (u.get("cacheCreationInputTokens") or 0)
            + (u.get("cacheReadInputTokens") or 0),
            "cached_input_tokens": u.get("cacheReadInputTokens") or 0,
            "cache_creation_input_tokens": u.get("cacheCreationInputTokens") or 0,
            "output_tokens": u.get("outputTokens") or 0,
            "reasoning_tokens": u.get("thinkingTokens"),
            "cost_usd": u.get("costUSD"),
        }
    usage = event.get("usage") or {}
    thinking = (usage.get("output_tokens_details") or {}).get("thinking_tokens")
    if any(m["input_tokens"] or m["output_tokens"] for m in per_model.values()):
        reasoning = [m["reasoning_tokens"] for m in per_model.values() if m["reasoning_tokens"] is not None]
        return Usage(
            input_tokens=sum(m["input_tokens"] for m in per_model.values()),
            cached_input_tokens=sum(m["cached_input_tokens"] for m in per_model.values()),
            output_tokens=sum(m["output_tokens"] for m in per_model.values()),
            reasoning_tokens=sum(reasoning) if reasoning else thinking,
        ), per_model
    if not usage:
        return Usage(), per_model
    cache_read = usage.get("cache_read_input_tokens") or 0
    fresh = (usage.get("input_tokens") or 0) + (usage.get("cache_creation_input_tokens") or 0)
    return Usage(
        input_tokens=fresh + cache_read,
        cached_input_tokens=cache_read,
        output_tokens=usage.get("output_tokens"),
        reasoning_tokens=thinking,
    ), per_model


def _apply_result(transcript: Transcript, event: dict) -> None:
    transcript.usage, transcript.usage_by_model = _usage(event)
    transcript.num_turns = event.get("num_turns")
    transcript.cost_usd = event.get("total_cost_usd")
    if transcript.cost_usd is None:
        costs = [m["cost_usd"] for m in transcript.usage_by_model.values() if m["cost_usd"] is not None]
        transcript.cost_usd = sum(costs) if costs else None
    text = event.get("result")
    if event.get("is_error") or event.get("subtype") != "success" or is_placeholder(text):
        transcript.error = text or event.get("subtype") or "error"
        transcript.error_status = event.get("api_error_status") or placeholder_status(text or "")
        if transcript.error_status is None and transcript.api_retries:
            transcript.error_status = transcript.api_retries[-1]
    else:
        transcript.final_text = text


def inline_images_from_session(item_dir: Path, seen: SeenImages) -> list[str]:
    """The first message's attachments as Claude Code sent them (after its own resizing), from its
    session file in the private CLAUDE_CONFIG_DIR: the stream does not echo them."""
    for session in sorted((item_dir / "home" / ".claude" / "projects").glob("*/*.jsonl")):
        for entry in log_entries(session):
            content = (entry.get("message") or {}).get("content") if entry.get("type") == "user" else None
            blocks = (
                [b for b in content if isinstance(b, dict) and b.get("type") == "image"]
                if isinstance(content, list)
                else []
            )
            if blocks:
                return [
                    p
                    for p in (
                        seen.save(
                            (b.get("source") or {}).get("data", ""),
                            (b.get("source") or {}).get("media_type", "image/png"),
                        )
                        for b in blocks
                    )
                    if p
                ]
    return []
