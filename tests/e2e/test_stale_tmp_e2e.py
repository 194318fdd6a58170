"""A run killed outright (SIGKILL) leaves its temporary folders (gateway, proxy jail, sandbox) in the
temp dir; the next run removes those whose owning process is gone, and never a live run's."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agent_eval.agents.registry import scripted_environ
from agent_eval.engine.scratch_dirs import PREFIXES, owner_tag
from agent_eval.scripted import ScriptedServer
from support.agentrun import MODELS, wait_until_gone

AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")


def ours(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith(PREFIXES))


def run(agent: str, server: ScriptedServer, data: Path, root: Path, name: str, tmp: Path) -> subprocess.Popen:
    env = {**os.environ, **scripted_environ(agent, server.url), "TMPDIR": str(tmp)}
    argv = [AGENT_EVAL, "run", "--agent", agent, "--model", MODELS[agent], "--data", str(data), "--ids", "CCC-0"]
    argv += ["--out-dir", str(root), "--run-name", name, "--tools", "python", "--unpriced", "--timeout", "60"]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)


def test_a_killed_runs_temporary_folders_are_removed_by_the_next_run_and_a_live_ones_are_not(sample_data, tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    with ScriptedServer({"turns": ["<answer>1</answer>"]}, faults={"hang": True}) as server:
        killed = run("codex", server, sample_data, tmp_path, "killed", tmp)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len({n.split("-")[2] for n in ours(tmp)}) < 3:
            time.sleep(0.05)  # the item is running: its gateway, proxy jail and sandbox folders exist
        left_behind = ours(tmp)
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
        assert wait_until_gone(str(tmp)) == []
    assert {name.split("-")[2] for name in left_behind} == {"gateway", "proxies", "sbx"}
    assert ours(tmp) == left_behind and all(f".{killed.pid}." in name for name in left_behind)
    # A live process's folder (another run still going) and an older version's folder (no owner named).
    live = subprocess.Popen(["sleep", "120"])
    try:
        live_dir = tmp / f"agent-eval-sbx-{owner_tag(live.pid)}-x"
        older = tmp / "agent-eval-gateway-abc123"
        live_dir.mkdir()
        older.mkdir()
        with ScriptedServer({"turns": ["<answer>1</answer>"]}) as server:
            next_run = run("codex", server, sample_data, tmp_path, "next", tmp)
            output = next_run.communicate(timeout=120)[0].decode()
        assert next_run.returncode == 0, output
        assert f"removed {len(left_behind)} temporary folder(s) left by runs that were killed" in output
        assert ours(tmp) == sorted([live_dir.name, older.name])  # the next run also left nothing of its own
    finally:
        live.kill()
        live.wait()
