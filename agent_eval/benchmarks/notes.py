"""The agent's notes (VISTA's rung iv, offered to any kind that asks): two files the agent reads and writes
through the harness's tools (every tool mode has them: the notes live outside the sandbox, in the item's
folder), every version kept:

    <item>/notes/GUIDE.md, WORKING.md    the current text
    <item>/notes/history/NNNN-NAME       every version written, numbered across both notes
    <item>/notes/history.jsonl           one line per write: version, note, time, characters, and where the item
                                         stood (a game's actions used, an observation's count)

Each kind says what each note is for (`purposes`). The notes survive the harness like a game does, and a fresh
session is given them in its prompt."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from agent_eval.datamodel.itemdir import now_iso
from agent_eval.datamodel.jsonl import append_line, log_lines

NOTES_DIR = "notes"
NOTE_NAMES = ("GUIDE.md", "WORKING.md")
MAX_CHARS = 20_000


class NoteRefused(ValueError):
    """A write the model can fix (an unknown note, too long): nothing was written."""


class Notes:
    def __init__(self, item_root: Path, purposes: dict[str, str], limits: dict[str, int] | None = None):
        self.directory = Path(item_root) / NOTES_DIR
        (self.directory / "history").mkdir(parents=True, exist_ok=True)
        self.purposes = purposes  # note name -> what it is for, in the kind's words
        self.limits = {name: (limits or {}).get(name, MAX_CHARS) for name in NOTE_NAMES}  # characters, per note
        self._lock = threading.Lock()

    def describe(self) -> str:
        return describe(self.purposes)

    def read(self) -> dict[str, str]:
        return {
            name: (self.directory / name).read_text(encoding="utf-8") if (self.directory / name).is_file() else ""
            for name in NOTE_NAMES
        }

    def write(self, name: str, text: str, where: dict | None = None) -> int:
        """Replace a note; its version number (counted across both notes). `where`: how far the item had got."""
        name = str(name).strip()
        if name not in NOTE_NAMES:
            raise NoteRefused(f"no note {name!r}: the notes are {' and '.join(NOTE_NAMES)}")
        if not isinstance(text, str):
            raise NoteRefused("text must be a string")
        if len(text) > self.limits[name]:
            raise NoteRefused(f"{name} would be {len(text)} characters; at most {self.limits[name]}: shorten it")
        with self._lock:
            version = len(read_history(self.directory.parent)) + 1
            write_atomic(self.directory / "history" / f"{version:04d}-{name}", text)
            write_atomic(self.directory / name, text)
            entry = {"version": version, "note": name, "at": now_iso(), "chars": len(text), **(where or {})}
            append_line(self.directory / "history.jsonl", entry)
            return version

    def as_prompt(self) -> str:
        """The notes' current text (read_notes' answer, and a fresh session's prompt)."""
        notes = self.read()
        return "\n\n".join(f"--- {name} ---\n{text.strip() or '(empty)'}" for name, text in notes.items())


def describe(purposes: dict[str, str]) -> str:
    """What each note is for, as the prompt and the tools say it."""
    return "; ".join(f"{name}: {purposes[name]}" for name in NOTE_NAMES)


def write_atomic(path: Path, text: str) -> None:
    """The file's text replaced whole: a reader never sees it half written."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def read_history(item_root: Path) -> list[dict]:
    return log_lines(Path(item_root) / NOTES_DIR / "history.jsonl")


def versions(item_root: Path) -> list[dict]:
    """Every version written, oldest first: its history line and its text."""
    directory = Path(item_root) / NOTES_DIR / "history"
    out = []
    for entry in read_history(item_root):
        path = directory / f"{entry['version']:04d}-{entry['note']}"
        out.append({**entry, "text": path.read_text(encoding="utf-8") if path.is_file() else ""})
    return out


def where_words(entry: dict) -> str:
    """How far the item had got when a version was written, in words ("after 12 action(s)")."""
    counts = [(key, entry[key]) for key in ("actions_used", "observations") if entry.get(key) is not None]
    names = {"actions_used": "action(s)", "observations": "observation(s)"}
    return ", ".join(f"after {value} {names[key]}" for key, value in counts)


def print_notes(console, item_root: Path) -> None:
    """`show ITEM`: every version of the agent's notes, when it was written and how far the item had got."""
    from rich.rule import Rule
    from rich.text import Text

    written = versions(item_root)
    if not written:
        return
    console.print(Rule(f"notes ({len(written)} version(s) written)"))
    for entry in written:
        where = where_words(entry)
        heading = f"{entry['note']} v{entry['version']} · {entry['at']}" + (f" · {where}" if where else "")
        console.print(Text(heading, style="bold"))
        console.print(Text(entry["text"].strip() or "(empty)"))
