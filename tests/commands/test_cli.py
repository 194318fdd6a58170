"""The command line as a user meets it: click's runner for options and errors, real subprocesses
for a run that is killed with SIGKILL and resumed with no duplicate and no loss."""
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_eval.cli import main
from agent_eval.agents.registry import scripted_environ
from agent_eval.scripted import ScriptedServer
from support.agentrun import wait_until_gone

AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")


def invoke(*args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env)


def test_help_lists_the_commands():
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("run", "show", "report", "compare", "doctor", "demo", "sample-data"):
        assert command in result.output
    run_help = invoke("run", "--help").output
    for option in ("--agent", "--model", "--effort", "--tools", "--data", "--tasks", "--ids", "--limit", "--jobs",
                   "--timeout", "--max-turns", "--out-dir", "--redo", "--sandbox"):
        assert option in run_help


@pytest.mark.parametrize("args,message", [
    (["--agent", "codex", "--model", "m", "--effort", "max"], "effort 'max' is not valid for codex"),
    (["--agent", "claude-code", "--model", "m", "--tasks", "nope"], "unknown task(s) nope; valid:"),
    (["--agent", "claude-code", "--model", "m", "--ids", "ZZ-1"], "unknown id(s) ZZ-1"),
    (["--agent", "claude-code", "--model", "m", "--jobs", "0"], "--jobs must be at least 1"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, bank_dataset, tmp_path):
    env = {"ANTHROPIC_API_KEY": "x", "OPENAI_API_KEY": "x"}
    result = invoke("run", *args, "--data", bank_dataset, "--out-dir", tmp_path, env=env)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_missing_credential_names_what_it_looked_for(bank_dataset, tmp_path):
    env = {"ANTHROPIC_API_KEY": "", "ANTHROPIC_AUTH_TOKEN": "", "CLAUDE_CODE_OAUTH_TOKEN": "", "HOME": str(tmp_path)}
    result = invoke("run", "--agent", "claude-code", "--model", "m", "--data", bank_dataset, "--out-dir", tmp_path,
                    env=env)
    assert result.exit_code == 2
    assert "claude-code: no credential found. Set ANTHROPIC_API_KEY" in result.output


def test_sample_data_command(tmp_path):
    result = invoke("sample-data", tmp_path / "s", "--per-task", "1", "--seed", "3")
    assert result.exit_code == 0 and "wrote 6 items" in result.output
    again = invoke("sample-data", tmp_path / "s")
    assert again.exit_code == 2 and "error:" in again.output


def test_sample_data_active_observation(tmp_path):
    result = invoke("sample-data", tmp_path / "a", "--kind", "activeobs", "--per-task", "1")
    assert result.exit_code == 0 and "active-observation items" in result.output and "validation: " in result.output
    from agent_eval.benchmarks import load_benchmark
    benchmark, dataset = load_benchmark(tmp_path / "a")
    assert benchmark.name == "activeobs" and len(dataset.items) >= 5
    assert invoke("sample-data", tmp_path / "a", "--kind", "activeobs").exit_code == 2


def _count_ids(run_dir: Path) -> Counter:
    ids = Counter()
    for path in run_dir.glob("*/items.jsonl"):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if record["status"] in ("ok", "no_answer"):
                ids[record["id"]] += 1
    return ids


@pytest.mark.e2e
def test_kill_9_mid_run_then_resume_loses_and_duplicates_nothing(sample_data, tmp_path):
    """A real `agent-eval run` subprocess (real Codex CLI, sandboxed) is SIGKILLed mid-run; the same
    command then finishes the rest: every item graded exactly once."""
    scenario = {"turns": [{"call": "shell", "input": {"command": "sleep 1; echo looked"}}, "<answer>3</answer>"]}
    with ScriptedServer(scenario) as server:
        env = {**os.environ, **scripted_environ("codex", server.url)}
        command = [AGENT_EVAL, "run", "--agent", "codex", "--model", "gpt-5.5", "--data", str(sample_data),
                   "--out-dir", str(tmp_path), "--run-name", "r", "--jobs", "2", "--unpriced"]
        first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
        run_dir = tmp_path / "r"
        deadline = time.time() + 60
        while sum(_count_ids(run_dir).values()) < 2 and time.time() < deadline:
            time.sleep(0.1)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        assert wait_until_gone(str(run_dir)) == []          # the sandbox lifeline took the agents along
        before = _count_ids(run_dir)
        assert 2 <= sum(before.values()) < 6, before
        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)
    assert second.returncode == 0, second.stderr[-2000:]
    assert f"{sum(before.values())} item(s) already graded" in second.stdout
    after = _count_ids(run_dir)
    assert set(after) == {"CCC-0", "RC-0", "MPT-0", "ACF-0", "LIS-0", "FDS-0"}
    assert max(after.values()) == 1                           # no duplicate
    rollup = json.loads((run_dir / "rollup.json").read_text())
    assert rollup["overall"]["n"] == 6


@pytest.mark.e2e
def test_in_a_terminal_progress_then_ctrl_c(sample_data, tmp_path):
    """As a user sees it: a real terminal (pexpect's pty), the progress bar, then Ctrl-C."""
    import pexpect
    scenario = {"turns": ["<answer>3</answer>"], "faults": {"delay": 30, "match": "How many separated regions"}}
    with ScriptedServer(scenario) as server:
        env = {**os.environ, **scripted_environ("claude-code", server.url), "COLUMNS": "120", "TERM": "xterm"}
        child = pexpect.spawn(AGENT_EVAL, ["run", "--agent", "claude-code", "--model", "claude-opus-4-8",
                                           "--tools", "none", "--data", str(sample_data), "--out-dir", str(tmp_path),
                                           "--jobs", "6"], env=env, encoding="utf-8", timeout=90,
                              dimensions=(40, 120))
        child.expect(r"5/6")                       # the other five answered; region counting is held back
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
        result = invoke("run", "--agent", "codex", "--model", "gpt-5.5", "--unpriced", "--tools", "none",
                        "--ids", "CCC-0,RC-1", env=env)
    assert result.exit_code == 0, result.output
    assert "using the bundled sample tasks" in " ".join(result.output.split())
    assert sorted(p.parent.name for p in (tmp_path / "results").glob("*/*/items.jsonl")) == [
        "connected_component_counting", "region_counting"]
