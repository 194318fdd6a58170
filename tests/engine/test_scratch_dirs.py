"""Temporary folders named after their owning process: which ones a later run removes."""

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from agent_eval.engine.scratch_dirs import HOST, _start_time, _writable_tmpfs, owned_dir, remove_stale, scratch_root


@pytest.fixture
def tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_only_folders_whose_owner_is_gone_are_removed(tmp):
    mine = owned_dir("agent-eval-gateway-")  # this live process
    dead = subprocess.Popen(["true"])
    dead_start = _start_time(dead.pid)
    dead.wait()
    gone = tmp / f"agent-eval-sbx-{HOST}.{dead.pid}.{dead_start}-abc"
    reused = tmp / f"agent-eval-proxies-{HOST}.{os.getpid()}.1-abc"  # our pid, but another process's start time
    elsewhere = tmp / f"agent-eval-sbx-0badc0de.{dead.pid}.{dead_start}-abc"  # another node's, in a shared dir
    legacy = tmp / "agent-eval-sbx-k2j3h4"  # written before owners were named: left alone
    other = tmp / "something-else-123.456-x"
    for path in (gone, reused, legacy, other, elsewhere):
        path.mkdir()
    (gone / "etc").mkdir()
    assert sorted(remove_stale()) == sorted([gone, reused])
    assert mine.is_dir() and legacy.is_dir() and other.is_dir() and elsewhere.is_dir()
    assert not gone.exists() and not reused.exists()


def test_an_unknown_prefix_is_refused(tmp):
    with pytest.raises(ValueError):
        owned_dir("agent-eval-other-")


def test_scratch_goes_to_memory_unless_a_temp_dir_is_named(tmp_path, monkeypatch):
    """The sandbox's and proxies' files, written and deleted for every item, go to /dev/shm where it is a tmpfs
    (findmnt says), never to a folder on a disk; a TMPDIR the user set wins."""
    for name in ("TMPDIR", "TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    tempfile.gettempdir()  # the process's first use of tempfile sets tempfile.tempdir: no temp dir named for all that
    shm = subprocess.run(
        ["findmnt", "-n", "-o", "FSTYPE", "--mountpoint", "/dev/shm"], capture_output=True, text=True
    ).stdout.split()[-1:]  # the mount on top, where mounts are stacked
    assert scratch_root() == (Path("/dev/shm") if shm == ["tmpfs"] else Path(tempfile.gettempdir()))
    assert not _writable_tmpfs(tmp_path)  # a folder on the disk
    mine = owned_dir("agent-eval-sbx-")
    assert mine.parent == scratch_root()
    mine.rmdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    assert scratch_root() == tmp_path and owned_dir("agent-eval-sbx-").parent == tmp_path
