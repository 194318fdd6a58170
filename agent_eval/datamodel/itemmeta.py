"""`<run>/sandboxes/<item>/meta.json`, typed: how the agent's CLI was launched in its sandbox (its argv,
the names of its environment, the prompt) and how its process ended, so a saved event stream can be
re-parsed and re-classified later (`regrade --reparse`).

Read leniently like run.json: a meta.json of any version loads (the first ones had no `exit`, later
ones fewer exit fields), keys this version does not know are kept (`extra`) and written back as read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent_eval.datamodel.ondisk import dump, split_known
from agent_eval.datamodel.process_result import ProcessResult

# 1: written field by field (no schema_version; `exit` from `regrade` on, its fields growing since);
# 2: typed (unknown keys kept).
ITEM_META_SCHEMA_VERSION = 2


@dataclass
class SavedExit:
    """How the agent's last process ended: a ProcessResult without its events (those are in transcript.jsonl)."""

    exit_code: int | None = None
    timed_out: bool = False
    stopped_because: str | None = None
    malformed_lines: int = 0
    elapsed_s: float = 0.0  # every session of the attempt
    stderr_tail: str = ""
    proxy_refused: list[str] = field(default_factory=list)
    upstream_failure: str | None = None
    held_s: float = 0.0
    context_full: bool = False
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, result: ProcessResult) -> SavedExit:
        return cls(
            exit_code=result.exit_code,
            timed_out=result.timed_out,
            stopped_because=result.stopped_because,
            malformed_lines=result.malformed_lines,
            elapsed_s=result.elapsed_s,
            stderr_tail=result.stderr_tail,
            proxy_refused=list(result.proxy_refused),
            upstream_failure=result.upstream_failure,
            held_s=result.held_s,
            context_full=result.context_full,
        )

    def process_result(self) -> ProcessResult:
        """The process's end as the run saw it, to classify its saved events again."""
        return ProcessResult(
            exit_code=self.exit_code,
            timed_out=bool(self.timed_out),
            stopped_because=self.stopped_because,
            malformed_lines=int(self.malformed_lines),
            elapsed_s=float(self.elapsed_s),
            stderr_tail=self.stderr_tail,
            proxy_refused=list(self.proxy_refused),
            upstream_failure=self.upstream_failure,
            held_s=float(self.held_s),
            context_full=bool(self.context_full),
        )


@dataclass
class ItemMeta:
    argv: list[str] = field(default_factory=list)  # as run: the sandbox's wrapper around the CLI's own argv
    env_names: list[str] = field(default_factory=list)  # the names only, never the values
    cwd: str | None = None
    sandbox: str | None = None
    prompt: str = ""  # the last session's prompt, as the CLI was given it
    started_at: str | None = None  # the attempt's start
    exit: SavedExit | None = None  # None until the attempt ends (and in the first versions' files)
    schema_version: int = ITEM_META_SCHEMA_VERSION
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    def ended(self, result: ProcessResult) -> ItemMeta:
        return replace(self, exit=SavedExit.of(result))

    @classmethod
    def from_json(cls, data: object) -> ItemMeta:
        if not isinstance(data, dict):
            raise ValueError(f"an item's meta.json is a JSON object, not {type(data).__name__}")
        values = split_known(cls, data)
        saved = data.get("exit")
        values["exit"] = SavedExit(**split_known(SavedExit, saved)) if isinstance(saved, dict) and saved else None
        values.setdefault("schema_version", 1)
        return cls(**values)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = dump(self)
        return data

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> ItemMeta:
        return cls.from_json(json.loads(path.read_text(encoding="utf-8")))

    @classmethod
    def read(cls, path: Path) -> ItemMeta:
        """The item's meta.json, or an empty one where none was written (the item failed before its agent started)."""
        return cls.load(path) if path.is_file() else cls()
