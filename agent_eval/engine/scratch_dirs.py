"""The run's temporary folders in the system temp dir, named after the process that owns them, so that a
run killed outright (SIGKILL, a node lost) leaves nothing for long: the next run removes the folders
whose owner is gone, never those of a live run.

A folder is `<prefix><host>.<pid>.<start>-<random>`: a digest of the host's name (a temp dir shared
between nodes holds other hosts' live runs: only this host's are judged), the pid and the process's
start time (clock ticks since boot, from /proc/<pid>/stat), so a pid reused by another process does
not keep a dead run's folder.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import tempfile
from pathlib import Path

PREFIXES = ("agent-eval-gateway-", "agent-eval-proxies-", "agent-eval-sbx-")
_OWNED = re.compile(
    r"^(?P<prefix>" + "|".join(map(re.escape, PREFIXES)) + r")(?P<host>[0-9a-f]{8})\.(?P<pid>\d+)\.(?P<start>\d+)-"
)
HOST = hashlib.sha1(socket.gethostname().encode()).hexdigest()[:8]


def owner_tag(pid: int) -> str:
    """What names a folder's owner: this host, the pid, the process's start time."""
    return f"{HOST}.{pid}.{_start_time(pid)}"


def owned_dir(prefix: str) -> Path:
    """A fresh folder in the temp dir, named after this process (`prefix` is one of PREFIXES)."""
    if prefix not in PREFIXES:
        raise ValueError(f"unknown scratch prefix {prefix!r}")
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{owner_tag(os.getpid())}-"))


def remove_stale(temp_dir: str | Path | None = None) -> list[Path]:
    """Remove the folders whose owning process is gone; returns them. Folders of a live process, of
    another host or user, or of an older version (no owner in the name) are left alone."""
    root = Path(temp_dir or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        match = _OWNED.match(entry.name)
        if not match or match["host"] != HOST or not entry.is_dir(follow_symlinks=False):
            continue
        try:
            if entry.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
        except OSError:
            continue
        if _alive(int(match["pid"]), int(match["start"])):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        if not os.path.exists(entry.path):
            removed.append(Path(entry.path))
    return removed


def _alive(pid: int, start: int) -> bool:
    return _start_time(pid) == start


def _start_time(pid: int) -> int:
    """Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces); -1: no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return -1
    return int(stat.rsplit(")", 1)[1].split()[19])
