"""An item's agent sessions, as its folder records them: `<item>/sessions.jsonl`, one line when a session starts
(n, kind, reason, id), one when its id is learned (Codex names its own), one when it ends; read back folded by n.
An item has more than one session when it went on after the harness was killed (engine/sessions.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

SESSIONS = "sessions.jsonl"


@dataclass
class SessionRecord:
    n: int
    kind: str  # "new" | "resume"
    reason: str  # why this session: "start", "harness restarted", "the earlier session cannot be continued: ..."
    session_id: str | None
    started_at: str
    ended_at: str | None = None
    ended: str | None = None  # how its process ended ("exit 0", "timeout", "interrupted", ...)


def read_sessions(root: Path) -> list[SessionRecord]:
    path = Path(root) / SESSIONS
    if not path.is_file():
        return []
    folded: dict[int, dict] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue  # a line cut by a kill
        folded.setdefault(data["n"], {}).update(data)
    known = SessionRecord.__dataclass_fields__
    return [
        SessionRecord(**{k: v for k, v in data.items() if k in known})
        for _, data in sorted(folded.items())
        if "kind" in data
    ]


def append_session(root: Path, data: dict) -> None:
    with (Path(root) / SESSIONS).open("a", encoding="utf-8") as out:
        out.write(json.dumps(data) + "\n")
