"""A transcript made of several CLI sessions, one after another in one `transcript.jsonl`.

When a run is started again after the harness died, the engine starts the CLI again in the same item
folder, continuing the session or starting a new one, and writes one marker line before each session's
events: {"type": "agent_eval.session", "n", "kind", "reason", "session_id", "at"}. Each CLI's parser
parses every session alone (its usage counted as the CLI reports it, see the parsers) and `join` makes
the one Transcript: steps in order, usage, cost and turns summed, the outcome the last session's.
A stream without markers is one session and is parsed as before markers existed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_eval.datamodel.records import Usage
from agent_eval.datamodel.transcript import Transcript

SESSION_MARKER = "agent_eval.session"
USAGE_FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")


@dataclass
class SessionEvents:
    marker: dict | None  # None: events before the first marker
    events: list[dict] = field(default_factory=list)

    def entry(self, position: int, session_id: str | None) -> dict:
        """The session as Transcript.sessions lists it; the id the CLI reported wins over the marker's
        (a new Codex session's id is known only once it started)."""
        marker = self.marker or {}
        return {
            "n": marker.get("n", position + 1),
            "kind": marker.get("kind", "new"),
            "reason": marker.get("reason", "start" if self.marker is None and position == 0 else None),
            "session_id": session_id or marker.get("session_id"),
            "at": marker.get("at"),
            "images": list(marker.get("images") or []),  # attached to the session's first message
        }


def split_sessions(events: list[dict]) -> list[SessionEvents] | None:
    """The stream cut at each marker; None when it has none (one session, as before)."""
    if not any(event.get("type") == SESSION_MARKER for event in events):
        return None
    parts: list[SessionEvents] = []
    for event in events:
        if event.get("type") == SESSION_MARKER:
            parts.append(SessionEvents(event))
        else:
            if not parts:
                parts.append(SessionEvents(None))
            parts[-1].events.append(event)
    return parts


def add_usage(a: Usage, b: Usage) -> Usage:
    """Field by field; a field neither side knows stays unknown (None), never a made-up 0."""
    values = {}
    for name in USAGE_FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        values[name] = None if x is None and y is None else (x or 0) + (y or 0)
    return Usage(**values)


def _add_optional(a, b):
    return None if a is None and b is None else (a or 0) + (b or 0)


def _add_models(whole: dict[str, dict], part: dict[str, dict]) -> None:
    for model, counts in part.items():
        into = whole.setdefault(model, {})
        for key, value in counts.items():
            if isinstance(value, (int, float)) or value is None:
                into[key] = _add_optional(into.get(key), value)
            else:
                into.setdefault(key, value)


def join(agent: str, parts: list[tuple[dict, Transcript]]) -> Transcript:
    """One Transcript of sessions parsed one by one (entry: the session as `SessionEvents.entry` gives it)."""
    whole = Transcript(agent=agent)
    for entry, part in parts:
        first = len(whole.steps)
        whole.sessions.append({**entry, "first_step": first})
        whole.compactions += [{**c, "at": c["at"] + first, "session": entry["n"]} for c in part.compactions]
        whole.steps += part.steps
        whole.usage = add_usage(whole.usage, part.usage)
        _add_models(whole.usage_by_model, part.usage_by_model)
        whole.num_turns = _add_optional(whole.num_turns, part.num_turns)
        whole.cost_usd = _add_optional(whole.cost_usd, part.cost_usd)
        whole.api_retries += part.api_retries
        for name, count in part.unknown_events.items():
            whole.unknown_events[name] = whole.unknown_events.get(name, 0) + count
    if parts:
        last = parts[-1][1]
        whole.final_text, whole.error, whole.error_status = last.final_text, last.error, last.error_status
    return whole
