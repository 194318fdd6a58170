"""The CLIs' own session logs (Claude's session file, Codex's rollout): JSON objects, one a line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator


def log_entries(path: Path) -> Iterator[dict]:
    """Each line that is a JSON object; anything else (a torn last line) is skipped."""
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict):
            yield entry
