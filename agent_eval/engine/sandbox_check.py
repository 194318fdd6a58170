"""`agent-eval doctor`'s sandbox checks: is the sandbox usable here (bwrap, socat, tinyproxy, user
namespaces), and does it hold (the dataset, project and home hidden; the network only to the allowed
endpoint; the tools' Python importable)? Each check runs a real Sandbox around a canary."""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import tempfile
import threading
from pathlib import Path

from agent_eval.datamodel.sandbox_policy import PROJECT_ROOT, SandboxError, load_policy
from agent_eval.engine.sandbox import DoctorCheck, Sandbox, SandboxSpec, find_tool


def check_sandbox() -> list[DoctorCheck]:
    """For `agent-eval doctor`: is the sandbox usable here, and does it hold?"""
    try:
        for tool in ("bwrap", "socat", "tinyproxy"):
            find_tool(tool)
    except SandboxError as e:
        return [
            DoctorCheck(
                "sandbox: bwrap, socat, tinyproxy installed",
                False,
                str(e),
                "sudo apt-get install bubblewrap socat tinyproxy-bin (or make setup)",
            )
        ]
    checks: list[DoctorCheck] = []
    with (
        tempfile.TemporaryDirectory(prefix="agent-eval-doctor-", dir=os.path.realpath(Path.home())) as t,
        _PortListener() as allowed,
        _PortListener() as other,
    ):
        root = Path(t)
        for d in ("item/work", "item/home", "dataset"):
            (root / d).mkdir(parents=True)
        canary = "agent-eval-doctor-canary-7f3a"
        (root / "dataset" / "answer.txt").write_text(canary)
        spec = SandboxSpec(root / "item/work", root / "item/home", endpoints=[f"127.0.0.1:{allowed.port}"])

        def run(sb: Sandbox, cmd: str) -> subprocess.CompletedProcess:
            argv, env = sb.wrap(["/bin/bash", "-lc", cmd])
            return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, pass_fds=sb.pass_fds)

        try:
            with Sandbox(spec) as sb:
                r = run(sb, "id -u")
                uid = str(load_policy()["user"]["uid"])
                checks.append(
                    DoctorCheck(
                        "sandbox: bwrap runs as a non-root user (user namespaces)",
                        r.returncode == 0 and r.stdout.strip() == uid,
                        (r.stdout + r.stderr).strip()[-300:] or f"uid {uid}",
                        "enable unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1 "
                        "(on Ubuntu 24.04+ also kernel.apparmor_restrict_unprivileged_userns=0)",
                    )
                )
                if not checks[-1].ok:
                    return checks
                q = shlex.quote
                r = run(
                    sb,
                    f"cat {q(str(root / 'dataset/answer.txt'))} {q(str(PROJECT_ROOT / 'pyproject.toml'))}; "
                    f"ls -A {q(str(root))} {q(str(PROJECT_ROOT))}",
                )
                leaked = [w for w in (canary, "[project]", "dataset", "pyproject") if w in r.stdout]
                checks.append(
                    DoctorCheck(
                        "sandbox: dataset, project checkout and real home are hidden",
                        not leaked,
                        f"visible inside: {leaked}" if leaked else "a canary outside the workdir stayed unreadable",
                        "look for a bind in sandbox/policy.yaml that covers them",
                    )
                )
                probe = (
                    "import socket, urllib.request as u\n"
                    "def get(url):\n"
                    "    try: u.urlopen(url, timeout=5); return 1\n"
                    "    except Exception as e: return int(getattr(e, 'code', 0) == 200)\n"
                    "def raw(host, port):\n"
                    "    try: socket.create_connection((host, port), 2).close(); return 1\n"
                    "    except OSError: return 0\n"
                    f"print(get('http://127.0.0.1:{allowed.port}/'), get('http://127.0.0.1:{other.port}/'),"
                    f" raw('127.0.0.1', {other.port}), raw('1.1.1.1', 443))\n"
                )
                r = run(sb, f"python3 -c {q(probe)}")
                got = r.stdout.split()
                checks.append(
                    DoctorCheck(
                        "sandbox: network reaches only the allowed endpoint",
                        got == ["1", "0", "0", "0"],
                        f"allowed, other local port via proxy, other directly, outside = "
                        f"{got or r.stderr.strip()[-200:]} (want 1 0 0 0)",
                        "check that socat and tinyproxy-bin are installed",
                    )
                )
                mods = ", ".join(load_policy()["tool_python"]["must_import"])
                r = run(sb, f"python3 -c 'import sys, {mods}; print(sys.executable)'")
                checks.append(
                    DoctorCheck(
                        f"sandbox: a login shell's python3 imports {mods}",
                        r.returncode == 0,
                        (r.stdout + r.stderr).strip()[-300:],
                        f"install {mods} into the Python running agent-eval (make setup)",
                    )
                )
        except (SandboxError, OSError, subprocess.SubprocessError) as e:
            checks.append(
                DoctorCheck("sandbox: starts", False, str(e), "sudo apt-get install bubblewrap socat tinyproxy-bin")
            )
    return checks


class _PortListener:
    """A tiny HTTP server on 127.0.0.1 that answers 200 to anything (for the doctor)."""

    def __enter__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()
        return self

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                try:
                    conn.settimeout(2)
                    head = b""
                    while b"\r\n\r\n" not in head:  # the proxy may send the request in pieces:
                        chunk = conn.recv(4096)  # answering early makes its later writes fail
                        if not chunk:
                            break
                        head += chunk
                    conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
                except OSError:
                    pass

    def __exit__(self, *exc):
        self.sock.close()
