"""A local stand-in of the ARC-AGI-3 API, for trying and testing online and competition modes without a network.

Run by the toolkit's own interpreter (`.venv-arc`, Python >= 3.12); never imported by agent-eval:

    .venv-arc/bin/python agent_eval/benchmarks/arcgames/api_standin.py --games DIR --key SOME-KEY [--port 8001]
        [--competition] [--log requests.jsonl]

then `ARC_BASE_URL=http://127.0.0.1:8001 ARC_API_KEY=SOME-KEY agent-eval run ... --arc-mode online`.

What answers is the toolkit's own server (`arc_agi.server.create_app`, behind its `listen_and_serve`): the routes,
payloads, scorecards and competition rules its online client meets, over the games in DIR. Around it, what the
public API reference (docs.arcprize.org, "ARC-AGI-3 REST API") says of the real service and that server leaves out:
every request carries `X-API-Key` (else 401, this stand-in's choice: the real status is not documented), and an
`AWSALB` session-affinity cookie that clients must send back. Each request is logged as one JSON line (key masked),
for tests to read what the client did.

The first line on stdout is `ready http://127.0.0.1:PORT` once it listens.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import secrets
import sys
import threading

KEY_HEADER = "HTTP_X_API_KEY"
COOKIE = "AWSALB"
OPEN_PATHS = ("/api/healthcheck",)


class StandIn:
    """WSGI middleware over the toolkit's app: the key check, the affinity cookie, the request log."""

    def __init__(self, app, key: str, log_path: str | None):
        self.app, self.key = app, key
        self._log = open(log_path, "a", buffering=1, encoding="utf-8") if log_path else None
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(body)  # read once here, again by the app
        path, given = environ.get("PATH_INFO", ""), environ.get(KEY_HEADER)
        cookies = environ.get("HTTP_COOKIE", "")
        echoed = f"{COOKIE}=" in cookies
        entry = {
            "method": environ.get("REQUEST_METHOD"),
            "path": path,
            "body": self._masked(body),
            "key": "right" if given == self.key else ("missing" if given is None else "wrong"),
            "cookie_echoed": echoed,
        }
        if given != self.key and path not in OPEN_PATHS:
            entry["status"] = 401
            self._write(entry)
            data = json.dumps({"error": "AUTHENTICATION_ERROR", "message": "missing or unknown X-API-Key"}).encode()
            start_response(
                "401 UNAUTHORIZED", [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
            )
            return [data]
        status_seen: list[str] = []

        def start(status, headers, exc_info=None):
            status_seen.append(status)
            if not echoed:  # the load balancer names a backend for this client: it must come back from now on
                headers = [*headers, ("Set-Cookie", f"{COOKIE}={secrets.token_hex(8)}; Path=/")]
            return start_response(status, headers, exc_info)

        out = b"".join(self.app(environ, start))
        entry["status"] = int(status_seen[0].split()[0]) if status_seen else None
        if entry["status"] and entry["status"] >= 400:
            entry["answer"] = out.decode("utf-8", "replace")[:300]
        self._write(entry)
        return [out]

    def _masked(self, body: bytes):
        text = body.decode("utf-8", "replace").replace(self.key, "<KEY>")
        try:
            return json.loads(text) if text else None
        except ValueError:
            return text[:300]

    def _write(self, entry: dict) -> None:
        if self._log is not None:
            with self._lock:
                self._log.write(json.dumps(entry) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", required=True, help="the toolkit's environment_files layout: GAME/VERSION/metadata.json")
    ap.add_argument("--key", required=True, help="the one X-API-Key accepted")
    ap.add_argument("--port", type=int, default=0, help="0: a free port (said on the ready line)")
    ap.add_argument("--competition", action="store_true", help="the toolkit's competition rules")
    ap.add_argument("--log", help="append one JSON line per request here")
    args = ap.parse_args()
    ready = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # the toolkit logs to stdout: the ready line alone goes there
    sys.stdout = sys.stderr
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    from arc_agi import Arcade, OperationMode
    from arc_agi.server import create_app
    from werkzeug.serving import make_server

    log = logging.getLogger("arc-api-standin")
    arcade = Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=args.games, logger=log)
    app, _api = create_app(arcade, competition_mode=args.competition)
    server = make_server("127.0.0.1", args.port, StandIn(app, args.key, args.log), threaded=True)
    ready.write(f"ready http://127.0.0.1:{server.server_port}\n")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
