"""A stand-in provider for the gateway's ledger tests: every POST is answered with a short Anthropic SSE
stream carrying usage (input 7 + 3 cached, output 11); a path with `hang` is never answered."""

from __future__ import annotations

import base64
import io
import json
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image

REAL = "sk-ant-REAL-" + "x" * 24


def png_b64(width, height) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (10, 20, 30)).save(buffer, "PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def post(url, body: dict, headers: dict):
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json", **headers}
    )
    return urllib.request.urlopen(request, timeout=10)


class Answers(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if "hang" in self.path:
            time.sleep(30)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        usage = {"input_tokens": 7, "cache_read_input_tokens": 3, "cache_creation_input_tokens": 0, "output_tokens": 1}
        start = {"type": "message_start", "message": {"usage": usage}}
        delta = {"type": "message_delta", "usage": {"output_tokens": 11}}
        self.wfile.write(f"event: message_start\ndata: {json.dumps(start)}\n\n".encode())
        self.wfile.write(f"event: message_delta\ndata: {json.dumps(delta)}\n\n".encode())
        self.wfile.write(b'event: message_stop\ndata: {"type": "message_stop"}\n\n')


def serve() -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Answers)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()  # shutdown waits a poll
    return server
