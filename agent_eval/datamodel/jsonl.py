"""JSON Lines reading with file:line errors, and the data error every kind raises for bad input."""

from __future__ import annotations

import json
from pathlib import Path


class DataError(Exception):
    """Bad dataset or selection: shown to the user as one line, exit code 2."""


def jsonl_rows(path: Path) -> list[tuple[str, dict]]:
    """(`file:line`, object) for each non-empty line; bad JSON is a DataError naming file and line."""
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise DataError(
                    f"{where}: malformed JSON ({error.msg} at column {error.colno}); fix or remove that line"
                ) from None
            if not isinstance(row, dict):
                raise DataError(f"{where}: expected a JSON object per line, got {type(row).__name__}")
            rows.append((where, row))
    return rows
