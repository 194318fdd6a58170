"""WORKING.md scoped to a level (`--working-scope level`, VISTA's arc3/claude/controller.py _archive_level_working):
at each level boundary the note is archived with its provenance (<item>/notes/working_archive/turn_NNNNNN.md and
.json) and cleared, so only GUIDE.md carries over. The clearing is itself a version in notes/history (`cleared`
says why). The kind says when a level ends and where the game stood (the provenance kept with each write)."""

from __future__ import annotations

import json
from pathlib import Path

from agent_eval.benchmarks.notes import Notes, read_history, write_atomic

ARCHIVE_DIR = "working_archive"
WORKING = "WORKING.md"


def saved_at(notes: Notes) -> dict | None:
    """WORKING.md's provenance: where the game stood at its last write (None: never written, or cleared since)."""
    for entry in reversed(read_history(notes.directory.parent)):
        if entry.get("note") == WORKING:
            if entry.get("cleared"):
                return None
            return {k: entry.get(k) for k in ("turn", "state", "progress", "level_start_turn") if k in entry}
    return None


def archive_level(notes: Notes, turn: int, before: dict, after: dict, actions_used: int) -> Path | None:
    """A level boundary at `turn` (progress `before` -> `after`, each {completed, total}): WORKING.md archived with
    its provenance and cleared. Returns the archived note's path (None: WORKING.md was empty, nothing to keep)."""
    text = notes.read()[WORKING]
    if not text.strip():
        return None
    record = {
        "boundary_turn": turn,
        "saved_at": saved_at(notes),
        "previous_progress": before,
        "current_progress": after,
    }
    folder = notes.directory / ARCHIVE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"turn_{turn:06d}"
    write_atomic(folder / f"{stem}.md", text)
    write_atomic(folder / f"{stem}.json", json.dumps(record, separators=(",", ":"), sort_keys=True) + "\n")
    notes.write(WORKING, "", {"actions_used": actions_used, "turn": turn, "cleared": "level boundary"})
    return folder / f"{stem}.md"


def archived(item_root: Path) -> list[dict]:
    """Every archived WORKING.md, oldest first: its record and its text."""
    folder = Path(item_root) / "notes" / ARCHIVE_DIR
    records = sorted(folder.glob("turn_*.json"))
    return [{**json.loads(r.read_text(encoding="utf-8")), "text": r.with_suffix(".md").read_text()} for r in records]
