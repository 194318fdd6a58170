"""What reached the model API for one item, as the gateway saw it pass.

Per request: method, path, status, the images in its body with their pixel sizes, the usage the
API itself returned, and HTTP errors with their status and message (reading.py reads them).
`summary()` sums that up for the item's record and compares it with what the CLI reported:
where the two disagree, it says so. Nothing here ever holds a credential: headers are not recorded.

Given the item's folder, each request is appended to gateway.jsonl as it finishes (datamodel/gateway_journal.py) and
then dropped from memory: what the ledger keeps grows with the item's distinct images, not its
requests. A ledger opened over a folder that already holds requests (an earlier session of the same
item, ended by a crash) goes on from them: numbers, images and totals cover every session.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from agent_eval.datamodel.gateway_journal import LINES, read_lines
from agent_eval.datamodel.jsonl import open_log
from agent_eval.datamodel.pricing import PART_NAMES
from agent_eval.engine.gateway.prefix import PrefixTracker, fingerprint
from agent_eval.engine.gateway.traffic import AnswerReader, ImageSeen, decode, images_in, measure, wire_of

REFUSED = "refused_by_gateway"  # the error `type` of a request the gateway answered itself (a spend cap)
USAGE_FIELDS = ("input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens")
MAX_BREAKS_LISTED = 200  # in the item's record (gateway.jsonl keeps each with its request)
IMAGE_FIELDS = tuple(ImageSeen.__dataclass_fields__)
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
    images: list[ImageSeen] = field(default_factory=list)  # in memory only; the file lists each image once
    image_blocks: int = 0  # the image blocks its body carries, repeats included (what an API's image limit counts)
    body_note: str | None = None  # why the body could not be read, if it could not
    status: int | None = None
    first_byte_ms: float | None = None
    elapsed_ms: float | None = None
    api_usage: dict | None = None  # exactly as the API returned it
    answer_model: str | None = None  # the model the answer names (what is billed)
    cost_usd: float | None = None  # priced from api_usage (engine/gateway/spend.py); None: unpriced
    cost_note: str | None = None  # why it is unpriced
    cost_source: str | None = None  # what priced it: genai-prices' version or the user's $AGENT_EVAL_PRICING file
    cost_parts: dict | None = None  # its price split: fresh_input, cache_read, cache_write, output (pricing.PriceParts)
    prefix_break: dict | None = None  # where its prompt left its session's previous one, and why (prefix.py)
    usage: dict | None = None  # normalised: USAGE_FIELDS
    error: dict | None = None  # {"status", "type", "message"}
    held_ms: float | None = None  # held at the gateway before the answer passed on: rate limits, its retries
    absorbed: list[dict] = field(default_factory=list)  # upstream answers the gateway retried (the CLI saw none)
    refused: bool = False  # answered by the gateway (the item's provider failures were counted), not sent
    session: int = 1  # which lease over the item's folder sent it
    new_images: list[ImageSeen] = field(default_factory=list)  # its images no earlier request of the item carried
    read_ms: float | None = None  # the ledger's CPU time reading its body (its own thread, off the answer's path)


def line_of(entry: RequestEntry) -> dict:
    """A request as gateway.jsonl keeps it: its new images in full, the others counted."""
    line = asdict(entry)
    del line["images"]
    line["image_count"] = len(entry.images)
    return line


@dataclass
class Tally:
    """The item's totals, folded in one request line at a time (from this session or an earlier one)."""

    requests: int = 0
    model_requests: int = 0
    images: dict[str, dict] = field(default_factory=dict)  # sha1 -> width, height, media_type, first_request
    usage: dict[str, int | None] = field(default_factory=lambda: dict.fromkeys(USAGE_FIELDS))
    errors: dict[int, int] = field(default_factory=dict)
    refused: dict[int, int] = field(default_factory=dict)  # answered by the gateway itself, never sent upstream
    unread_bodies: int = 0
    last_seq: int = 0
    sessions: int = 0
    cost_parts: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PART_NAMES, 0.0))  # priced answers'
    breaks: list[dict] = field(default_factory=list)  # every prefix break: its request, cause and place
    unpriced: int = 0  # answers with usage that no price priced (their parts are unknown)

    def add(self, line: dict) -> None:
        self.requests += 1
        self.model_requests += line.get("method") == "POST"
        self.last_seq = max(self.last_seq, line.get("seq") or 0)
        self.sessions = max(self.sessions, line.get("session") or 1)
        for image in line.get("new_images") or []:
            self.images.setdefault(
                image["sha1"],
                {
                    "width": image.get("width"),
                    "height": image.get("height"),
                    "media_type": image.get("media_type"),
                    "first_request": line.get("seq"),
                },
            )
        for k in USAGE_FIELDS:  # None when no response carried the field (never a made-up 0)
            value = (line.get("usage") or {}).get(k)
            if value is not None:
                self.usage[k] = (self.usage[k] or 0) + value
        error = line.get("error")
        if error:
            counts = self.refused if error.get("type") == REFUSED else self.errors
            counts[error["status"]] = counts.get(error["status"], 0) + 1
        self.unread_bodies += line.get("body_note") is not None
        for name, usd in (line.get("cost_parts") or {}).items():
            self.cost_parts[name] = self.cost_parts.get(name, 0.0) + usd
        self.unpriced += bool(line.get("api_usage")) and line.get("cost_usd") is None
        if line.get("prefix_break"):
            self.breaks.append({"seq": line.get("seq"), "session": line.get("session") or 1, **line["prefix_break"]})


class Ledger:
    """Thread-safe: entries are begun and finished on the gateway's loop, bodies parsed in a pool.

    `item_root`: the item's folder, where each finished request is appended (and, with `earlier`, where the
    requests of earlier sessions are read back: `earlier` gets each of their lines, e.g. to restore the spend).
    `compaction_prompt`: the CLI's, for the prefix accounting (prefix.py).
    Without it the entries stay in memory (`entries`), as for a throwaway ledger or a test."""

    def __init__(
        self,
        item_root: Path | None = None,
        earlier: Callable[[dict], None] | None = None,
        compaction_prompt: str | None = None,
    ):
        self.entries: list[RequestEntry] = []  # without a folder: all; with one: those not written yet
        self.tally = Tally()  # every session's requests
        self.current = Tally()  # this session's
        self._lock = threading.Lock()
        self._t0 = time.monotonic()
        self._open: set[int] = set()  # requests whose handler has not finished its bookkeeping
        self._unread: set[int] = set()  # requests whose body is still being read
        self._forced: set[int] = set()  # written by settle() while still open: never written again
        # Every image the item's requests carried, measured once (only the one reader thread touches it).
        self._known: dict[str, ImageSeen] = {}
        self._closed = threading.Condition(self._lock)
        self._file = None
        if item_root is not None:
            path = Path(item_root) / LINES
            path.parent.mkdir(parents=True, exist_ok=True)
            for line in read_lines(path):
                self.tally.add(line)
                for image in line.get("new_images") or []:
                    self._known.setdefault(image["sha1"], ImageSeen(**{k: image.get(k) for k in IMAGE_FIELDS}))
                if earlier is not None:
                    earlier(line)
            self._file = open_log(path)  # after a line cut by a kill, the next one starts on its own line
        self.session = self.tally.sessions + 1
        # Each CLI session's last prompt, as hashes: where the next one breaks its prefix (None: not accounted).
        self.prefix: PrefixTracker | None = PrefixTracker(resumed=self.tally.requests > 0)
        self.compaction_prompt = compaction_prompt  # the CLI's (Agent.compaction_prompt): its summary request
        # Told each answer's normalised usage as it streams by (e.g. a game that hands off when the context is
        # full).
        self.on_usage: Callable[[dict], None] | None = None
        # Told as each model request begins (before it goes upstream): the results of every tool call the CLI
        # made since its last request are in it, on their way to the model (a game's one action per observation).
        self.on_model_request: Callable[[], None] | None = None
        # Asked as each model request begins (ItemSetup.turn_over): True holds it, and `turn_held` tells the
        # session's watch to stop the session (its turn is over); cleared as each session starts.
        self.turn_over: Callable[[], bool] | None = None
        self.turn_held = False
        # Told the image blocks each request body carries and when the request began (time.monotonic), once the
        # body is read (e.g. a game's cap on the images of one agent session).
        self.on_request_images: Callable[[int, float], None] | None = None

    def model_request_began(self) -> bool:
        """True: hold this request (the session's turn is over)."""
        if self.on_model_request is not None:
            self.on_model_request()
        if self.turn_over is not None and self.turn_over():
            self.turn_held = True
        return self.turn_held

    def begin(self, method: str, path: str, size: int) -> RequestEntry:
        with self._lock:
            self.tally.last_seq += 1
            t = round(time.monotonic() - self._t0, 3)
            entry = RequestEntry(self.tally.last_seq, t, method, path, size, session=self.session)
            self.entries.append(entry)
            self._open.add(entry.seq)
        return entry

    def finish(self, entry: RequestEntry) -> None:
        """The gateway is done with this request: its answer read, priced, its body handed over."""
        with self._lock:
            if entry.seq in self._open:
                self._open.discard(entry.seq)
                if entry.seq not in self._unread and entry.seq not in self._forced:
                    self._done(entry)
            self._closed.notify_all()

    def _done(self, entry: RequestEntry) -> None:
        """Answered and its body read: into the totals and the file (then out of memory). Under the lock."""
        line = line_of(entry)
        self.tally.add(line)
        self.current.add(line)
        if self._file is not None:
            self._file.write(json.dumps(line, separators=(",", ":")) + "\n")
            self._file.flush()  # in the kernel's hands: a SIGKILL of the harness does not lose it
            self.entries.remove(entry)

    # -- the request body
    def read_later(self, entry: RequestEntry, chunks: list[bytes], encoding: str | None) -> None:
        """The body as it came in chunks: they are joined here, on the reader's thread, not the gateway's loop."""
        with self._lock:
            self._unread.add(entry.seq)
        _READER.submit(self._read, entry, chunks, encoding)

    def _read(self, entry: RequestEntry, chunks: list[bytes], encoding: str | None) -> None:
        started = time.thread_time()
        try:
            self.read_request(entry, b"".join(chunks), encoding)
        finally:
            entry.read_ms = round((time.thread_time() - started) * 1000, 2)
            with self._lock:
                self._unread.discard(entry.seq)
                if entry.seq not in self._open and entry.seq not in self._forced:
                    self._done(entry)
                self._closed.notify_all()

    def read_request(self, entry: RequestEntry, body: bytes, encoding: str | None) -> None:
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
            if self.prefix is not None and wire_of(entry.method, entry.path) is not None:
                found = fingerprint(data, self.compaction_prompt)
                if found is not None:
                    brk = self.prefix.observe(entry.seq, found)
                    entry.prefix_break = brk.to_json() if brk else None
        seen: dict[str, ImageSeen] = {}
        for media_type, b64 in images_in(data):
            entry.image_blocks += 1
            key = hashlib.sha1(b64.encode()).hexdigest()[:16]
            if key in seen:
                continue
            known = self._known.get(key)  # measured once per item: a game's context holds the same frames
            if known is None:
                known = self._known[key] = measure(key, media_type, b64)
                entry.new_images.append(known)
            seen[key] = known
        entry.images = list(seen.values())
        if self.on_request_images is not None:
            self.on_request_images(entry.image_blocks, self._t0 + entry.t)

    # -- the response
    def response_reader(self, entry: RequestEntry, status: int, content_type: str, encoding: str | None):
        return AnswerReader(entry, status, content_type, encoding, on_usage=self._usage_read)

    def _usage_read(self, usage: dict) -> None:
        """As the answer streams by, before the CLI sees the event (not when the request's body has been read
        too, later, in the pool): a tool the CLI calls on this answer already knows the context it reported."""
        if self.on_usage is not None:
            self.on_usage(usage)

    # -- the item's view
    def settle(self, timeout_s: float = 10.0) -> None:
        """Wait until every request's handler is done (a CLI can act on an answer's last event before the
        gateway has written its end, priced it and handed its body over) and every body has been read;
        a request still open then is written as it stands."""
        with self._lock:
            self._closed.wait_for(lambda: not self._open, timeout=timeout_s)
            self._closed.wait_for(lambda: not self._unread, timeout=max(60.0, timeout_s))
            for entry in [e for e in self.entries if e.seq in self._open and e.seq not in self._unread]:
                self._open.discard(entry.seq)
                self._forced.add(entry.seq)
                self._done(entry)

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def write_all(self, item_root: Path) -> None:
        """A ledger kept in memory, written to the item's gateway.jsonl at its end."""
        self.settle()
        with self._lock:
            if self._file is None:
                with (Path(item_root) / LINES).open("w", encoding="utf-8") as out:
                    for entry in self.entries:
                        out.write(json.dumps(line_of(entry), separators=(",", ":")) + "\n")

    def image_sizes(self) -> dict[str, tuple[int, int]]:
        """Every image that reached the API: the hash of its base64 text -> (width, height)."""
        self.settle()
        with self._lock:
            return {sha: (i["width"], i["height"]) for sha, i in self.tally.images.items()}

    def summary(self, cli: dict) -> dict:
        """Totals for the record over every session, and where they disagree with the CLI's own report
        (`cli`: usage, images, error statuses, as the CLI's event stream gave them). After a resume the CLI's
        report may cover its last session only: a disagreement is noted only if it holds for the whole and
        for this session alone."""
        self.settle()
        with self._lock:
            out = _view(self.tally)
            now = _view(self.current) if self.tally.sessions > 1 else None
        notes = _notes(out, cli)
        if now is not None:
            alone = _notes(now, cli)
            notes = {k: v for k, v in notes.items() if k in alone}
        out["discrepancies"] = list(notes.values())
        return out


def _view(t: Tally) -> dict:
    return {
        "requests": t.requests,
        "model_requests": t.model_requests,
        "images": list(t.images.values()),
        "image_sizes": sorted({f"{i['width']}x{i['height']}" for i in t.images.values()}),
        "usage": dict(t.usage),
        "http_errors": [{"status": s, "count": n} for s, n in sorted(t.errors.items())],
        "refused": [{"status": s, "count": n} for s, n in sorted(t.refused.items())],
        "unread_bodies": t.unread_bodies,
        "sessions": max(t.sessions, 1),
        "cache": cache_view(t),
    }


def cache_view(t: Tally) -> dict:
    """The input read from the provider's prompt cache, written to it and fresh, each priced apart, and every place
    where a request's prompt stopped extending its session's previous one (prefix.py), by cause."""
    usage = t.usage
    read, written = usage.get("cached_input_tokens"), usage.get("cache_write_tokens")
    total = usage.get("input_tokens")
    fresh = None if total is None else total - (read or 0) - (written or 0)
    causes: dict[str, int] = {}
    for found in t.breaks:
        causes[found["cause"]] = causes.get(found["cause"], 0) + 1
    return {
        "read_tokens": read,
        "write_tokens": written,
        "fresh_tokens": fresh,
        "usd": None if t.unpriced else {k: round(v, 6) for k, v in t.cost_parts.items()},  # None: partly unpriced
        "breaks": causes,
        "break_list": t.breaks[:MAX_BREAKS_LISTED],
    }


def _notes(gateway: dict, cli: dict) -> dict[str, str]:
    """Each disagreement by what it is about (a usage field, images, errors, unread bodies): one sentence."""
    notes = {}
    for name in USAGE_FIELDS:
        ours, theirs = gateway["usage"].get(name), (cli.get("usage") or {}).get(name)
        if ours is not None and theirs is not None and ours != theirs:
            notes[name] = f"{name}: the API returned {ours} in total, the CLI reported {theirs}"
    n_images = cli.get("images")
    if n_images is not None and n_images != len(gateway["images"]):
        notes["images"] = (
            f"images: {len(gateway['images'])} distinct image(s) reached the API, the CLI's transcript shows {n_images}"
        )
    api_statuses = sorted({e["status"] for e in gateway["http_errors"] + gateway["refused"]})
    cli_statuses = sorted(set(cli.get("error_statuses") or []))
    if api_statuses != cli_statuses:
        notes["errors"] = (
            f"HTTP errors: the API{' and the spend cap' if gateway['refused'] else ''} answered "
            f"{api_statuses or 'none'}, the CLI reported {cli_statuses or 'none'}"
        )
    if gateway["unread_bodies"]:
        notes["unread"] = (
            f"{gateway['unread_bodies']} request(s) whose body or answer could not be read "
            f"(their images or usage are unknown here)"
        )
    return notes
