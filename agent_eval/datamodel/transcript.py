"""The normalised transcript: what any agent did, in one shape that show, report and compare read.

Each agent's event parser (agents/<cli>/events.py) turns its CLI's raw JSONL events into a
`Transcript`. The runner writes it as `steps.json` beside the raw `transcript.jsonl`.
Image paths are relative to the item's directory (`<run>/sandboxes/<item>/`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from agent_eval.datamodel.ondisk import dump, known_fields, split_known
from agent_eval.datamodel.records import Usage

# 1: the first steps.json; 2: received images, usage per model, the schema version itself;
# 3: the CLI sessions an item ran in (a run continued after the harness died).
TRANSCRIPT_SCHEMA_VERSION = 3
StepKind = Literal["text", "reasoning", "tool_call", "tool_result"]
STEP_KINDS: tuple[str, ...] = get_args(StepKind)


@dataclass
class Step:
    kind: StepKind
    text: str = ""  # assistant text, reasoning, or tool output text
    tool: str | None = None  # tool_call: the tool's name as the CLI reported it
    call_id: str | None = None  # pairs a tool_call with its tool_result
    input: dict[str, Any] | None = None  # tool_call: the arguments
    images: list[str] = field(default_factory=list)  # images the agent saw in this step
    is_error: bool = False
    t: float | None = None  # seconds since the agent started


@dataclass
class ReceivedImage:
    """One image as it reached the model, from what the CLI itself logged."""

    via: str  # "inline" (first message), "file_view" (Read / view_image) or "tool" (MCP)
    path: str | None = None  # the copy of what the model received, relative to the item dir
    received: list[int] | None = None  # [width, height] as received
    source: str | None = None  # the file it came from, relative to the item dir, when known
    source_size: list[int] | None = None
    at_api: list[int] | None = None  # the size in the request itself, as the run's gateway saw it (the authority)

    @property
    def size(self) -> list[int] | None:
        return self.at_api or self.received

    @property
    def reduced(self) -> bool:
        return bool(self.size and self.source_size and tuple(self.size) != tuple(self.source_size))


@dataclass
class Transcript:
    agent: str
    prompt: str = ""
    prompt_images: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    final_text: str | None = None
    usage: Usage = field(default_factory=Usage)
    usage_by_model: dict[str, dict[str, Any]] = field(default_factory=dict)
    images: list[ReceivedImage] = field(default_factory=list)
    num_turns: int | None = None
    cost_usd: float | None = None
    error: str | None = None  # the failure the CLI reported, if any
    error_status: int | None = None  # its HTTP status, when known
    api_retries: list[int | None] = field(default_factory=list)  # HTTP statuses the CLI retried on (None: no status)
    unknown_events: dict[str, int] = field(default_factory=dict)  # kept in the raw file, counted here
    # The CLI sessions, in order, when the item ran in more than one process (agents/sessions.py): each
    # {n, kind ("new"/"resume"), reason, session_id, at, first_step (index in steps)}; [] for one session.
    sessions: list[dict[str, Any]] = field(default_factory=list)
    # The CLI's own context compactions, in order: each {at (index in steps of the step it came before),
    # trigger ("auto" / "manual"), pre_tokens (the context's size before it, as the CLI counted), session (n)}.
    compactions: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # keys of a newer steps.json this version does not know: kept
    schema_version: int = TRANSCRIPT_SCHEMA_VERSION

    @property
    def tool_calls(self) -> int:
        return sum(step.kind == "tool_call" for step in self.steps)

    def to_json(self) -> dict[str, Any]:
        return dump(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Transcript":
        """Any version's steps.json: missing fields take their defaults (version 1 had no images),
        unknown ones are kept in `extra`, a step of an unknown kind is refused by name."""
        values = split_known(cls, data)
        values["steps"] = [Step(**known_fields(Step, step)) for step in data.get("steps", [])]
        for step in values["steps"]:
            if step.kind not in STEP_KINDS:
                raise ValueError(f"unknown step kind {step.kind!r} (known: {', '.join(STEP_KINDS)})")
        values["usage"] = Usage(**known_fields(Usage, data.get("usage") or {}))
        values["images"] = [ReceivedImage(**known_fields(ReceivedImage, image)) for image in data.get("images", [])]
        values.setdefault("schema_version", 1)
        return cls(**values)

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> "Transcript":
        return cls.from_json(json.loads(path.read_text(encoding="utf-8")))


def saved_events(path: Path) -> list[dict[str, Any]]:
    """The events of a transcript.jsonl ({"t", "event"} lines) or of a bare CLI stream (one event a line)."""
    events = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict) and "event" in entry and "t" in entry:
            entry = entry["event"]
        if isinstance(entry, dict) and "raw" not in entry:
            events.append(entry)
    return events
