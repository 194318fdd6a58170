"""PageHost: one game page in headless Chromium, outside the agent's sandbox, on a clock only the harness moves.

The harness side of page_host.py: starts it in its jail (jail.py), hands it the game's folder, the pinned
libraries and the seed, and speaks JSON lines to it. A kind (AI GameStore, GameWorld) opens a page, then
sends batches of steps (steps.py builds them): inputs, clock advances that may capture the canvas, page
screenshots and reads of the page's state. The game's time moves only inside an `advance` step, so the
game is paused while the model thinks, and the same steps with the same seed give the same frames.
docs/browser-host.md (and /work/coord/browser-host.md while it is built) is the kind's guide."""

from __future__ import annotations

import base64
import json
import os
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from agent_eval.browser.jail import PACKAGE_DIR, jail_argv
from agent_eval.browser.libraries import pinned_libraries

HOST_SCRIPT = PACKAGE_DIR / "page_host.py"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = (
    "--disable-gpu",
    "--enable-unsafe-swiftshader",  # WebGL in software (no GPU here)
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--mute-audio",
    "--autoplay-policy=no-user-gesture-required",
)
ORIGIN = "http://127.0.0.1:8000"  # the page's origin: a loopback address in the jail's own network, nothing listens
START_TIMEOUT_S = 120.0  # Playwright's driver and Chromium starting, on a loaded machine
STEP_TIMEOUT_S = 120.0  # a batch of steps (a WebGL capture takes ~1.3 s)
_STDERR_TAIL = 3000


class BrowserError(Exception):
    """The page host failed (Chromium did not start, a page did not load, a step failed, it died or hung): one
    line saying what."""


@dataclass(frozen=True)
class Capture:
    """A frame: the PNG as the browser encoded it (None when only hashes were asked), its size, and the hash of
    its pixels (sha256 of the RGBA bytes, 16 hex digits), which a replay checks."""

    hash: str
    width: int
    height: int
    png: bytes | None = None

    @classmethod
    def from_json(cls, data: dict) -> Capture:
        png = base64.b64decode(data["png"]) if data.get("png") else None
        return cls(data["hash"], int(data["width"]), int(data["height"]), png)


@dataclass
class Batch:
    """What one batch of steps gave: one result per step (a Capture for a capturing step, the value of an
    `eval`, None for an input or a plain advance), the clock after it, and what the page did meanwhile."""

    results: list
    clock_ms: float
    frame: int
    requests: list[dict] = field(default_factory=list)  # {"url", "outcome": site|library|missing|refused, "detail"}
    errors: list[str] = field(default_factory=list)  # the page's uncaught errors
    runaway: bool = False  # a page's timers re-armed without end at one moment: the advance was cut short
    seconds: float = 0.0  # wall time of the round trip

    @property
    def captures(self) -> list[Capture]:
        return [r for r in self.results if isinstance(r, Capture)]


def chromium_missing() -> str | None:
    """Why browser games cannot run here, or None."""
    if not CHROMIUM.exists():
        return f"browser games need Chromium at {CHROMIUM} (apt-get install chromium, or `make setup`)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "browser games need the Playwright package (`make setup` installs it from requirements.lock)"
    return None


class PageHost:
    """One page host process (one browser, one page). A context manager. `site` is the folder the page's
    origin serves (read-only); `request_log` (a file) gets every request the page made, one JSON line each."""

    def __init__(
        self,
        site: Path,
        *,
        seed: int = 0,
        viewport: tuple[int, int] = (1280, 900),
        scratch: Path,
        request_log: Path | None = None,
        libraries: dict[str, dict] | None = None,
        step_timeout_s: float = STEP_TIMEOUT_S,
    ):
        missing = chromium_missing()
        if missing:
            raise BrowserError(missing)
        self.site = Path(site).resolve()
        if not self.site.is_dir():
            raise BrowserError(f"no such folder: {self.site}")
        self.seed = int(seed)
        self.step_timeout_s = step_timeout_s
        self.request_log = Path(request_log) if request_log else None
        self.libraries = pinned_libraries() if libraries is None else libraries
        self.chromium_version: str | None = None
        scratch = Path(scratch)
        scratch.mkdir(parents=True, exist_ok=True)
        self.stderr_path = scratch / "page-host.stderr"
        readonly = [self.site, *(Path(lib["dir"]) for lib in self.libraries.values())]
        argv = [*jail_argv(readonly), sys.executable, "-I", "-B", str(HOST_SCRIPT)]
        with open(self.stderr_path, "wb") as err:
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp"},
                cwd="/",
                start_new_session=True,  # a hung host is ended with its whole process group
            )
        self._sel = selectors.DefaultSelector()
        assert self._proc.stdout is not None
        self._sel.register(self._proc.stdout, selectors.EVENT_READ)
        self._buffer = b""
        config = {
            "site": str(self.site),
            "origin": ORIGIN,
            "libraries": self.libraries,
            "seed": self.seed,
            "viewport": list(viewport),
            "chromium": str(CHROMIUM),
            "flags": list(CHROMIUM_FLAGS),
        }
        try:
            ready = self._request(config, START_TIMEOUT_S, "start-up")
            self.chromium_version = ready.get("chromium")
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> PageHost:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the interface

    def open(self, path: str) -> dict:
        """Load a page of the folder (a path relative to it, e.g. games/game1/index.html) and wait until it and
        everything it asked for has loaded; its clock stands at 0. Returns the page's title."""
        return self._request({"op": "open", "path": path}, self.step_timeout_s, f"opening {path}")

    def run(self, steps: list[dict], hashes_only: bool = False) -> Batch:
        """Run a batch of steps in order (steps.py), in one round trip."""
        started = time.perf_counter()
        answer = self._request(
            {"op": "run", "steps": steps, "hashes_only": hashes_only}, self._timeout(steps), "a step"
        )
        results = [Capture.from_json(r) if isinstance(r, dict) and "hash" in r else r for r in answer["results"]]
        return Batch(
            results,
            float(answer["clock_ms"]),
            int(answer["frame"]),
            answer.get("requests", []),
            answer.get("errors", []),
            bool(answer.get("runaway")),
            time.perf_counter() - started,
        )

    def replay(self, batches: list[list[dict]]) -> list[list[str]]:
        """Run recorded batches again (a game restored after a restart of the harness) and the hashes of the
        frames each captured, in order: the caller compares them with the record."""
        return [[c.hash for c in self.run(steps, hashes_only=True).captures] for steps in batches]

    def close(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is None or proc.poll() is not None:
            return
        try:
            assert proc.stdin is not None
            proc.stdin.write(b'{"op": "close"}\n')
            proc.stdin.flush()
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            _end_group(proc)

    # -- the wire

    def _timeout(self, steps: list[dict]) -> float:
        advanced_s = sum(float(s.get("ms", 0)) for s in steps if s.get("op") == "advance") / 1000
        return self.step_timeout_s + 2 * advanced_s  # a long catch-up (real-time mode) runs its frames

    def _request(self, request: dict, timeout_s: float, what: str) -> dict:
        proc = self._proc
        if proc.poll() is not None:
            raise BrowserError(f"the page host is gone (exit {proc.returncode}){self._stderr_tail()}")
        try:
            assert proc.stdin is not None
            proc.stdin.write((json.dumps(request) + "\n").encode())
            proc.stdin.flush()
        except OSError:
            raise BrowserError(f"the page host is gone{self._stderr_tail()}") from None
        answer = json.loads(self._line(timeout_s, what))
        self._log_requests(answer.get("requests", []))
        if "error" in answer:
            raise BrowserError(f"{what} failed in the browser: {answer['error'].splitlines()[0][:500]}")
        return answer

    def _line(self, timeout_s: float, what: str) -> bytes:
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self._sel.select(left):
                _end_group(self._proc)
                raise BrowserError(f"the browser did not answer {what} within {timeout_s:g} s (stopped)")
            assert self._proc.stdout is not None
            chunk = os.read(self._proc.stdout.fileno(), 1 << 20)
            if not chunk:
                self._proc.wait(timeout=5)
                raise BrowserError(f"the page host died during {what}{self._stderr_tail()}")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _log_requests(self, requests: list[dict]) -> None:
        if self.request_log is None or not requests:
            return
        with self.request_log.open("a", encoding="utf-8") as log:
            for entry in requests:
                log.write(json.dumps(entry) + "\n")

    def _stderr_tail(self) -> str:
        try:
            text = self.stderr_path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return ""
        lines = [line for line in text[-_STDERR_TAIL:].splitlines() if line.strip()]
        return f": {lines[-1][:400]}" if lines else ""


def _end_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
