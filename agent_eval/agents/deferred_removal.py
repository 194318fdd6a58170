"""Removing an item's CLI scaffolding without the item waiting for the disk: each entry is renamed aside at once
(one metadata operation) and a background thread deletes it.

A Codex item leaves about 100 files (2.4 MB: bundled skills, state databases, logs) that its `prune` removes. On
this project's machine (ext4 mounted with `discard`) deleting them took 0.1-0.4 s of wall per item, 20 ms of it
CPU: every unlink and rmdir waits on the disk, and it was on each item's path, before the next item could start
(docs/performance.md, part 6d). Renamed into a hidden `.removing-<host>-<pid>` folder beside the item's folder,
they leave the item at once; one daemon thread per process deletes them while the run goes on, and the run waits
for it before it returns (the runner calls wait(); atexit too). What a killed process left there is deleted by the
next process of the same host that removes something beside it.
"""

from __future__ import annotations

import atexit
import os
import queue
import secrets
import shutil
import socket
import threading
from pathlib import Path

TRASH_PREFIX = ".removing-"
EXIT_WAIT_S = 60.0  # at exit, how long the process waits for what is still being deleted

_pending: queue.Queue[Path | threading.Event] = queue.Queue()  # a path to delete, or a marker to set once reached
_lock = threading.Lock()
_worker: threading.Thread | None = None
_trash_dirs: set[Path] = set()
_swept: set[Path] = set()


def _host() -> str:
    return socket.gethostname().replace("-", "_") or "host"


def trash_dir(parent: Path) -> Path:
    """This process's hidden folder beside the items' folders."""
    return parent / f"{TRASH_PREFIX}{_host()}-{os.getpid()}"


def remove_soon(entries: list[Path], parent: Path) -> None:
    """Removes each entry (a file or a folder), renamed into this process's trash folder under `parent` (which must
    be on the same filesystem: the items' common folder); an entry that cannot be renamed is removed here and now."""
    if not entries:
        return
    trash = trash_dir(parent)
    with _lock:
        sweep = parent not in _swept
        _swept.add(parent)
    for stale in _stale_trash(parent) if sweep else []:
        _pending.put(stale)
    for entry in entries:
        try:
            trash.mkdir(exist_ok=True)
            with _lock:
                _trash_dirs.add(trash)
            target = trash / f"{secrets.token_hex(4)}-{entry.name}"
            os.rename(entry, target)
        except OSError:
            _remove(entry)
            continue
        _pending.put(target)
    _start()


def wait(timeout: float = EXIT_WAIT_S) -> bool:
    """Until everything handed over is deleted (then this process's empty trash folders go too); False on timeout."""
    with _lock:
        if _worker is None:
            return True
    reached = threading.Event()
    _pending.put(reached)  # everything handed over before it is deleted once the worker reaches it
    if not reached.wait(timeout):
        return False
    with _lock:
        for trash in list(_trash_dirs):
            try:
                trash.rmdir()
                _trash_dirs.discard(trash)
            except OSError:
                pass
    return True


def _start() -> None:
    global _worker
    with _lock:
        if _worker is None:
            _worker = threading.Thread(target=_delete_forever, name="agent-eval-removal", daemon=True)
            _worker.start()


def _delete_forever() -> None:
    while True:
        item = _pending.get()
        if isinstance(item, threading.Event):
            item.set()
        else:
            _remove(item)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except OSError:
            pass


def _stale_trash(parent: Path) -> list[Path]:
    """Trash folders under `parent` that a process of this host left and that is gone."""
    stale = []
    prefix = f"{TRASH_PREFIX}{_host()}-"
    try:
        found = [p for p in parent.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return []
    for path in found:
        try:
            pid = int(path.name[len(prefix) :])
        except ValueError:
            continue
        if pid != os.getpid() and not _alive(pid):
            stale.append(path)
    return stale


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


atexit.register(wait)
