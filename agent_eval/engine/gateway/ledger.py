"""What reached the model API for one item, as the gateway saw it pass.

Per request: method, path, status, the images in its body with their pixel sizes, the usage the
API itself returned, and HTTP errors with their status and message (reading.py reads them).
`summary()` sums that up for the item's record and compares it with what the CLI reported:
where the two disagree, it says so. Nothing here ever holds a credential: headers are not recorded.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field

from agent_eval.engine.gateway.traffic import AnswerReader, ImageSeen, decode, images_in, measure

REFUSED = "refused_by_gateway"  # the error `type` of a request the gateway answered itself (a spend cap)
USAGE_FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")
# One worker reads request bodies for every ledger: bounded CPU, and it never competes with forwarding.
_READER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-eval-gateway-ledger")


@dataclass
class RequestEntry:
    seq: int
    t: float  # seconds since the item's lease began
    method: str
    path: str
    request_bytes: int
    model: str | None = None
    tools_offered: int | None = None
    images: list[ImageSeen] = field(default_factory=list)
    body_note: str | None = None  # why the body could not be read, if it could not
    status: int | None = None
    first_byte_ms: float | None = None
    elapsed_ms: float | None = None
    api_usage: dict | None = None  # exactly as the API returned it
    answer_model: str | None = None  # the model the answer names (what is billed)
    cost_usd: float | None = None  # priced from api_usage (engine/gateway/spend.py); None: unpriced
    usage: dict | None = None  # normalised: USAGE_FIELDS
    error: dict | None = None  # {"status", "type", "message"}
    held_ms: float | None = None  # held at the gateway before the answer passed on: rate limits, its retries
    absorbed: list[dict] = field(default_factory=list)  # upstream answers the gateway retried (the CLI saw none)
    refused: bool = False  # answered by the gateway (the item's provider failures were counted), not sent


class Ledger:
    """Thread-safe: entries are begun and finished on the gateway's loop, bodies parsed in a pool."""

    def __init__(self):
        self.entries: list[RequestEntry] = []
        self._lock = threading.Lock()
        self._t0 = time.monotonic()
        self._reading: list[Future] = []
        self._open: set[int] = set()  # requests whose handler has not finished its bookkeeping
        self._closed = threading.Condition(self._lock)

    def begin(self, method: str, path: str, size: int) -> RequestEntry:
        with self._lock:
            entry = RequestEntry(len(self.entries) + 1, round(time.monotonic() - self._t0, 3), method, path, size)
            self.entries.append(entry)
            self._open.add(entry.seq)
        return entry

    def finish(self, entry: RequestEntry) -> None:
        """The gateway is done with this request: its answer read, priced, its body handed over."""
        with self._lock:
            self._open.discard(entry.seq)
            self._closed.notify_all()

    # -- the request body
    def read_later(self, entry: RequestEntry, body: bytes, encoding: str | None) -> None:
        with self._lock:
            self._reading.append(_READER.submit(self.read_request, entry, body, encoding))

    @staticmethod
    def read_request(entry: RequestEntry, body: bytes, encoding: str | None) -> None:
        if not body:
            return
        try:
            data = json.loads(decode(body, encoding))
        except Exception as e:  # the body was forwarded all the same
            entry.body_note = f"request not read ({encoding or 'plain'}): {type(e).__name__}"
            return
        if isinstance(data, dict):
            entry.model = data.get("model") if isinstance(data.get("model"), str) else None
            if isinstance(data.get("tools"), list):
                entry.tools_offered = len(data["tools"])
        seen: dict[str, ImageSeen] = {}
        for media_type, b64 in images_in(data):
            key = hashlib.sha1(b64.encode()).hexdigest()[:16]
            if key not in seen:
                seen[key] = measure(key, media_type, b64)
        entry.images = list(seen.values())

    # -- the response
    def response_reader(self, entry: RequestEntry, status: int, content_type: str, encoding: str | None):
        return AnswerReader(entry, status, content_type, encoding)

    # -- the item's view
    def settle(self, timeout_s: float = 10.0) -> None:
        """Wait until every request's handler is done (a CLI can act on an answer's last event before the
        gateway has written its end, priced it and handed its body over) and every body has been read."""
        with self._lock:
            self._closed.wait_for(lambda: not self._open, timeout=timeout_s)
            reading = list(self._reading)
        wait(reading)

    def to_json(self) -> dict:
        self.settle()
        with self._lock:
            return {"requests": [asdict(e) for e in self.entries]}

    def image_sizes(self) -> dict[str, tuple[int, int]]:
        """Every image that reached the API: the hash of its base64 text -> (width, height)."""
        self.settle()
        with self._lock:
            return {i.sha1: (i.width, i.height) for e in self.entries for i in e.images}

    def summary(self, cli: dict) -> dict:
        """Totals for the record, and where they disagree with the CLI's own report (`cli`: usage,
        images, error statuses, as the CLI's event stream gave them)."""
        self.settle()
        with self._lock:
            entries = list(self.entries)
        images: dict[str, dict] = {}
        for e in entries:
            for image in e.images:
                images.setdefault(
                    image.sha1,
                    {
                        "width": image.width,
                        "height": image.height,
                        "media_type": image.media_type,
                        "first_request": e.seq,
                    },
                )
        usage = {}
        for k in USAGE_FIELDS:  # None when no response carried the field (never a made-up 0)
            values = [(e.usage or {}).get(k) for e in entries]
            usage[k] = sum(v for v in values if v is not None) if any(v is not None for v in values) else None
        errors: dict[int, int] = {}
        refused: dict[int, int] = {}  # answered by the gateway itself (a spend cap), never sent upstream
        for e in entries:
            if e.error:
                counts = refused if e.error.get("type") == REFUSED else errors
                counts[e.error["status"]] = counts.get(e.error["status"], 0) + 1
        model_requests = [e for e in entries if e.method == "POST"]
        out = {
            "requests": len(entries),
            "model_requests": len(model_requests),
            "images": list(images.values()),
            "image_sizes": sorted({f"{i['width']}x{i['height']}" for i in images.values()}),
            "usage": usage,
            "http_errors": [{"status": s, "count": n} for s, n in sorted(errors.items())],
            "refused": [{"status": s, "count": n} for s, n in sorted(refused.items())],
            "unread_bodies": sum(e.body_note is not None for e in entries),
        }
        out["discrepancies"] = _discrepancies(out, cli)
        return out


def _discrepancies(gateway: dict, cli: dict) -> list[str]:
    notes = []
    for name in USAGE_FIELDS:
        ours, theirs = gateway["usage"].get(name), (cli.get("usage") or {}).get(name)
        if ours is not None and theirs is not None and ours != theirs:
            notes.append(f"{name}: the API returned {ours} in total, the CLI reported {theirs}")
    n_images = cli.get("images")
    if n_images is not None and n_images != len(gateway["images"]):
        notes.append(
            f"images: {len(gateway['images'])} distinct image(s) reached the API, the CLI's transcript shows {n_images}"
        )
    api_statuses = sorted({e["status"] for e in gateway["http_errors"] + gateway["refused"]})
    cli_statuses = sorted(set(cli.get("error_statuses") or []))
    if api_statuses != cli_statuses:
        notes.append(
            f"HTTP errors: the API{' and the spend cap' if gateway['refused'] else ''} answered "
            f"{api_statuses or 'none'}, the CLI reported {cli_statuses or 'none'}"
        )
    if gateway["unread_bodies"]:
        notes.append(
            f"{gateway['unread_bodies']} request(s) whose body or answer could not be read "
            f"(their images or usage are unknown here)"
        )
    return notes
