"""One item's gateway record: `sandboxes/<id>/gateway.json` in full, a compact summary for the record."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

from ..transcript import Transcript
from .server import Lease


def cli_reported(transcript: Transcript, item_root: Path) -> dict:
    """What the CLI's own event stream says reached the API: usage, distinct images, error statuses."""
    paths = list(transcript.prompt_images) + [p for step in transcript.steps for p in step.images]
    digests = set()
    for rel in paths:
        try:
            digests.add(hashlib.sha1((item_root / rel).read_bytes()).hexdigest())
        except OSError:
            digests.add(rel)
    statuses = list(transcript.api_retries) + ([transcript.error_status] if transcript.error_status else [])
    return {"usage": asdict(transcript.usage), "images": len(digests), "error_statuses": statuses}


def record_item(lease: Lease, item_root: Path, transcript: Transcript) -> dict:
    """Writes gateway.json; returns the summary the ItemRecord keeps (images as sizes only)."""
    cli = cli_reported(transcript, item_root)
    summary = lease.ledger.summary(cli)
    (item_root / "gateway.json").write_text(json.dumps(
        {"summary": summary, "cli_reported": cli, **lease.ledger.to_json()}, indent=1))
    compact = {k: v for k, v in summary.items() if k != "images"}
    compact["images"] = len(summary["images"])
    return compact
