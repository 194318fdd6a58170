"""Claude Code's own record of a session: `$CLAUDE_CONFIG_DIR/projects/<cwd, encoded>/<session id>.jsonl`,
which `--resume <id>` reads back (the cwd must be the same: the folder is named after it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from agent_eval.agents.logfiles import log_entries

PROJECT_NAME_MAX = 200  # longer cwd names are cut there and end in a hash of the path (Claude's own rule)


def project_dir_name(workdir: Path) -> str:
    """The projects/ folder Claude names after a cwd (every character not a letter or digit -> "-")."""
    return re.sub(r"[^a-zA-Z0-9]", "-", os.path.realpath(workdir))


def session_file(home: Path, workdir: Path, session_id: str) -> Path | None:
    projects = home / ".claude" / "projects"
    name = project_dir_name(workdir)
    if len(name) <= PROJECT_NAME_MAX:
        found = [projects / name / f"{session_id}.jsonl"]
    else:
        found = sorted(projects.glob(f"{name[:PROJECT_NAME_MAX]}-*/{session_id}.jsonl"))
    return next((path for path in found if path.is_file()), None)


def resumable(home: Path, workdir: Path, session_id: str) -> bool:
    """The record is there and holds a message of that session: Claude answers "No conversation found"
    for a file without one (as a process killed at its start leaves). A torn line is skipped, as Claude does."""
    path = session_file(home, workdir, session_id)
    if path is None:
        return False
    return any(
        entry.get("type") in ("user", "assistant")
        and entry.get("sessionId") == session_id
        and isinstance(entry.get("message"), dict)
        for entry in log_entries(path)
    )
