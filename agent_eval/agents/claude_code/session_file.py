"""Claude Code's own record of a session: `$CLAUDE_CONFIG_DIR/projects/<cwd, encoded>/<session id>.jsonl`,
which `--resume <id>` reads back (the cwd must be the same: the folder is named after it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from agent_eval.agents.logfiles import log_entries

PROJECTS = "projects"  # in its config dir: the session records (on the disk even when that dir is in memory)
PROJECT_NAME_MAX = 200  # longer cwd names are cut there and end in a hash of the path (Claude's own rule)


def project_dir_name(workdir: Path) -> str:
    """The projects/ folder Claude names after a cwd (every character not a letter or digit -> "-")."""
    return re.sub(r"[^a-zA-Z0-9]", "-", os.path.realpath(workdir))


def session_file(home: Path, workdir: Path, session_id: str) -> Path | None:
    projects = home / ".claude" / PROJECTS
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


def find_session_file(item_dir: Path, session_id: str) -> Path | None:
    """The record of a session in an item's folder, whatever its cwd (for parsing after the fact)."""
    found = sorted((item_dir / "home" / ".claude" / PROJECTS).glob(f"*/{session_id}.jsonl"))
    return found[0] if found else None


_COUNTS = ("inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens")


def _counts(model_usage) -> dict:
    return {
        model: tuple(u.get(key) or 0 for key in _COUNTS)
        for model, u in (model_usage or {}).items()
        if isinstance(u, dict) and any(u.get(key) for key in _COUNTS)
    }


def _is(entry: dict, kind: str) -> bool:
    return entry.get("type") == kind


def _enqueue(entry: dict) -> bool:
    """A process's stdin message entering the session: where that process's part of the record begins."""
    return _is(entry, "queue-operation") and entry.get("operation") == "enqueue"


def restored_totals(path: Path | None, results: list[dict]) -> list[dict | None]:
    """For each result of one session (in stream order), the totals its process started from, as a
    result-shaped {"modelUsage", "total_cost_usd"}: `--resume` restores the last `cost-state` of the record,
    which Claude writes at a clean exit. Read from the record, not the stream: a process can end cleanly
    after the harness stopped reading it (its result lost, its cost state saved). A process's span in the
    record begins at its `queue-operation` enqueue (its stdin message) and is found by the cost-state equal
    to its result; None where none is (no record, or killed between its result and its exit)."""
    entries = list(log_entries(path)) if path is not None else []
    found: list[dict | None] = []
    after = -1
    for result in results:
        want = _counts(result.get("modelUsage"))
        match = next(
            (
                i
                for i in range(after + 1, len(entries))
                if _is(entries[i], "cost-state") and _counts(entries[i].get("modelUsage")) == want
            ),
            None,
        )
        if match is None or not want:
            found.append(None)
            continue
        after = match
        start = max((i for i in range(match) if _enqueue(entries[i])), default=0)
        base = next((entries[i] for i in range(start - 1, -1, -1) if _is(entries[i], "cost-state")), {})
        found.append({"modelUsage": base.get("modelUsage") or {}, "total_cost_usd": base.get("totalCostUSD") or 0})
    return found
