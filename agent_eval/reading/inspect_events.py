"""The events of one exported sample: what Inspect's viewer shows in its Transcript tab.

Inspect records a model event per generation (the messages it was given, the message it
produced) and a tool event per call. We rebuild them from the messages: each assistant message
is a model event whose input is everything before it, each tool message a tool event; then the
sample's error, if any, and its scores. Times come from the transcript (seconds since the agent
started) added to the item's start. Per-turn token counts and the offered tools' schemas are not
in our records, so model events carry neither (the sample carries the item's usage).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from inspect_ai.event import ErrorEvent, Event, ModelEvent, ScoreEvent, ToolEvent
from inspect_ai.log import EvalError
from inspect_ai.model import GenerateConfig, ModelOutput
from inspect_ai.scorer import Score


def sample_events(
    messages: list,
    times: list[float | None],
    started: datetime | None,
    model: str,
    scores: dict[str, Score],
    target: str,
    error: EvalError | None,
) -> list:
    """`messages` starts with the prompt; `times[i]` is when messages[i] began (None for the prompt)."""

    def at(t: float | None) -> dict:
        if started is None:
            return {}
        return {"timestamp": started + timedelta(seconds=t or 0), "working_start": t or 0.0}

    events: list[Event] = []
    calls = {}
    for index, message in enumerate(messages):
        if message.role == "assistant":
            calls.update({call.id: call for call in message.tool_calls or []})
            events.append(
                ModelEvent(
                    model=model,
                    input=messages[:index],
                    tools=[],
                    tool_choice="auto",
                    config=GenerateConfig(),
                    output=ModelOutput.from_message(message),
                    **at(times[index]),
                )
            )
        elif message.role == "tool":
            call = calls.get(message.tool_call_id or "")
            events.append(
                ToolEvent(
                    id=message.tool_call_id or f"call_{index}",
                    function=message.function or "?",
                    arguments=call.arguments if call else {},
                    result=message.content,
                    error=message.error,
                    **at(times[index]),
                )
            )
    end = at(max((t for t in times if t is not None), default=0))
    if error is not None:
        events.append(ErrorEvent(error=error, **end))
    events += [ScoreEvent(score=score, target=target, scorer=name, **end) for name, score in scores.items()]
    return events
