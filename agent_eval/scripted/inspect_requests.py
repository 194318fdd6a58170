"""Helpers for tests: what did the CLI send? Work on RecordedRequest or a raw body."""

from __future__ import annotations

from typing import Any

from agent_eval.scripted import anthropic_wire, responses_wire
from agent_eval.scripted.conversation import Conversation
from agent_eval.scripted.server import RecordedRequest


def conversation(req: RecordedRequest | dict[str, Any], api: str | None = None) -> Conversation:
    """The API-neutral view of a recorded request (or of a raw body with api given/guessed)."""
    if isinstance(req, RecordedRequest):
        body, api = req.body if isinstance(req.body, dict) else {}, req.api
    else:
        body = req
    if api is None:
        api = "responses" if "input" in body else "anthropic"
    return (responses_wire if api == "responses" else anthropic_wire).parse(body)


def offered_tool_names(req: RecordedRequest | dict[str, Any], include_deferred: bool = False) -> list[str]:
    """Names of the tools offered; Codex namespace functions as `<namespace>__<name>`
    (e.g. `mcp__stub__echo`), built-ins (web_search, ...) by their type. Claude Code's
    `defer_loading` tools (DeferredToolPlaceholder) only with include_deferred."""
    return [t.qualified for t in conversation(req).tools if include_deferred or t.kind != "deferred"]


def has_image(req: RecordedRequest | dict[str, Any]) -> bool:
    """Any image in the request: Anthropic `image` blocks (also inside tool_result),
    Responses `input_image` items (also inside function_call_output)."""
    return conversation(req).has_image


def prompt_text(req: RecordedRequest | dict[str, Any]) -> str:
    """Text of the user messages (tool results excluded)."""
    return conversation(req).prompt


def tool_result_count(req: RecordedRequest | dict[str, Any]) -> int:
    return conversation(req).n_results
