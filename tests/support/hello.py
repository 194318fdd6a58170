"""A tiny HTTP server for sandbox network tests: answers every GET with its marker."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler


class Hello(BaseHTTPRequestHandler):
    def do_GET(self):
        body = self.server.marker.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass
