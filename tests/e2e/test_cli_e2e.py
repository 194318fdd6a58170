"""agent-eval run as a user runs it, with the real CLIs: kill -9 and resume, a terminal's progress then Ctrl-C, the
bundled samples without --data."""

import json
import os
import signal
import subprocess
import time

import pytest

from agent_eval.agents.registry import scripted_environ
from agent_eval.scripted import ScriptedServer
from support.agentrun import wait_until_gone
from support.clirun import AGENT_EVAL, count_ids, invoke


@pytest.mark.e2e
def test_kill_9_mid_run_then_resume_loses_and_duplicates_nothing(sample_data, tmp_path):
    """A real `agent-eval run` subprocess (real Codex CLI, sandboxed) is SIGKILLed mid-run; the same
    command then finishes the rest: every item graded exactly once."""
    scenario = {"turns": [{"call": "shell", "input": {"command": "sleep 1; echo looked"}}, "<answer>3</answer>"]}
    with ScriptedServer(scenario) as server:
        env = {**os.environ, **scripted_environ("codex", server.url)}
        command = [
            AGENT_EVAL,
            "run",
            "--agent",
            "codex",
            "--model",
            "gpt-5.5",
            "--data",
            str(sample_data),
            "--out-dir",
            str(tmp_path),
            "--run-name",
            "r",
            "--jobs",
            "2",
            "--unpriced",
        ]
        first = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        run_dir = tmp_path / "r"
        deadline = time.time() + 60
        while sum(count_ids(run_dir).values()) < 2 and time.time() < deadline:
            time.sleep(0.1)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        assert wait_until_gone(str(run_dir)) == []  # the sandbox lifeline took the agents along
        before = count_ids(run_dir)
        assert 2 <= sum(before.values()) < 6, before
        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)
    assert second.returncode == 0, second.stderr[-2000:]
    assert f"{sum(before.values())} item(s) already graded" in second.stdout
    after = count_ids(run_dir)
    assert set(after) == {"CCC-0", "RC-0", "MPT-0", "ACF-0", "LIS-0", "FDS-0"}
    assert max(after.values()) == 1  # no duplicate
    rollup = json.loads((run_dir / "rollup.json").read_text())
    assert rollup["overall"]["n"] == 6


@pytest.mark.e2e
def test_in_a_terminal_progress_then_ctrl_c(sample_data, tmp_path):
    """As a user sees it: a real terminal (pexpect's pty), the progress bar, then Ctrl-C."""
    import pexpect

    scenario = {"turns": ["<answer>3</answer>"], "faults": {"delay": 30, "match": "How many separated regions"}}
    with ScriptedServer(scenario) as server:
        env = {**os.environ, **scripted_environ("claude-code", server.url), "COLUMNS": "120", "TERM": "xterm"}
        child = pexpect.spawn(
            AGENT_EVAL,
            [
                "run",
                "--agent",
                "claude-code",
                "--model",
                "claude-opus-4-8",
                "--tools",
                "none",
                "--data",
                str(sample_data),
                "--out-dir",
                str(tmp_path),
                "--jobs",
                "6",
            ],
            env=env,
            encoding="utf-8",
            timeout=90,
            dimensions=(40, 120),
        )
        child.expect(r"5/6")  # the other five answered; region counting is held back
        child.expect("acc")
        child.sendintr()
        child.expect("Interrupted: stopping running agents")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 130
    records = [json.loads(line) for path in tmp_path.glob("*/*/items.jsonl") for line in path.read_text().splitlines()]
    assert len(records) == 5 and "RC-0" not in {r["id"] for r in records}


@pytest.mark.e2e
def test_without_data_the_bundled_samples_are_used_and_said(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENT_EVAL_CACHE_DIR", str(tmp_path / "cache"))
    with ScriptedServer({"turns": ["<answer>3</answer>"]}) as server:
        env = {**scripted_environ("codex", server.url)}
        result = invoke(
            "run",
            "--agent",
            "codex",
            "--model",
            "gpt-5.5",
            "--unpriced",
            "--tools",
            "none",
            "--ids",
            "CCC-0,RC-1",
            env=env,
        )
    assert result.exit_code == 0, result.output
    assert "using the bundled sample tasks" in " ".join(result.output.split())
    assert sorted(p.parent.name for p in (tmp_path / "results").glob("*/*/items.jsonl")) == [
        "connected_component_counting",
        "region_counting",
    ]
