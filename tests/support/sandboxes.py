"""An item's world for sandbox tests (workdir, home, a sibling item, a dataset, canaries) and running a command in a
Sandbox."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from agent_eval.datamodel.sandbox_policy import PROJECT_ROOT
from agent_eval.engine.sandbox import Sandbox, SandboxSpec

CANARY = "CANARY-4e1d-never-inside"


BIN = PROJECT_ROOT / "node_modules" / ".bin"


@pytest.fixture
def world():
    """An item's workdir and home beside a sibling item and a dataset, all holding canaries,
    plus a canary elsewhere in the real home. Not under /tmp: that is private inside anyway."""
    tmp_path = Path(tempfile.mkdtemp(prefix="agent-eval-test-world-", dir=Path.home()))
    item = tmp_path / "results" / "run1" / "item1"
    for d in ("work", "home"):
        (item / d).mkdir(parents=True)
    (item / "work" / "image.png").write_bytes(b"not really a png")
    sibling = tmp_path / "results" / "run1" / "item2" / "work"
    sibling.mkdir(parents=True)
    (sibling / "answer.txt").write_text(CANARY)
    (tmp_path / "dataset").mkdir()
    (tmp_path / "dataset" / "truth.jsonl").write_text(CANARY)
    real_home = Path(tempfile.mkdtemp(prefix="agent-eval-test-", dir=Path.home()))
    (real_home / "secret.txt").write_text(CANARY)
    yield {
        "work": item / "work",
        "home": item / "home",
        "sibling": sibling,
        "dataset": tmp_path / "dataset",
        "real_home": real_home,
    }
    shutil.rmtree(real_home, ignore_errors=True)
    shutil.rmtree(tmp_path, ignore_errors=True)


def run(sb: Sandbox, cmd: str, login: bool = True, timeout: float = 60) -> subprocess.CompletedProcess:
    argv, env = sb.wrap(["/bin/bash", "-lc" if login else "-c", cmd])
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, pass_fds=sb.pass_fds)


def spec(world, endpoints=(), env=None) -> SandboxSpec:
    return SandboxSpec(world["work"], world["home"], endpoints=list(endpoints), env=env or {})


def tools_python_bin() -> str:
    import sys

    return str(Path(os.path.realpath(sys.prefix)) / "bin")
