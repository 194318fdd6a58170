"""An item's agent sessions, as its folder records them: `<item>/sessions.jsonl`, one line when a session starts
(n, kind, reason, id), one when its id is learned (Codex names its own), one when it ends; read back folded by n.
An item has more than one session when it went on after the harness was killed (engine/sessions.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_eval.datamodel.jsonl import append_line, log_lines

SESSIONS = "sessions.jsonl"


@dataclass
class SessionRecord:
    n: int
    kind: str  # "new" | "resume"
    reason: str  # why this session: "start", "harness restarted", "silent for N min", "hand-off: ...", ...
    session_id: str | None
    started_at: str
    ended_at: str | None = None
    ended: str | None = None  # how its process ended ("exit 0", "timeout", "interrupted", ...)
    tool_surface: str | None = None  # the check of what the CLI offered at start: "checked: ..." or what differed
    context: str | None = None  # which of the item's contexts it plays (a game's role: "role-1"); None: the item's


def read_sessions(root: Path) -> list[SessionRecord]:
    folded: dict[int, dict[str, Any]] = {}
    for data in log_lines(Path(root) / SESSIONS):
        folded.setdefault(data["n"], {}).update(data)
    known = SessionRecord.__dataclass_fields__
    return [
        SessionRecord(**{k: v for k, v in data.items() if k in known})
        for _, data in sorted(folded.items())
        if "kind" in data
    ]


def append_session(root: Path, data: dict[str, Any]) -> None:
    append_line(Path(root) / SESSIONS, data)
