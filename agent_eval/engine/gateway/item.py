"""One item's gateway record: `sandboxes/<id>/gateway.json` (the summary over every session) beside the
requests in gateway.jsonl (datamodel/gateway_journal.py), and a compact summary for the record."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import asdict
from pathlib import Path

from agent_eval.datamodel.gateway_journal import FORMAT, LINES, LOG
from agent_eval.datamodel.pricing import data_version
from agent_eval.datamodel.records import GRADED_STATUSES, ItemRecord
from agent_eval.datamodel.transcript import Transcript
from agent_eval.engine.gateway.server import Lease


def cli_reported(transcript: Transcript, item_root: Path) -> dict:
    """What the CLI's own event stream says reached the API: usage, distinct images, error statuses."""
    paths = list(transcript.prompt_images) + [p for step in transcript.steps for p in step.images]
    digests = set()
    for rel in paths:
        try:
            digests.add(hashlib.sha1((item_root / rel).read_bytes()).hexdigest())
        except OSError:
            digests.add(rel)
    # A retry after a connection error carries no status (None): only HTTP statuses compare.
    statuses = [s for s in transcript.api_retries if s is not None] + (
        [transcript.error_status] if transcript.error_status else []
    )
    return {"usage": asdict(transcript.usage), "images": len(digests), "error_statuses": statuses}


def confirm_received(transcript: Transcript, item_root: Path, at_api: dict[str, tuple[int, int]]) -> list[str]:
    """The gateway is the authority on pixels: each image the CLI's logs say it sent gets `at_api`, the
    size the gateway saw in a request (matched by the hash of its base64 text). Returns what disagrees."""
    notes = []
    for image in transcript.images:
        if image.path is None:
            continue
        try:
            data = (item_root / image.path).read_bytes()
        except OSError:
            continue
        size = at_api.get(hashlib.sha1(base64.b64encode(data)).hexdigest()[:16])
        image.at_api = list(size) if size else None
        if size is None:
            notes.append(f"{image.path}: the CLI's logs show it sent, but no request held these bytes")
        elif image.received and list(size) != list(image.received):
            notes.append(
                f"{image.path}: the CLI's logs show {image.received[0]}x{image.received[1]}, "
                f"the API received {size[0]}x{size[1]}"
            )
    return notes


def cost_disagreement(priced: float | None, cli: float | None, price_data: str | None = None) -> list[str]:
    """Where the CLI's own cost (Claude Code reports one) and the gateway's price of the API's usage
    differ by more than a cent's hundredth and 1%; `price_data`: what priced it (default: the map)."""
    if priced is None or cli is None or abs(priced - cli) <= max(0.0001, 0.01 * max(priced, cli)):
        return []
    return [
        f"cost: the API's usage prices at ${priced:.6f} ({price_data or data_version()}), the CLI reported ${cli:.6f}"
    ]


def record_item(lease: Lease, item_root: Path, transcript: Transcript) -> dict:
    """Writes gateway.json (and gateway.jsonl, for a ledger kept in memory); returns the summary the ItemRecord
    keeps (images as sizes only)."""
    lease.ledger.write_all(item_root)
    cli = cli_reported(transcript, item_root)
    summary = lease.ledger.summary(cli)
    summary["discrepancies"] += confirm_received(transcript, item_root, lease.ledger.image_sizes())
    summary["cost"] = {**lease.spend.to_json(), "cli_usd": transcript.cost_usd}
    summary["discrepancies"] += cost_disagreement(
        summary["cost"]["usd"], transcript.cost_usd, summary["cost"]["price_data"]
    )
    whole = {"format": FORMAT, "summary": summary, "cli_reported": cli, "requests_file": LINES}
    (item_root / LOG).write_text(json.dumps(whole, indent=1))
    summary["upstream"] = {**lease.upstream.to_json(), "held_s": round(lease.upstream.held_s(), 3)}
    if lease.usage is not None:  # the part of those holds spent waiting for a subscription's window to reset
        summary["upstream"]["usage_wait_s"] = round(lease.upstream.held_s(within=lease.usage.windows), 3)
    compact = {k: v for k, v in summary.items() if k != "images"}
    compact["images"] = len(summary["images"])
    return compact


def past_usage_bound(record: ItemRecord) -> bool:
    """Whether the item's attempt met a subscription's usage limit whose window resets past --quota-wait-hours:
    another attempt in this run would be refused the same (the run waits no longer than that); a resume goes on."""
    return bool(((record.gateway or {}).get("upstream") or {}).get("usage_refused"))


def apply_spend(record: ItemRecord) -> ItemRecord:
    """What the gateway's spend decides in the record: its cost is the gateway's price of the usage the
    API returned (the same for both CLIs; the CLI's own stays in `gateway.cost.cli_usd`), and an item
    the gateway stopped at a spend cap is `budget_exceeded` unless it was graded all the same. A
    record without the gateway's cost (an older version's) keeps the CLI's."""
    cost = (record.gateway or {}).get("cost")
    if not cost:
        return record
    answered = cost["priced_requests"] + cost["unpriced_requests"] + cost["requests_without_usage"]
    record.cost_usd = cost["usd"] if answered else 0.0  # no answer came back: nothing was billed
    if cost.get("refused") and record.status not in GRADED_STATUSES:
        record.status, record.correct, record.prediction = "budget_exceeded", False, ""
        record.error = f"stopped at the gateway: {cost['refused']} (run again with a higher cap to finish it)"
    return record
