"""JSON Lines reading with file:line errors, the data error every kind raises for bad input, and the append-only
logs an item's folder keeps (a timeline, a session list, a ledger): written a line at a time, so a kill can
leave the last line cut; readers skip it and the next writer starts on a line of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO


class DataError(Exception):
    """Bad dataset or selection: shown to the user as one line, exit code 2."""


def jsonl_rows(path: Path, skipped: list[str] | None = None) -> list[tuple[str, dict[str, Any]]]:
    """(`file:line`, object) for each non-empty line; bad JSON is a DataError naming file and line, or,
    when `skipped` is given (a loader that runs the rest), one line there per line left out."""
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                row = json.loads(line)
                if not isinstance(row, dict):
                    raise DataError(f"{where}: expected a JSON object per line, got {type(row).__name__}")
            except json.JSONDecodeError as error:
                problem = f"{where}: malformed JSON ({error.msg} at column {error.colno}); fix or remove that line"
                if skipped is None:
                    raise DataError(problem) from None
                skipped.append(problem)
                continue
            except DataError as error:
                if skipped is None:
                    raise
                skipped.append(str(error))
                continue
            rows.append((where, row))
    return rows


def log_lines(path: Path) -> list[dict[str, Any]]:
    """The whole lines of an append-only log (none when it does not exist); a line cut by a kill is skipped."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return []
    out = []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def open_log(path: Path) -> TextIO:
    """An append-only log opened for appending; after a line cut by a kill, the next one starts on its own line
    (else it would be glued to the cut one and both lost)."""
    path = Path(path)
    torn = False
    if path.is_file() and path.stat().st_size:
        with path.open("rb") as f:
            f.seek(-1, 2)
            torn = f.read(1) != b"\n"
    handle = path.open("a", encoding="utf-8")
    if torn:
        handle.write("\n")
    return handle


def append_line(path: Path, value: dict[str, Any]) -> None:
    """One line added to an append-only log."""
    with open_log(path) as out:
        out.write(json.dumps(value) + "\n")
