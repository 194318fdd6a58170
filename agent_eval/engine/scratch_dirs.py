"""The run's temporary folders, named after the process that owns them, so that a run killed outright (SIGKILL,
a node lost) leaves nothing for long: the next run removes the folders whose owner is gone, never those of a
live run.

Where: the temp dir the user named (TMPDIR, TEMP, TMP); else /dev/shm where it is a writable folder in memory
(tmpfs), since every item writes and deletes its sandbox's and its proxy's few small files there, which on a
disk cost 3-5 ms of each item's time (this machine's ext4, mounted with `discard`: docs/performance.md, 6g);
else the system temp dir.

A folder is `<prefix><host>.<pid>.<start>-<random>`: a digest of the host's name (a temp dir shared
between nodes holds other hosts' live runs: only this host's are judged), the pid and the process's
start time (clock ticks since boot, from /proc/<pid>/stat), so a pid reused by another process does
not keep a dead run's folder.
"""

from __future__ import annotations

import functools
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


IN_MEMORY = Path("/dev/shm")


def scratch_root() -> Path:
    """Where this process's scratch folders go (see the module's docstring). Not `tempfile.tempdir`: the first
    use of `tempfile` anywhere in the process sets it to the system temp dir."""
    if any(os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")):
        return Path(tempfile.gettempdir())
    return IN_MEMORY if _writable_tmpfs(IN_MEMORY) else Path(tempfile.gettempdir())


@functools.cache
def _writable_tmpfs(path: Path) -> bool:
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return False
    types = [fields[2] for fields in map(str.split, mounts) if len(fields) > 2 and fields[1] == str(path)]
    return types[-1:] == ["tmpfs"] and os.access(path, os.W_OK | os.X_OK)  # the last: on top, where stacked


def owner_tag(pid: int) -> str:
    """What names a folder's owner: this host, the pid, the process's start time."""
    return f"{HOST}.{pid}.{_start_time(pid)}"


def owned_dir(prefix: str) -> Path:
    """A fresh folder in the scratch root, named after this process (`prefix` is one of PREFIXES)."""
    if prefix not in PREFIXES:
        raise ValueError(f"unknown scratch prefix {prefix!r}")
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{owner_tag(os.getpid())}-", dir=scratch_root()))


def remove_stale(temp_dir: str | Path | None = None) -> list[Path]:
    """Remove the folders whose owning process is gone; returns them. Folders of a live process, of
    another host or user, or of an older version (no owner in the name) are left alone. Without `temp_dir`: in
    the scratch root and the system temp dir (where a run with another TMPDIR, or an earlier version, left them)."""
    roots = [Path(temp_dir)] if temp_dir else list(dict.fromkeys([scratch_root(), Path(tempfile.gettempdir())]))
    removed: list[Path] = []
    for root in roots:
        removed += _remove_stale_in(root)
    return removed


def _remove_stale_in(root: Path) -> list[Path]:
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
