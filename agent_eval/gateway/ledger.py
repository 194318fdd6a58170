"""What reached the model API for one item, as the gateway saw it pass.

Per request: method, path, status, the images in its body (each decoded far enough to know
its pixel size), the usage the API itself returned (from the SSE stream or a JSON body), and
HTTP errors with their status and message. `summary()` sums that up for the item's record and
compares it with what the CLI reported: where the two disagree, it says so.
Nothing here ever holds a credential: headers are not recorded.
"""
from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import io
import json
import threading
import time
import zlib
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field

from PIL import Image

try:   # Python 3.14+ reads zstd; before that such a body is forwarded all the same, and noted
    from compression import zstd as _zstd
except ImportError:
    _zstd = None

USAGE_FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")
ERROR_BODY_CHARS = 500
HEADER_B64_CHARS = 1 << 16   # enough of an image's base64 for PIL to read its size
# One worker reads request bodies for every ledger: bounded CPU, and it never competes with forwarding.
_READER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-eval-gateway-ledger")


@dataclass
class ImageSeen:
    sha1: str            # of the base64 text: the same image sent again has the same hash
    media_type: str
    width: int | None
    height: int | None
    bytes: int


@dataclass
class RequestEntry:
    seq: int
    t: float                      # seconds since the item's lease began
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
    api_usage: dict | None = None   # exactly as the API returned it
    usage: dict | None = None       # normalised: USAGE_FIELDS
    error: dict | None = None       # {"status", "type", "message"}


class Ledger:
    """Thread-safe: entries are begun and finished on the gateway's loop, bodies parsed in a pool."""

    def __init__(self):
        self.entries: list[RequestEntry] = []
        self._lock = threading.Lock()
        self._t0 = time.monotonic()
        self._reading: list[Future] = []

    def begin(self, method: str, path: str, size: int) -> RequestEntry:
        with self._lock:
            entry = RequestEntry(len(self.entries) + 1, round(time.monotonic() - self._t0, 3), method, path, size)
            self.entries.append(entry)
        return entry

    # -- the request body
    def read_later(self, entry: RequestEntry, body: bytes, encoding: str | None) -> None:
        with self._lock:
            self._reading.append(_READER.submit(self.read_request, entry, body, encoding))

    @staticmethod
    def read_request(entry: RequestEntry, body: bytes, encoding: str | None) -> None:
        if not body:
            return
        try:
            data = json.loads(_decode(body, encoding))
        except Exception as e:   # the body was forwarded all the same
            entry.body_note = f"request not read ({encoding or 'plain'}): {type(e).__name__}"
            return
        if isinstance(data, dict):
            entry.model = data.get("model") if isinstance(data.get("model"), str) else None
            if isinstance(data.get("tools"), list):
                entry.tools_offered = len(data["tools"])
        seen: dict[str, ImageSeen] = {}
        for media_type, b64 in _images(data):
            key = hashlib.sha1(b64.encode()).hexdigest()[:16]
            if key not in seen:
                seen[key] = _measure(key, media_type, b64)
        entry.images = list(seen.values())

    # -- the response
    def response_reader(self, entry: RequestEntry, status: int, content_type: str, encoding: str | None):
        return _ResponseReader(entry, status, content_type, encoding, self._t0)

    # -- the item's view
    def settle(self) -> None:
        """Wait until every request body handed over so far has been read."""
        with self._lock:
            reading = list(self._reading)
        wait(reading)

    def to_json(self) -> dict:
        self.settle()
        with self._lock:
            return {"requests": [asdict(e) for e in self.entries]}

    def summary(self, cli: dict) -> dict:
        """Totals for the record, and where they disagree with the CLI's own report (`cli`: usage,
        images, error statuses, as the CLI's event stream gave them)."""
        self.settle()
        with self._lock:
            entries = list(self.entries)
        images: dict[str, dict] = {}
        for e in entries:
            for image in e.images:
                images.setdefault(image.sha1, {"width": image.width, "height": image.height,
                                               "media_type": image.media_type, "first_request": e.seq})
        usage = {}
        for k in USAGE_FIELDS:   # None when no response carried the field (never a made-up 0)
            values = [(e.usage or {}).get(k) for e in entries]
            usage[k] = sum(v for v in values if v is not None) if any(v is not None for v in values) else None
        errors: dict[int, int] = {}
        for e in entries:
            if e.error:
                errors[e.error["status"]] = errors.get(e.error["status"], 0) + 1
        model_requests = [e for e in entries if e.method == "POST"]
        out = {
            "requests": len(entries),
            "model_requests": len(model_requests),
            "images": list(images.values()),
            "image_sizes": sorted({f"{i['width']}x{i['height']}" for i in images.values()}),
            "usage": usage,
            "http_errors": [{"status": s, "count": n} for s, n in sorted(errors.items())],
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
        notes.append(f"images: {len(gateway['images'])} distinct image(s) reached the API, "
                     f"the CLI's transcript shows {n_images}")
    api_statuses = sorted({e["status"] for e in gateway["http_errors"]})
    cli_statuses = sorted(set(cli.get("error_statuses") or []))
    if api_statuses != cli_statuses:
        notes.append(f"HTTP errors: the API answered {api_statuses or 'none'}, the CLI reported {cli_statuses or 'none'}")
    if gateway["unread_bodies"]:
        notes.append(f"{gateway['unread_bodies']} request(s) whose body or answer could not be read "
                     f"(their images or usage are unknown here)")
    return notes


class _ResponseReader:
    """Fed the response bytes as they pass; keeps only the usage and, for errors, the message.
    A plain SSE stream is read line by line as it passes; anything else (JSON, a compressed
    stream) is kept (up to 4 MB) and read at the end."""

    def __init__(self, entry: RequestEntry, status: int, content_type: str, encoding: str | None, t0: float):
        self.entry, self.encoding = entry, encoding
        self.events = "text/event-stream" in (content_type or "")
        self.live = self.events and (encoding or "identity").lower() == "identity"
        self.started = time.monotonic()
        self.first = None
        self.buffer = b""
        self.body = bytearray()
        entry.status = status

    def feed(self, chunk: bytes) -> None:
        if self.first is None:
            self.first = time.monotonic()
            self.entry.first_byte_ms = round((self.first - self.started) * 1000, 2)
        if not self.live:
            if len(self.body) < 4 << 20:
                self.body += chunk
            return
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        for line in lines:
            if line.startswith(b"data:") and (b'"usage"' in line or b'"error"' in line):
                self._event(line[5:])

    def close(self, note: str | None = None) -> None:
        self.entry.elapsed_ms = round((time.monotonic() - self.started) * 1000, 2)
        status = self.entry.status or 0
        if self.live and self.buffer.startswith(b"data:"):
            self._event(self.buffer[5:])
        elif self.body:
            raw = _safe_decode(bytes(self.body), self.encoding)
            if not raw:
                self.entry.body_note = f"response not read ({self.encoding})"
            elif self.events:
                for line in raw.split(b"\n"):
                    if line.startswith(b"data:"):
                        self._event(line[5:])
            else:
                try:
                    data = json.loads(raw)
                except ValueError:
                    data = None
                if isinstance(data, dict) and isinstance(data.get("usage"), dict):
                    self._usage(data["usage"])
                if status >= 400:
                    self._error(data.get("error") if isinstance(data, dict) else None, status,
                                raw[:ERROR_BODY_CHARS].decode(errors="replace"))
        if status >= 400 and self.entry.error is None:
            self._error(None, status)
        if note and self.entry.error is None:
            self.entry.error = {"status": status, "type": "stream", "message": note}

    def _event(self, payload: bytes) -> None:
        try:
            data = json.loads(payload)
        except ValueError:
            return
        if not isinstance(data, dict):
            return
        kind = data.get("type")
        if kind == "message_start":                       # Anthropic: input side
            self._usage((data.get("message") or {}).get("usage") or {})
        elif kind == "message_delta":                     # Anthropic: cumulative output
            self._usage(data.get("usage") or {})
        elif kind in ("response.completed", "response.incomplete", "response.failed"):   # Responses
            response = data.get("response") or {}
            if isinstance(response.get("usage"), dict):
                self._usage(response["usage"])
            if response.get("error"):
                self._error(response["error"], self.entry.status or 200)
        elif kind == "error":                             # an error inside a 200 stream
            self._error(data.get("error") or data, self.entry.status or 200)

    def _usage(self, usage: dict) -> None:
        raw = dict(self.entry.api_usage or {})
        raw.update({k: v for k, v in usage.items() if v is not None})
        self.entry.api_usage = raw
        self.entry.usage = normalise_usage(raw)

    def _error(self, error, status: int, text: str | None = None) -> None:
        error = error if isinstance(error, dict) else {}
        message = error.get("message") or text or ""
        self.entry.error = {"status": status, "type": error.get("type") or error.get("code"),
                            "message": str(message)[:ERROR_BODY_CHARS]}


def normalise_usage(raw: dict) -> dict:
    """Anthropic (input + cache read + cache creation) or Responses usage, in the records' shape."""
    if "cache_read_input_tokens" in raw or "cache_creation_input_tokens" in raw:
        cached = raw.get("cache_read_input_tokens") or 0
        fresh = (raw.get("input_tokens") or 0) + (raw.get("cache_creation_input_tokens") or 0)
        return {"input_tokens": fresh + cached, "cached_input_tokens": cached,
                "output_tokens": raw.get("output_tokens"), "reasoning_tokens": None}
    return {"input_tokens": raw.get("input_tokens"),
            "cached_input_tokens": (raw.get("input_tokens_details") or {}).get("cached_tokens"),
            "output_tokens": raw.get("output_tokens"),
            "reasoning_tokens": (raw.get("output_tokens_details") or {}).get("reasoning_tokens")}


def _decode(body: bytes, encoding: str | None) -> bytes:
    encoding = (encoding or "").lower()
    if encoding == "zstd" and _zstd is not None:   # Codex compresses to the ChatGPT backend
        return _zstd.decompress(body)
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "deflate":
        return zlib.decompress(body)
    if encoding in ("", "identity"):
        return body
    raise OSError(f"unsupported content-encoding {encoding}")


def _safe_decode(body: bytes, encoding: str | None) -> bytes:
    try:
        return _decode(body, encoding)
    except Exception:   # any codec's error: the ledger notes it, forwarding never depends on it
        return b""


def _images(value):
    """(media type, base64) of every image in an Anthropic or Responses request body."""
    if isinstance(value, dict):
        source = value.get("source")
        if value.get("type") == "image" and isinstance(source, dict) and source.get("type") == "base64":
            yield source.get("media_type") or "", source.get("data") or ""
            return
        for v in value.values():
            yield from _images(v)
    elif isinstance(value, list):
        for v in value:
            yield from _images(v)
    elif isinstance(value, str) and value.startswith("data:image/"):
        head, _, data = value.partition(",")
        yield head[5:].split(";")[0], data


def _measure(key: str, media_type: str, b64: str) -> ImageSeen:
    """The size from the first 64 KB of the image (its header); the whole image only if that fails."""
    b64 = b64.strip()
    size = len(b64) * 3 // 4 - b64[-2:].count("=")
    width = height = None
    for text in (b64[:HEADER_B64_CHARS], b64) if len(b64) > HEADER_B64_CHARS else (b64,):
        try:
            with Image.open(io.BytesIO(base64.b64decode(text, validate=False))) as image:
                width, height = image.size
            break
        except (binascii.Error, ValueError, OSError):
            continue
    return ImageSeen(key, media_type, width, height, size)
