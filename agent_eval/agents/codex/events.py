"""Codex `exec --json` events -> the normalised Transcript.

Events: thread.started, turn.started, item.started / item.updated / item.completed (item types
agent_message, reasoning, command_execution, mcp_tool_call, web_search, file_change, todo_list,
error), turn.completed (usage: running totals), turn.failed, error. Completed items are steps; a tool
item started and never completed in the stream is a step too, the call the model made, its result a note
(Codex leaves a command running past its `yield_time_ms`, 10 s by default, in the background and answers
the model "Process running with session ID …": when the turn ends before the command does, its
item.completed never reaches the stream; a session stopped mid-call ends the same way).

An API failure arrives as text: often the API's JSON error body, with no status code (a 400 is
`{"error": {"type": "invalid_request_error", ...}}`, capacity trouble "We're currently experiencing high
demand..."): agents/failures.py classifies that text. `--json` leaves out view_image calls and the
number of model responses: `merge_rollout` takes both from Codex's session log (the rollout file in the
private CODEX_HOME); without it, num_turns falls back to tool rounds + 1 (the answer; none when the stream
ended in a call). `--json` says nothing of a compaction either: the rollout's `compacted` entries are
recorded in `Transcript.compactions`. Unknown event types are counted, never fatal.

Several sessions in one stream (agents/sessions.py): `parse_codex_sessions`. Item ids restart at
item_0 in every `exec`, so a later session's call ids get its number in front. `turn.completed`'s usage
runs on over a thread's sessions (`exec resume` restores the total from the rollout's last `token_count`),
so each session's usage is taken from its own turn in the rollout instead: one `token_usage_record` per
model response, written as the response ends, so a session cut by SIGKILL counts every response Codex
had logged. Without the rollout, a session's usage is its running total less the previous one of that
thread in the stream, and a cut session (no `turn.completed`) counts nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from agent_eval.agents.logfiles import log_entries
from agent_eval.agents.placeholders import is_placeholder
from agent_eval.agents.seen_images import SeenImages
from agent_eval.agents.sessions import SESSION_MARKER, join, split_sessions
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
NOT_TOOL_ITEMS = ("agent_message", "reasoning", "error", "todo_list")  # the stream's items that are no tool call
UNFINISHED = "[no result in Codex's stream: the call was still running when the session's stream ended]"
_STATUS_IN_TEXT = re.compile(r"\b(400|401|403|404|422|429|500|502|503|529)\b")
# How a turn ends when the API refuses the request as longer than the model's window (its error code
# context_length_exceeded); Codex does not compact then, whatever its settings.
OUT_OF_ROOM = "Codex ran out of room in the model's context window"


def _mcp_result(item: dict, seen: SeenImages) -> tuple[str, list[str], bool]:
    error = item.get("error")
    if error:
        # an error object without a message is shown whole rather than as None
        return ((error.get("message") or str(error)) if isinstance(error, dict) else str(error)), [], True
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


def _unfinished(item: dict, seen: SeenImages) -> list[Step]:
    """The steps of a tool item that started and never completed in the stream: the call, and a note for its result."""
    made = Transcript(agent="codex")
    _add_item(made, item, seen)
    for step in made.steps:
        if step.kind == "tool_result":
            step.text, step.images, step.is_error = UNFINISHED, [], False
    return made.steps


def parse_codex_events(events: list[dict], item_dir: Path) -> Transcript:
    transcript = Transcript(agent="codex")
    seen = SeenImages(item_dir)
    usage = None
    errors = []
    running: dict[str, tuple[int, dict]] = {}  # a tool item started, not completed yet: where its steps go
    for event in events:
        kind = event.get("type")
        item: dict = event["item"] if isinstance(event.get("item"), dict) else {}
        if kind not in KNOWN_TYPES:
            transcript.unknown_events[str(kind)] = transcript.unknown_events.get(str(kind), 0) + 1
        elif kind == "item.started" and item.get("id") and item.get("type") not in NOT_TOOL_ITEMS:
            running[item["id"]] = (len(transcript.steps), item)
        elif kind == "item.completed":
            running.pop(str(item.get("id")), None)
            _add_item(transcript, item, seen)
        elif kind == "turn.completed":
            usage = event.get("usage") or usage
        elif kind == "turn.failed":
            errors.append(((event.get("error") or {}).get("message")) or "turn failed")
        elif kind == "error":
            errors.append(event.get("message") or "error")
    # Cut in a call: an unfinished call's steps go last (no response came after it).
    cut_in_a_call = any(position == len(transcript.steps) for position, _ in running.values())
    for position, item in reversed(list(running.values())):  # the last first: earlier positions stay right
        transcript.steps[position:position] = _unfinished(item, seen)
    if usage:
        transcript.usage = Usage(
            input_tokens=usage.get("input_tokens"),
            cached_input_tokens=usage.get("cached_input_tokens"),
            output_tokens=usage.get("output_tokens"),
            reasoning_tokens=usage.get("reasoning_output_tokens"),
        )
    rounds = sum(step.kind == "tool_call" for step in transcript.steps)
    transcript.num_turns = rounds + (not cut_in_a_call) if (transcript.final_text is not None or rounds) else 0
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


def rollout_path(item_dir: Path, session_id: str | None = None) -> Path | None:
    """Codex's own session log in the private CODEX_HOME: the last one, or that of thread `session_id` (its
    file name ends with the thread's id; an item of several fresh sessions has one each)."""
    pattern = f"**/rollout-*{session_id}.jsonl" if session_id else "**/rollout-*.jsonl"
    found = sorted((item_dir / "home" / ".codex" / "sessions").glob(pattern))
    return found[-1] if found else None


def merge_rollout(transcript: Transcript, path: Path, item_dir: Path) -> None:
    """What `--json` leaves out, taken from the rollout: `view_image` calls with the image the model
    got (inserted in call order among the other tool calls), and the number of model responses."""
    merge_entries(transcript, list(log_entries(path)), item_dir)


def merge_entries(transcript: Transcript, entries: list[dict], item_dir: Path) -> None:
    """`merge_rollout` on some of a rollout's entries (one session's turn)."""
    seen = SeenImages(item_dir)
    calls: list[dict] = []
    outputs: dict = {}
    responses = 0
    compacted: list[tuple[int, int | None]] = []  # (tool calls before it, the context's tokens before it)
    totals: list[int | None] = []  # each response's total tokens
    for entry in entries:
        payload = entry.get("payload") or {}
        if entry.get("type") == "token_usage_record":
            responses += 1
            totals.append((payload.get("usage") or {}).get("total_tokens"))
        elif entry.get("type") == "compacted":
            # the last response was the summary; the one before it is what made Codex compact
            compacted.append((len(calls), totals[-2] if len(totals) > 1 else None))
        elif entry.get("type") == "response_item" and payload.get("type") == "function_call":
            calls.append(payload)
        elif entry.get("type") == "response_item" and payload.get("type") == "function_call_output":
            outputs[payload.get("call_id")] = payload.get("output")
    if responses:
        transcript.num_turns = responses
    position = 0  # index in transcript.steps after the last matched non-view call
    for call in calls:
        if call.get("name") != "view_image":
            if call.get("call_id") in outputs:  # a call cut before its output printed no step
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
    for before, tokens in compacted:
        # `--json` does not report a compaction: the rollout's `compacted` entry (written after the summary)
        # places it after the results of the tool calls before it. Codex's exec has no manual compaction.
        at = 0
        for _ in range(before):
            at = _after_next_call(transcript.steps, at)
        transcript.compactions.append({"at": at, "trigger": "auto", "pre_tokens": tokens, "session": 1})


def _after_next_call(steps: list[Step], start: int) -> int:
    for index in range(start, len(steps)):
        if steps[index].kind == "tool_call":
            end = index + 1
            while end < len(steps) and steps[end].kind == "tool_result":
                end += 1
            return end
    return len(steps)


def session_id_of(events: list[dict]) -> str | None:
    """The thread id of the last `thread.started` (Codex picks it; `exec resume` takes it)."""
    ids = [e.get("thread_id") for e in events if e.get("type") == "thread.started"]
    return next((i for i in reversed(ids) if i), None)


def rollout_of(home: Path, thread_id: str) -> Path | None:
    """The rollout of one thread in the private CODEX_HOME (<home>/.codex): its name ends in the id."""
    found = sorted((home / ".codex" / "sessions").glob(f"**/rollout-*-{thread_id}.jsonl"))
    return found[-1] if found else None


def resumable(home: Path, thread_id: str) -> bool:
    """`exec resume` needs the thread's rollout (the state databases may be gone: it rebuilds from the
    rollout); whole enough to continue = its session_meta and the first user message are there."""
    path = rollout_of(home, thread_id)
    if path is None:
        return False
    meta = prompt = False
    for entry in log_entries(path):
        payload = entry.get("payload") or {}
        meta = meta or (entry.get("type") == "session_meta" and payload.get("id") == thread_id)
        prompt = prompt or (
            entry.get("type") == "response_item" and payload.get("type") == "message" and payload.get("role") == "user"
        )
    return meta and prompt


def rollout_turns(path: Path) -> list[list[dict]]:
    """A rollout cut into its turns (one per `exec`, each begun by a task_started event)."""
    turns: list[list[dict]] = []
    for entry in log_entries(path):
        if _starts_turn(entry) or not turns:
            turns.append([])
        turns[-1].append(entry)
    if turns and not any(_starts_turn(e) for e in turns[0]):
        turns.pop(0)  # what came before the first turn (session_meta): no session's
    return turns


def _starts_turn(entry: dict) -> bool:
    return entry.get("type") == "event_msg" and (entry.get("payload") or {}).get("type") == "task_started"


def _usage_of(counts: dict | None) -> Usage:
    counts = counts or {}
    return Usage(
        input_tokens=counts.get("input_tokens"),
        cached_input_tokens=counts.get("cached_input_tokens"),
        output_tokens=counts.get("output_tokens"),
        reasoning_tokens=counts.get("reasoning_output_tokens"),
    )


def _recorded_usage(turn: list[dict]) -> Usage | None:
    """The sum of a turn's per-response usage records (None: Codex logged none)."""
    logged = [(e.get("payload") or {}).get("usage") for e in turn if e.get("type") == "token_usage_record"]
    records = [r for r in logged if isinstance(r, dict)]
    if not records:
        return None
    return Usage(
        **{
            name: sum(r.get(key) or 0 for r in records)
            for name, key in (
                ("input_tokens", "input_tokens"),
                ("cached_input_tokens", "cached_input_tokens"),
                ("output_tokens", "output_tokens"),
                ("reasoning_tokens", "reasoning_output_tokens"),
            )
        }
    )


def _less(total: Usage, before: Usage | None) -> Usage:
    if before is None:
        return total
    return Usage(
        **{
            name: None if getattr(total, name) is None else max(0, getattr(total, name) - (getattr(before, name) or 0))
            for name in ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")
        }
    )


def parse_codex_sessions(events: list[dict], item_dir: Path) -> Transcript | None:
    """A stream of several sessions (agents/sessions.py) as one Transcript; None when it has no marker."""
    parts = split_sessions(events)
    if parts is None:
        return None
    turns: dict[str | None, list[list[dict]]] = {}  # thread -> its rollout's turns not yet matched
    running: dict[str | None, Usage] = {}  # thread -> the running total its last turn.completed reported
    joined = []
    for position, part in enumerate(parts):
        thread = session_id_of(part.events) or (part.marker or {}).get("session_id")
        transcript = parse_codex_events(part.events, item_dir)
        n = (part.marker or {}).get("n", position + 1)
        if position:
            for step in transcript.steps:
                step.call_id = f"s{n}.{step.call_id}" if step.call_id else None
        if thread not in turns:
            path = rollout_of(item_dir / "home", thread) if thread else None
            turns[thread] = rollout_turns(path) if path else []
        started = any(e.get("type") == "turn.started" for e in part.events)
        turn = turns[thread].pop(0) if started and turns[thread] else None
        if turn is not None:
            merge_entries(transcript, turn, item_dir)
        completed = [e.get("usage") for e in part.events if e.get("type") == "turn.completed" and e.get("usage")]
        recorded = _recorded_usage(turn) if turn is not None else None
        if recorded is not None:
            transcript.usage = recorded
        elif completed:
            transcript.usage = _less(_usage_of(completed[-1]), running.get(thread))
        else:
            transcript.usage = Usage()
        if completed:
            running[thread] = _usage_of(completed[-1])
        joined.append((part.entry(position, thread), transcript))
    return join("codex", joined)


def ran_out_of_context(events: list[dict]) -> bool:
    """Whether the (last) session's turn failed because the model's context window was full."""
    last = next(
        (e for e in reversed(events) if e.get("type") in ("turn.failed", "turn.completed", SESSION_MARKER)), None
    )
    return bool(
        last and last.get("type") == "turn.failed" and OUT_OF_ROOM in ((last.get("error") or {}).get("message") or "")
    )
