"""Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`), stdlib only.

For pages that load their data over the network after start-up (Inspect's viewer), where
`--dump-dom` with a virtual time budget returns before anything arrived: here the test waits in
real time for a condition evaluated in the page, then reads the DOM or takes a screenshot.
"""

from __future__ import annotations

import base64
import json
import os
import select
import subprocess
import time
from pathlib import Path

from support.browser import CHROMIUM


class Browser:
    def __init__(self, profile: Path, width: int = 1400, height: int = 1000):
        # Chromium reads commands on fd 3 and writes replies on fd 4, each message ending in NUL.
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def wire():  # in the child: the pipe ends at exactly fds 3 and 4 (dup first, so neither clobbers the other)
            read_end, write_end = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-sync",
                "--disable-background-networking",
                "--disable-component-update",
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            pass_fds=(3, 4),
            preexec_fn=wire,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer, self._next_id, self.session = b"", 0, None
        self.console_errors: list[str] = []  # exceptions the page threw
        self.console_logged: list[str] = []  # what it wrote with console.error / console.warn (to explain a failure)
        self.requests: dict[str, dict] = {}  # request id -> url, status, done: which request a stuck page waits on
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Runtime.enable")
        self.call("Page.enable")
        self.call("Network.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def call(self, method: str, timeout: float = 30, **params) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("method") == "Runtime.exceptionThrown":
                self.console_errors.append(json.dumps(reply["params"]["exceptionDetails"])[:500])
            self._track(reply)
            logged = reply.get("method") == "Runtime.consoleAPICalled"
            if logged and reply["params"].get("type") in ("error", "warning"):
                args = reply["params"].get("args") or []
                self.console_logged.append(" ".join(str(a.get("value", a.get("description", ""))) for a in args)[:500])
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _track(self, event: dict) -> None:
        method, params = event.get("method", ""), event.get("params", {})
        if method == "Network.requestWillBeSent" and not params["request"]["url"].startswith("data:"):
            self.requests[params["requestId"]] = {"url": params["request"]["url"], "status": None, "done": False}
        elif method == "Network.responseReceived" and params["requestId"] in self.requests:
            self.requests[params["requestId"]]["status"] = params["response"]["status"]
        elif method in ("Network.loadingFinished", "Network.loadingFailed") and params["requestId"] in self.requests:
            self.requests[params["requestId"]]["done"] = params.get("errorText", True)

    def unfinished_requests(self) -> list[str]:
        """Requests the page sent that have not finished, or failed, or were answered with an error status."""
        return [
            f"{r['url']} status={r['status']} done={r['done']}"
            for r in self.requests.values()
            if r["done"] is not True or (r["status"] or 0) >= 400
        ]

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chrome], [], [], left)[0]:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def goto(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = 60, every: float = 0.25):
        """Poll a JS expression until it is truthy; its value, or TimeoutError with the page's text."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(every)
        text = self.evaluate("document.body ? document.body.innerText.slice(0, 1500) : ''")
        logged = "\n".join(self.console_logged[-20:])
        waiting = "\n".join(self.unfinished_requests()[-20:])
        raise TimeoutError(
            f"page never satisfied {expression!r}; it shows:\n{text}\nits console said:\n{logged}\n"
            f"requests unfinished or failed:\n{waiting}"
        )

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
