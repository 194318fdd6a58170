"""The real CLIs, sandboxed: their own state folder (Codex's CODEX_HOME, Claude Code's config dir) is in memory
(Invocation.memory_dirs), so nothing of it but what the harness wrote there and reads back ever reaches the
disk; unsandboxed, the same run leaves the CLI's databases there (what the adapter's prune then removes)."""

import pytest

from agent_eval.agents import get_agent
from agent_eval.scripted import ScriptedServer
from support.agentrun import run_agent

SCENARIO = {"turns": [{"call": "shell", "input": {"command": "echo measured > notes.txt"}}, "<answer>1</answer>"]}
STATE_DIR = {"codex": ".codex", "claude-code": ".claude"}
# What the sandboxed run may leave there: the adapter's own files, and the session record it reads back.
ON_DISK = {
    "codex": {"config.toml", "model-catalog.json", "sessions"},
    "claude-code": {"projects"},
}
# What each CLI writes there for itself (seen without the sandbox): never on the disk when sandboxed.
ITS_OWN = {"codex": "*.sqlite", "claude-code": ".claude.json"}


@pytest.mark.parametrize("agent", ["codex", "claude-code"])
def test_the_clis_own_state_never_reaches_the_disk_when_sandboxed(agent, sample_data, tmp_path, monkeypatch):
    monkeypatch.setattr(type(get_agent(agent)), "prune", lambda self, item_dir: None)  # what the run left, as left
    left = {}
    for sandbox in ("bwrap", "none"):
        with ScriptedServer(SCENARIO) as server:
            outcome = run_agent(agent, "python", server, sample_data, tmp_path / sandbox, ids="LIS-0", sandbox=sandbox)
        (record,) = outcome.store.records()
        assert record.status == "ok" and record.tool_calls == 1, record.error
        item = outcome.store.root / "sandboxes" / "LIS-0"
        assert (item / "work" / "notes.txt").read_text() == "measured\n"  # the workdir is the disk's
        left[sandbox] = item / "home" / STATE_DIR[agent]
    sandboxed = left["bwrap"]
    assert {p.name for p in sandboxed.iterdir()} <= ON_DISK[agent], sorted(p.name for p in sandboxed.iterdir())
    session_logs = list(sandboxed.rglob("*.jsonl"))
    assert len(session_logs) == 1 and session_logs[0].stat().st_size > 0  # the session record: written through
    assert list(left["none"].glob(ITS_OWN[agent])) and not list(sandboxed.glob(ITS_OWN[agent]))
