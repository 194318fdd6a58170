"""Where one attempt at one item lives on disk: `<run>/sandboxes/<item>/`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path


@dataclass(frozen=True)
class ItemDir:
    """`<run>/sandboxes/<item>/`: only `work/` and `home/` are ever visible to the agent."""

    root: Path

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def transcript(self) -> Path:
        return self.root / "transcript.jsonl"

    @property
    def steps(self) -> Path:
        return self.root / "steps.json"

    @property
    def stderr(self) -> Path:
        return self.root / "stderr.log"

    @property
    def meta(self) -> Path:
        return self.root / "meta.json"

    def fresh(self) -> None:
        """Start clean; an earlier attempt is moved to `.attempts/`, never deleted silently."""
        if self.root.exists():
            archive = self.root.parent / ".attempts"
            archive.mkdir(exist_ok=True)
            number = len(list(archive.glob(f"{self.root.name}.*"))) + 1
            self.root.rename(archive / f"{self.root.name}.{number}")
        self.work.mkdir(parents=True)
        self.home.mkdir()


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
