"""Temporary folders named after their owning process: which ones a later run removes."""

import os
import subprocess
import tempfile

import pytest

from agent_eval.engine.scratch_dirs import HOST, _start_time, owned_dir, remove_stale


@pytest.fixture
def tmp(tmp_path, monkeypatch):
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
