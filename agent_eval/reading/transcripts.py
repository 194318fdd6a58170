"""One item's saved transcript and directory inside a run."""

from __future__ import annotations

import json
from pathlib import Path

from agent_eval.benchmarks.presentation import RunOnDisk
from agent_eval.datamodel.records import ItemRecord
from agent_eval.datamodel.results import RunStore
from agent_eval.datamodel.transcript import Transcript


def item_dir(run: RunOnDisk, record: ItemRecord) -> Path:
    if record.transcript:
        return (run.root / record.transcript).parent
    return RunStore(run.root).sandbox_dir(record.id, record.repeat)


def load_transcript(run: RunOnDisk, record: ItemRecord) -> tuple[Transcript | None, str | None]:
    """The normalised transcript, or None and why not."""
    path = item_dir(run, record) / "steps.json"
    if not path.is_file():
        return None, "no transcript saved for this item"
    try:
        return Transcript.load(path), None
    except (json.JSONDecodeError, TypeError, ValueError) as error:
        return None, f"{path}: unreadable transcript ({error})"
