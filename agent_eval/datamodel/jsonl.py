"""JSON Lines reading with file:line errors, and the data error every kind raises for bad input."""

from __future__ import annotations

import json
from pathlib import Path


class DataError(Exception):
    """Bad dataset or selection: shown to the user as one line, exit code 2."""


def jsonl_rows(path: Path, skipped: list[str] | None = None) -> list[tuple[str, dict]]:
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
