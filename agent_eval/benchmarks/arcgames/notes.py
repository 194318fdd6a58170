"""The agent's notes on a game (VISTA's rung iv): GUIDE.md for what the game is, kept across levels and
sessions, and WORKING.md for the current level's state and plan. Read and written through the game's tools
(every tool mode has them: the notes live outside the sandbox, in the item's folder), every version kept:

    <item>/notes/GUIDE.md, WORKING.md    the current text
    <item>/notes/history/NNNN-NAME       every version written, numbered across both notes
    <item>/notes/history.jsonl           one line per write: version, note, time, characters, actions used then

They survive the harness like the game does, and a fresh session is given them in its prompt."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from agent_eval.datamodel.itemdir import now_iso

NOTES_DIR = "notes"
NOTE_NAMES = ("GUIDE.md", "WORKING.md")
PURPOSE = {
    "GUIDE.md": "what the game is: its rules, goal and controls as you have found them; kept across levels",
    "WORKING.md": "the current level: its state, what you tried and your plan",
}
MAX_CHARS = 20_000


class NoteRefused(ValueError):
    """A write the model can fix (an unknown note, too long): nothing was written."""


class Notes:
    def __init__(self, item_root: Path):
        self.directory = Path(item_root) / NOTES_DIR
        (self.directory / "history").mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def read(self) -> dict[str, str]:
        return {
            name: (self.directory / name).read_text(encoding="utf-8") if (self.directory / name).is_file() else ""
            for name in NOTE_NAMES
        }

    def write(self, name: str, text: str, actions_used: int) -> int:
        """Replace a note; its version number (counted across both notes)."""
        name = str(name).strip()
        if name not in NOTE_NAMES:
            raise NoteRefused(f"no note {name!r}: the notes are {' and '.join(NOTE_NAMES)}")
        if not isinstance(text, str):
            raise NoteRefused("text must be a string")
        if len(text) > MAX_CHARS:
            raise NoteRefused(f"{name} would be {len(text)} characters; at most {MAX_CHARS}: shorten it")
        with self._lock:
            version = len(self.history()) + 1
            _write(self.directory / "history" / f"{version:04d}-{name}", text)
            _write(self.directory / name, text)
            entry = {
                "version": version,
                "note": name,
                "at": now_iso(),
                "chars": len(text),
                "actions_used": actions_used,
            }
            with (self.directory / "history.jsonl").open("a", encoding="utf-8") as out:
                out.write(json.dumps(entry) + "\n")
            return version

    def history(self) -> list[dict]:
        return read_history(self.directory.parent)

    def as_prompt(self) -> str:
        """The notes' current text, for the prompt of a fresh session."""
        notes = self.read()
        return "\n\n".join(f"--- {name} ---\n{text.strip() or '(empty)'}" for name, text in notes.items())


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def read_history(item_root: Path) -> list[dict]:
    path = Path(item_root) / NOTES_DIR / "history.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def versions(item_root: Path) -> list[dict]:
    """Every version written, oldest first: its history line and its text."""
    directory = Path(item_root) / NOTES_DIR / "history"
    out = []
    for entry in read_history(item_root):
        path = directory / f"{entry['version']:04d}-{entry['note']}"
        out.append({**entry, "text": path.read_text(encoding="utf-8") if path.is_file() else ""})
    return out
