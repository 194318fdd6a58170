"""Defence in depth: no known secret value survives in anything the harness writes.

The gateway keeps credentials out of the sandbox, so none should ever reach a transcript. If
one did (a model echoing a key it was shown elsewhere, a CLI printing its config), the item's
directory is swept after each attempt and the record is cleaned before it is appended; show,
report and exports read only those files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from agent_eval.datamodel.records import ItemRecord

MARK = "[REDACTED]"


class Redactor:
    def __init__(self, values: list[str]):
        self.values = sorted({v for v in values if v}, key=len, reverse=True)  # longest first
        self._raw = [v.encode() for v in self.values]

    def add(self, value: str) -> None:
        """One more secret (a kind's own credential, e.g. the user's ARC API key), scrubbed from here on."""
        if value and value not in self.values:
            self.values = sorted({*self.values, value}, key=len, reverse=True)
            self._raw = [v.encode() for v in self.values]

    def __bool__(self) -> bool:
        return bool(self.values)

    def text(self, text: str) -> str:
        for value in self.values:
            if value in text:
                text = text.replace(value, MARK)
        return text

    def record(self, record: ItemRecord) -> ItemRecord:
        raw = json.dumps(record.to_json(), ensure_ascii=False)
        clean = self.text(raw)
        return record if clean == raw else ItemRecord.from_json(json.loads(clean))

    def tree(self, root: Path) -> list[Path]:
        """Rewrite every file under `root` that holds a secret; returns those files."""
        changed: list[Path] = []
        if not self:
            return changed
        for name in _regular_files(str(root)):
            try:
                with open(name, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if not any(value in data for value in self._raw):
                continue  # the common case: a search, no copy of the file
            clean = data
            for value in self._raw:
                clean = clean.replace(value, MARK.encode())
            path = Path(name)
            path.chmod(0o600)
            path.write_bytes(clean)
            changed.append(path)
        return changed


def _regular_files(top: str):
    """Every regular file under `top`, links not followed (scandir's entry types: no stat per file;
    an item's directory holds about 80 files, mostly the CLI's own)."""
    try:
        entries = list(os.scandir(top))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            yield from _regular_files(entry.path)
        elif entry.is_file(follow_symlinks=False):
            yield entry.path
