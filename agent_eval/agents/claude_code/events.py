"""Claude Code `--output-format stream-json` events -> the normalised Transcript.

Events: system/init, system/api_retry, system/compact_boundary (the CLI compacted its context: recorded in
`Transcript.compactions`; other system subtypes are counted), assistant (text,
thinking, tool_use blocks), user (tool_result blocks, text or image content), result (final text,
is_error, api_error_status, num_turns, total_cost_usd, usage, modelUsage). A failed API call can
arrive as subtype "success" with is_error true, so both are checked, and a final text that is the
CLI's own placeholder ("API Error: ...") is an error, never an answer. Usage is summed over
`modelUsage` (every model the CLI called, side calls included), since `usage` can leave part out.
Since 2.1.x thinking blocks carry an empty text and only a signature: they stay as steps saying so.
Unknown event types are counted, never fatal.

Several sessions in one stream (agents/sessions.py): `parse_claude_sessions`. On `--resume`, Claude
restores the session's last `cost-state` from its record (written at a clean exit), so a resumed session's
result `modelUsage` and `total_cost_usd` run on (its `usage` and `num_turns` count this process alone):
the restored totals are taken off, read from the record (session_file.restored_totals), else the previous
result of that session id in the stream. A session cut before its result counts what its assistant
messages reported (each API message once: input tokens whole, output tokens as message_start gave them,
usually 1; no cost) and one turn per API message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_eval.agents.claude_code.session_file import PROJECTS, find_session_file, restored_totals
from agent_eval.agents.logfiles import log_entries
from agent_eval.agents.placeholders import is_placeholder, placeholder_status
from agent_eval.agents.seen_images import SeenImages
from agent_eval.agents.sessions import SESSION_MARKER, join, split_sessions
from agent_eval.datamodel.records import Usage
from agent_eval.datamodel.transcript import Step, Transcript

KNOWN_TYPES = {"system", "assistant", "user", "result", "stream_event", "rate_limit_event"}
KNOWN_SYSTEM_SUBTYPES = {"init", "api_retry", "compact_boundary"}
# A session that ended because the context was full (docs/cli-notes.md, "Context compaction"): the result's
# terminal_reason when compaction is off (blocking_limit: refused before sending; prompt_too_long: the API
# refused), or its api_error when compacting could not make room (autocompact_thrashing).
OUT_OF_CONTEXT = {"blocking_limit", "prompt_too_long", "autocompact_thrashing"}
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
        elif kind == "system" and event.get("subtype") == "compact_boundary":
            metadata = event.get("compact_metadata") or {}
            transcript.compactions.append(
                {
                    "at": len(transcript.steps),
                    "trigger": metadata.get("trigger"),
                    "pre_tokens": metadata.get("pre_tokens"),
                    "session": 1,
                }
            )
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
        status = transcript.error_status if transcript.error_status is not None else "without an HTTP status"
        transcript.error = f"API error {status} (retried {len(transcript.api_retries)} times)"
    return transcript


def _usage(event: dict) -> tuple[Usage, dict[str, dict]]:
    """Totals over modelUsage (falling back to usage), and the per-model breakdown. Input tokens
    count every prompt token (fresh, cache writes and cache reads); cached ones are also given apart."""
    per_model: dict[str, dict[str, Any]] = {}
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


def session_id_of(events: list[dict]) -> str | None:
    """The session id the CLI reported last (system/init, then any event that carries one)."""
    ids = [e.get("session_id") for e in events if e.get("type") == "system" and e.get("subtype") == "init"]
    ids = ids or [e.get("session_id") for e in events if e.get("type") != SESSION_MARKER]  # the CLI's word only
    return next((i for i in reversed(ids) if i), None)


def parse_claude_sessions(events: list[dict], item_dir: Path) -> Transcript:
    """A stream of one or more sessions (agents/sessions.py) as one Transcript."""
    parts = split_sessions(events)
    if parts is None:
        return parse_claude_events(events, item_dir)
    ids = [session_id_of(part.events) or (part.marker or {}).get("session_id") for part in parts]
    results = [next((e for e in reversed(part.events) if e.get("type") == "result"), None) for part in parts]
    restored: dict[int, dict | None] = {}  # part -> the totals its process was resumed with, from the record
    for session_id in {i for i in ids if i}:
        mine = [(n, r) for n, (i, r) in enumerate(zip(ids, results)) if i == session_id and r is not None]
        path = find_session_file(item_dir, session_id)
        restored.update(zip([n for n, _ in mine], restored_totals(path, [r for _, r in mine])))
    joined = []
    previous: dict[str, dict] = {}  # session id -> its last result: the totals a resume starts from after a clean end
    for position, (part, session_id, result) in enumerate(zip(parts, ids, results)):
        own = part.events
        base = restored.get(position) or (previous.get(session_id) if session_id else None)
        if result is not None and base is not None:
            own = [_less(e, base) if e is result else e for e in part.events]
        transcript = parse_claude_events(own, item_dir)
        if result is None:
            transcript.usage, transcript.usage_by_model, transcript.num_turns = _streamed_usage(part.events)
        elif session_id:
            previous[session_id] = result
        joined.append((part.entry(position, session_id), transcript))
    return join("claude-code", joined)


_TOTALS = (
    "inputTokens",
    "outputTokens",
    "cacheReadInputTokens",
    "cacheCreationInputTokens",
    "thinkingTokens",
    "costUSD",
)


def _less(result: dict, before: dict) -> dict:
    """A resumed session's result without the totals it was restored with (`before`, result-shaped)."""
    models = {}
    earlier = before.get("modelUsage") or {}
    for model, counts in (result.get("modelUsage") or {}).items():
        if not isinstance(counts, dict):
            continue
        base = earlier.get(model)
        if not isinstance(base, dict):
            base = {}
        left = dict(counts)
        for key in _TOTALS:
            if isinstance(counts.get(key), (int, float)):
                left[key] = max(0, counts[key] - (base.get(key) or 0))
        if any(left.get(key) for key in _TOTALS):
            models[model] = left
    cost = result.get("total_cost_usd")
    if isinstance(cost, (int, float)):
        cost = max(0.0, cost - (before.get("total_cost_usd") or 0))
    return {**result, "modelUsage": models, "total_cost_usd": cost}


def _streamed_usage(events: list[dict]) -> tuple[Usage, dict[str, dict], int | None]:
    """What a session cut before its result reported: each API message's usage once (its content blocks
    come as separate events with the same message id), by model, and the number of API messages."""
    messages: dict[str, dict] = {}
    for event in events:
        message = (event.get("message") or {}) if event.get("type") == "assistant" else {}
        if message.get("id") and message.get("model") != "<synthetic>" and isinstance(message.get("usage"), dict):
            messages.setdefault(message["id"], message)
    per_model: dict[str, dict] = {}
    for message in messages.values():
        u = message["usage"]
        cache_read, cache_write = u.get("cache_read_input_tokens") or 0, u.get("cache_creation_input_tokens") or 0
        counts = per_model.setdefault(
            message.get("model") or "unknown",
            {
                "input_tokens": 0,
                "cached_input_tokens": 0,
                "cache_creation_input_tokens": 0,
                "output_tokens": 0,
                "reasoning_tokens": None,
                "cost_usd": None,
            },
        )
        counts["input_tokens"] += (u.get("input_tokens") or 0) + cache_write + cache_read
        counts["cached_input_tokens"] += cache_read
        counts["cache_creation_input_tokens"] += cache_write
        counts["output_tokens"] += u.get("output_tokens") or 0
    if not per_model:
        return Usage(), {}, None
    usage = Usage(
        input_tokens=sum(m["input_tokens"] for m in per_model.values()),
        cached_input_tokens=sum(m["cached_input_tokens"] for m in per_model.values()),
        output_tokens=sum(m["output_tokens"] for m in per_model.values()),
    )
    return usage, per_model, len(messages)


def inline_images_from_session(item_dir: Path, seen: SeenImages, session_id: str | None = None) -> list[str]:
    """The first message's attachments as Claude Code sent them (after its own resizing), from its
    session file in the private CLAUDE_CONFIG_DIR (that of `session_id` when given: an item of several
    sessions has a file each): the stream does not echo them."""
    pattern = f"*/{session_id}.jsonl" if session_id else "*/*.jsonl"
    for session in sorted((item_dir / "home" / ".claude" / PROJECTS).glob(pattern)):
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


def ran_out_of_context(events: list[dict]) -> bool:
    """Whether the (last) session's result says the model's context was full ("Prompt is too long", or
    compaction thrashing), not the agent's failure."""
    result = next((e for e in reversed(events) if e.get("type") in ("result", SESSION_MARKER)), None)
    if result is None or result.get("type") != "result" or not result.get("is_error"):
        return False
    return bool({result.get("terminal_reason"), result.get("api_error")} & OUT_OF_CONTEXT) or (
        result.get("result") or ""
    ).startswith("Prompt is too long")
