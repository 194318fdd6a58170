"""An item's agent sessions: whether an attempt starts the CLI's session or continues an earlier one, and the
record of every session in the item's folder.

The record of them is <item>/sessions.jsonl (datamodel/sessions.py).

An item whose benchmark carries its work across a killed harness (a game restored from its record: the
benchmark's `Continuation`) goes on in its next attempt: the CLI's own session is continued when the CLI's
record of it is whole (Claude Code `--resume`, Codex `exec resume`), told that the harness restarted; else a
fresh session is told the task again and where it stands. Each session's events follow one marker event in
transcript.jsonl, so the parsers see where each began."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from agent_eval.agents.base import Agent, SessionPlan
from agent_eval.agents.sessions import SESSION_MARKER
from agent_eval.benchmarks.base import Continuation, ItemSetup
from agent_eval.datamodel.itemdir import ItemDir, now_iso
from agent_eval.datamodel.sessions import SessionRecord, append_session, read_sessions


@dataclass
class SessionStart:
    """What the attempt's CLI is started with."""

    record: SessionRecord
    plan: SessionPlan
    prompt: str
    images: list[Path] = field(default_factory=list)
    system_fields: dict[str, str] | None = None  # this session's words for --system-prompt (None: the item's)


def start_session(
    agent: Agent, item_dir: ItemDir, setup: ItemSetup, handoff: Continuation | None = None
) -> SessionStart:
    """Decide this attempt's session, record it, and open it in transcript.jsonl. `handoff`: the next session
    the kind asked for after the last one ended (a fresh one after a hand-off; the same one continued, where the
    CLI can resume it, after an early stop: then the note alone, the model has seen the rest)."""
    earlier = read_sessions(item_dir.root)
    goes_on = setup.continuation
    asked = handoff or goes_on
    # the context this session plays (a game's role): the last session of that context is the one to continue; a
    # session that goes on without naming one (after a silence) goes on in the last session's
    context = asked.context if asked is not None and asked.context is not None else setup.context
    if handoff is not None and handoff.context is None and earlier:
        context = earlier[-1].context
    mine = [s for s in earlier if s.context == context] if context is not None else earlier
    last = mine[-1] if mine else None
    session_id: str | None
    if handoff is not None and handoff.resume and _resumable(agent, item_dir, last):
        assert last is not None and last.session_id is not None  # _resumable checked
        kind, session_id, reason = "resume", last.session_id, handoff.reason
        prompt, images = handoff.note, list(handoff.note_images)
    elif handoff is not None:
        kind, session_id, reason = "new", agent.new_session_id(), handoff.reason
        prompt, images = handoff.prompt, list(handoff.images)
    elif goes_on is None:
        kind, session_id, reason = "new", agent.new_session_id(), "start"
        prompt, images = setup.prompt, list(setup.inline_images)
    elif not goes_on.fresh and _resumable(agent, item_dir, last):
        assert last is not None and last.session_id is not None  # _resumable checked
        kind, session_id, reason = "resume", last.session_id, "harness restarted"
        prompt, images = goes_on.note, list(goes_on.images)
    else:
        why = (
            "the kind asks a fresh session"
            if goes_on.fresh and last is not None and last.session_id
            else "no earlier session recorded"
            if last is None
            else "the earlier session named no id"
            if not last.session_id
            else f"the CLI's record of session {last.session_id} is missing or broken"
        )
        kind, session_id, reason = "new", agent.new_session_id(), f"harness restarted; {why}"
        prompt, images = goes_on.prompt, list(goes_on.images)
    record = SessionRecord(len(earlier) + 1, kind, reason, session_id, now_iso(), context=context)
    attached = [_inside(path, item_dir, record.n) for path in images]
    append_session(item_dir.root, {k: v for k, v in asdict(record).items() if k != "context" or v is not None})
    marker = {"type": SESSION_MARKER, "n": record.n, "kind": kind, "reason": reason, "session_id": session_id}
    marker |= {"context": context} if context is not None else {}
    marker["images"] = [_relative(path, item_dir.root) for path in images]
    with item_dir.transcript.open("a", encoding="utf-8") as transcript:
        transcript.write(json.dumps({"t": 0.0, "event": {**marker, "at": record.started_at}}) + "\n")
    fields = asked.system_fields if asked is not None else None
    return SessionStart(record, SessionPlan(kind, session_id), prompt, attached, fields)


def go_on_after_silence(agent: Agent, item_dir: ItemDir, setup: ItemSetup, minutes: float) -> SessionStart:
    """The next session after the silent-session lease (engine/session_watch.py) stopped the last one, as a hand-off
    goes on: the CLI's own session continued and told why, or (its record cannot be continued) a fresh one told the
    task again and what happened."""
    note = (
        f"The evaluation harness stopped your last turn: no tool call had completed for {minutes:g} minutes. "
        "Your conversation goes on here; continue the task."
    )
    prompt = (
        f"{setup.prompt.rstrip()}\n\nAn earlier session of yours on this task was stopped after {minutes:g} minutes "
        "without a completed tool call, and its conversation could not be continued. What it did stays done: the "
        "files in your working directory, and the state of anything your tools act on.\n"
    )
    reason = f"silent for {minutes:g} min"
    return start_session(agent, item_dir, setup, Continuation(note, prompt, list(setup.inline_images), reason, True))


def _resumable(agent: Agent, item_dir: ItemDir, last: SessionRecord | None) -> bool:
    """Whether the CLI's record of the last session is whole enough to continue it."""
    if last is None or not last.session_id:
        return False
    return agent.can_resume(item_dir.home, item_dir.work, last.session_id)


def watching(agent: Agent, item_dir: ItemDir, start: SessionStart) -> Callable[[dict], str | None]:
    """The agent's own watcher, plus: the session's id recorded the moment the CLI names it (Codex picks its
    own), so a harness killed later can continue that session."""
    inner = agent.watcher()

    def watch(event: dict) -> str | None:
        if start.record.session_id is None:
            found = agent.session_id_of([event])
            if found:
                start.record.session_id = found
                append_session(item_dir.root, {"n": start.record.n, "session_id": found})
        return inner(event)

    return watch


def end_session(item_dir: ItemDir, start: SessionStart, how: str) -> None:
    start.record.ended_at, start.record.ended = now_iso(), how
    append_session(item_dir.root, {"n": start.record.n, "ended_at": start.record.ended_at, "ended": how})


def _relative(path: Path, root: Path) -> str:
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return str(path)


def _inside(path: Path, item_dir: ItemDir, n: int) -> Path:
    """An attachment the CLI can read in its sandbox: a file outside the workdir and the home (a game's frame in
    its archive, outside the sandbox) is copied into the CLI's private home. It is what the message shows anyway."""
    path = Path(path)
    for place in (item_dir.home, item_dir.work):
        if path.resolve().is_relative_to(place.resolve()):
            return path
    target = item_dir.home / "attachments" / f"session-{n}-{path.name}"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, target)
    return target
