"""Faults end to end: what a user meets when the model API, the agent CLI, the operator or the
input misbehaves, with the real Claude Code and Codex CLIs, sandboxed, against the scripted model
server. docs/reliability.md is the fault matrix these tests back.

Server faults come from the scripted server (`faults:` status / hang / truncate / delay, `match`
to hit only some items). CLI faults come from tests/support/faultwrap.py, a wrapper that runs the REAL
CLI and corrupts its stdout or exit code; the sandbox binds it read-only like the CLIs themselves.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_eval.agents.claude_code.adapter import ClaudeCode
from agent_eval.agents.codex.adapter import Codex
from agent_eval.agents.registry import scripted_environ
from agent_eval.cli import main
from agent_eval.commands.show import command as show_command
from agent_eval.datamodel.results import RunStore
from agent_eval.datamodel.transcript import Transcript
from agent_eval.engine import attempt, tool_surface
from agent_eval.engine.gateway import server as gateway_server
from agent_eval.engine.runner import Runner
from agent_eval.engine.sandbox import SandboxSpec
from agent_eval.scripted import ScriptedServer, prompt_text
from support import faultwrap
from support.agentrun import AGENTS, MODELS, processes_mentioning, run_agent, wait_until_gone

FAULTWRAP = Path(faultwrap.__file__).resolve()
AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")
ADAPTERS = {"claude-code": ClaudeCode, "codex": Codex}
CREDENTIAL = {"claude-code": "ANTHROPIC_API_KEY", "codex": "OPENAI_API_KEY"}
SIGINT_IDS = ("CCC-0", "RC-0", "MPT-0", "LIS-0")  # CCC-0 and RC-0 ask "How many ..."


def answer(truth: dict, item_id: str) -> dict:
    return {"turns": [f"<answer>{truth[item_id]['answer']}</answer>"]}


def item_dir(outcome, item_id: str) -> Path:
    return outcome.store.root / "sandboxes" / item_id


def raw_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# ---- the model API misbehaves ----------------------------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize(
    "faults",
    [{"status": 529, "times": 2}, {"status": 500, "times": 2}, {"truncate": True, "times": 1}],
    ids=["529x2", "500x2", "truncate-once"],
)
@pytest.mark.parametrize("agent", AGENTS)
def test_transient_server_errors_then_success_end_ok(agent, faults, sample_data, sample_truth, tmp_path):
    with ScriptedServer(answer(sample_truth, "LIS-0"), faults=faults) as server:
        outcome = run_agent(agent, "none", server, sample_data, tmp_path, ids="LIS-0", jobs=1)
        outcomes = [r.outcome for r in server.main_requests()]
    record = outcome.store.records()[0]
    assert outcomes[0] != "final" and outcomes[-1] == "final"
    assert record.status == "ok" and record.correct, record.error


@pytest.mark.e2e
@pytest.mark.parametrize("agent", AGENTS)
def test_persistent_rate_limit_ends_rate_limited_in_bounded_time_and_the_run_goes_on(
    agent, sample_data, sample_truth, tmp_path, monkeypatch
):
    """Only CCC-0's requests get 429 (fault `match`); jobs=1, so LIS-0 runs after CCC-0 gave up.
    The gateway holds each request and sends it again (backing off 0.5, 1 ... s, as `retry-after: 0`
    asks no wait) for its hold bound (120 s; 2 s here), then passes the 429 on, told not to retry:
    Claude fails at once; Codex retries 5 times (each held again), then fails. The runner backs off
    (0.2 s here) and gives up after its last attempt: 2 here to keep the test short (4 by default)."""
    monkeypatch.setattr(gateway_server, "MAX_HOLD_S", 2.0)
    original_init = Runner.__init__

    def two_attempts(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        self.max_attempts = 2

    monkeypatch.setattr(Runner, "__init__", two_attempts)
    faults = {"status": 429, "retry_after": 0, "match": "connected components"}
    with ScriptedServer(answer(sample_truth, "LIS-0"), faults=faults) as server:
        start = time.monotonic()
        outcome = run_agent(agent, "none", server, sample_data, tmp_path, ids="CCC-0,LIS-0", jobs=1, retry_wait_s=0.2)
        elapsed = time.monotonic() - start
    records = {r.id: r for r in outcome.store.records()}
    limited, fine = records["CCC-0"], records["LIS-0"]
    assert limited.status == "rate_limited" and "429" in limited.error
    assert limited.attempts == 2 and [r["wait_s"] for r in limited.retries] == [0.2]
    assert not limited.correct and limited.prediction == ""
    assert fine.status == "ok" and fine.correct and fine.attempts == 1
    assert limited.finished_at <= fine.started_at  # the run went on after giving up
    assert not outcome.interrupted and outcome.stopped_for_auth is None
    assert elapsed < 90  # bounded: no endless retrying
    assert limited.gateway["upstream"]["rate_limited"] >= 2  # each request was held and sent again


@pytest.mark.e2e
@pytest.mark.parametrize("agent", AGENTS)
def test_forbidden_403_stops_the_run_with_one_message(agent, sample_data, tmp_path):
    """Through the real command line: exit 3, one error line naming the agent and the credential,
    the first item recorded as auth_error (never as a wrong answer), the rest never started."""
    with ScriptedServer({"turns": ["<answer>1</answer>"]}, faults={"status": 403}) as server:
        env = {**scripted_environ(agent, server.url), "COLUMNS": "200"}
        result = CliRunner().invoke(
            main,
            [
                "run",
                "--agent",
                agent,
                "--model",
                MODELS[agent],
                "--tools",
                "none",
                "--data",
                str(sample_data),
                "--out-dir",
                str(tmp_path),
                "--run-name",
                "r",
                "--jobs",
                "1",
                "--unpriced",
            ],
            env=env,
        )
    assert result.exit_code == 3, result.output
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith(f"error: {agent}: authentication failed on item ")
    assert CREDENTIAL[agent] in errors[0] and "Stopped the run" in errors[0]
    records = RunStore(tmp_path / "r").records()
    assert [r.status for r in records] == ["auth_error"]
    assert not records[0].correct and records[0].prediction == "" and "403" in records[0].error


# ---- the agent CLI misbehaves (tests/support/faultwrap.py around the real CLI) -----------------------------


@pytest.fixture
def wrap_cli(monkeypatch):
    """`wrap_cli(mode)`: every agent command runs as `python faultwrap.py MODE <real CLI argv>`,
    and the sandbox binds faultwrap.py read-only (like the CLIs) so it runs under bwrap too."""

    def install(mode: str) -> None:
        # cut-last holds each line back until the next one comes, Claude Code's init (its tool surface) too: its
        # first model request waits at the gateway for that report as long as tool_surface lets it (30 s), then
        # goes on and the check runs when the report comes. The wait is not what these tests look at: 1 s.
        monkeypatch.setattr(tool_surface, "STREAM_REPORT_WAIT_S", 1.0)
        for cls in ADAPTERS.values():
            original = cls.prepare

            def prepare(self, ctx, _original=original):
                invocation = _original(self, ctx)
                invocation.argv = [sys.executable, str(FAULTWRAP), mode, *invocation.argv]
                return invocation

            monkeypatch.setattr(cls, "prepare", prepare)
        monkeypatch.setattr(attempt, "SandboxSpec", functools.partial(SandboxSpec, extra_ro=[FAULTWRAP]))

    return install


def run_wrapped(wrap_cli, mode, agent, sample_data, sample_truth, tmp_path):
    wrap_cli(mode)
    with ScriptedServer(answer(sample_truth, "CCC-0")) as server:
        outcome = run_agent(agent, "none", server, sample_data, tmp_path, ids="CCC-0", jobs=1)
    assert outcome.rollup["overall"]["n"] == 1 and not outcome.interrupted  # the runner went on to the end
    return outcome, outcome.store.records()[0]


@pytest.mark.e2e
@pytest.mark.parametrize("agent", AGENTS)
def test_malformed_event_lines_are_kept_raw_and_the_item_is_still_graded(
    agent, wrap_cli, sample_data, sample_truth, tmp_path
):
    outcome, record = run_wrapped(wrap_cli, "garbage", agent, sample_data, sample_truth, tmp_path)
    assert record.status == "ok" and record.correct
    raw = [line["raw"] for line in raw_lines(item_dir(outcome, "CCC-0") / "transcript.jsonl") if "raw" in line]
    assert raw == [faultwrap.GARBAGE_TEXT, faultwrap.GARBAGE_ARRAY]
    meta = json.loads((item_dir(outcome, "CCC-0") / "meta.json").read_text())
    assert meta["argv"][0].endswith("bwrap") and str(FAULTWRAP) in meta["argv"]  # really wrapped, sandboxed


@pytest.mark.e2e
@pytest.mark.parametrize("agent", AGENTS)
def test_unknown_event_type_is_counted_and_the_item_is_still_graded(
    agent, wrap_cli, sample_data, sample_truth, tmp_path
):
    outcome, record = run_wrapped(wrap_cli, "unknown", agent, sample_data, sample_truth, tmp_path)
    assert record.status == "ok" and record.correct
    steps = Transcript.load(item_dir(outcome, "CCC-0") / "steps.json")
    assert steps.unknown_events == {"brand_new_event": 1}
    events = [line["event"] for line in raw_lines(item_dir(outcome, "CCC-0") / "transcript.jsonl") if "event" in line]
    assert faultwrap.UNKNOWN_EVENT in events  # kept verbatim in the raw transcript


@pytest.mark.e2e
@pytest.mark.parametrize("agent", AGENTS)
def test_last_event_line_cut_in_half(agent, wrap_cli, sample_data, sample_truth, tmp_path):
    """Claude's last line is its `result` event: without it there is no final message, so the item
    is an agent_error (not a wrong answer). Codex's last line is `turn.completed` (usage only): the
    final message came before it, so the item is graded; its usage is read from Codex's own rollout (the cut
    stream lost it, the session file did not: agents/codex/events.py) and equals what the API returned, and its
    cost is the gateway's price of that."""
    outcome, record = run_wrapped(wrap_cli, "cut-last", agent, sample_data, sample_truth, tmp_path)
    raw = [line["raw"] for line in raw_lines(item_dir(outcome, "CCC-0") / "transcript.jsonl") if "raw" in line]
    assert len(raw) == 1 and raw[0].startswith("{")  # the half line, kept
    if agent == "claude-code":
        assert record.status == "agent_error" and "without a final message" in record.error
        assert not record.correct and record.prediction == ""
    else:
        assert record.status == "ok" and record.correct
        at_api = record.gateway["usage"]  # what the API returned, as the gateway read it
        assert record.usage.input_tokens == at_api["input_tokens"]
        assert record.usage.output_tokens == at_api["output_tokens"]
        assert record.cost_usd is not None and record.cost_usd == record.gateway["cost"]["usd"] > 0


@pytest.mark.e2e
@pytest.mark.parametrize("mode,message", [("exit3", faultwrap.CRASH_MESSAGE), ("die", faultwrap.DIE_MESSAGE)])
@pytest.mark.parametrize("agent", AGENTS)
def test_cli_exit_code_3_is_agent_error_with_the_stderr_tail(
    agent, mode, message, wrap_cli, sample_data, sample_truth, tmp_path
):
    """`exit3`: the CLI answered correctly, then the process exits 3; `die`: it never starts."""
    outcome, record = run_wrapped(wrap_cli, mode, agent, sample_data, sample_truth, tmp_path)
    assert record.status == "agent_error" and not record.correct and record.prediction == ""
    assert record.error.startswith("exit code 3") and message in record.error
    assert message in (item_dir(outcome, "CCC-0") / "stderr.log").read_text()


# ---- a huge tool output -------------------------------------------------------------------------

HUGE = "python3 -c \"print('y' * 2000000)\""  # one 2 MB line, like printing a list of pixels


@pytest.fixture(scope="module", params=AGENTS)
def huge_output_run(request, sample_data, tmp_path_factory):
    agent = request.param
    scenario = {"turns": [{"call": "shell", "input": {"command": HUGE}}, "<answer>1</answer>"]}
    with ScriptedServer(scenario) as server:
        outcome = run_agent(
            agent, "python", server, sample_data, tmp_path_factory.mktemp(f"huge-{agent}"), ids="CCC-0", jobs=1
        )
    return agent, outcome


@pytest.mark.e2e
def test_huge_tool_output_is_kept(huge_output_run):
    """What the CLI reported is kept whole: Codex reports 1 MiB of the output (head and tail, its own
    cap) in the event, and steps.json holds all of it; Claude Code saves the whole output to a file in its
    config dir (inside the item dir, kept) and reports a preview naming that file."""
    agent, outcome = huge_output_run
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.tool_calls == 1
    base = item_dir(outcome, "CCC-0")
    result = [s for s in Transcript.load(base / "steps.json").steps if s.kind == "tool_result"][0]
    if agent == "codex":
        events = [line["event"] for line in raw_lines(base / "transcript.jsonl") if "event" in line]
        reported = [
            e["item"]["aggregated_output"]
            for e in events
            if e.get("type") == "item.completed" and e["item"].get("type") == "command_execution"
        ][0]
        assert len(reported) >= 1_000_000 and "bytes omitted" in reported  # Codex's cap: head + tail
        assert result.text == reported
    else:
        assert "Output too large" in result.text and "Full output saved to: " in result.text
        saved = Path(result.text.split("Full output saved to: ")[1].split()[0])
        assert saved.is_relative_to(base / "home") and saved.read_text().strip() == "y" * 2_000_000


def _show_item(outcome, *options) -> str:
    result = CliRunner().invoke(show_command, [str(outcome.store.root), "CCC-0", *options], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.e2e
def test_huge_tool_output_is_folded_in_show(huge_output_run, request):
    agent, outcome = huge_output_run
    shown = _show_item(outcome)
    assert len(shown) < 20_000 and "<answer>1</answer>" in shown
    assert "(--full)" in shown or agent == "claude-code"  # Claude's own preview is short already


# ---- the operator presses Ctrl-C ----------------------------------------------------------------


def _graded_lines(run_dir: Path) -> dict[str, list[str]]:
    return {str(p.relative_to(run_dir)): p.read_text().splitlines() for p in sorted(run_dir.glob("*/items.jsonl"))}


def _graded_ids(run_dir: Path) -> Counter:
    return Counter(
        json.loads(line)["id"]
        for lines in _graded_lines(run_dir).values()
        for line in lines
        if json.loads(line)["status"] in ("ok", "no_answer")
    )


@pytest.mark.e2e
@pytest.mark.parametrize("agent", AGENTS)
def test_sigint_with_jobs_8_stops_agents_keeps_records_and_resumes_without_duplicates(agent, sample_data, tmp_path):
    """A real `agent-eval run --jobs 8` subprocess over four items: two answer at once, the two
    counting items' model calls are held back (delay 120 s, fault `match`), so they are in flight
    when SIGINT arrives (to the whole process group, as Ctrl-C in a terminal)."""
    with ScriptedServer({"turns": ["<answer>3</answer>"]}, faults={"delay": 120, "match": "How many"}) as server:
        env = {**os.environ, **scripted_environ(agent, server.url)}
        command = [
            AGENT_EVAL,
            "run",
            "--agent",
            agent,
            "--model",
            MODELS[agent],
            "--data",
            str(sample_data),
            "--ids",
            ",".join(SIGINT_IDS),
            "--out-dir",
            str(tmp_path),
            "--run-name",
            "r",
            "--jobs",
            "8",
            "--unpriced",
        ]
        first = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
        )
        run_dir = tmp_path / "r"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            held = [r for r in server.main_requests() if "How many" in prompt_text(r)]
            if sum(_graded_ids(run_dir).values()) == 2 and len(held) >= 2:
                break
            time.sleep(0.1)
        assert sum(_graded_ids(run_dir).values()) == 2, first.poll()
        in_flight = processes_mentioning(str(run_dir))
        assert in_flight  # the two held agents are running
        before = _graded_lines(run_dir)
        os.killpg(first.pid, signal.SIGINT)
        output = first.communicate(timeout=30)[0].decode(errors="replace")
        assert first.returncode == 130, output[-2000:]
        assert "Interrupted" in output and "Traceback" not in output
        assert wait_until_gone(str(run_dir)) == []  # every agent's process group is gone
        assert _graded_lines(run_dir) == before  # completed records intact, nothing added
        assert json.loads((run_dir / "run.json").read_text())["finished_at"] is None
        server.faults = None  # the model answers promptly now
        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stdout[-2000:] + second.stderr[-2000:]
    assert "2 item(s) already graded, 2 to run" in second.stdout
    after = _graded_ids(run_dir)
    assert set(after) == set(SIGINT_IDS) and max(after.values()) == 1  # the rest finished, no duplicate
    assert json.loads((run_dir / "rollup.json").read_text())["overall"]["n"] == 4


# ---- bad input ------------------------------------------------------------------------------------

KEYS = {"ANTHROPIC_API_KEY": "x", "OPENAI_API_KEY": "x"}


def invoke_run(*args, env=None):
    return CliRunner().invoke(main, ["run", *map(str, args)], env={**KEYS, **(env or {})})


def one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), output
    assert "Traceback" not in output
    return lines[0]


def copy_data(sample_data: Path, target: Path) -> Path:
    shutil.copytree(sample_data, target)
    return target


@pytest.mark.parametrize(
    "content,message",
    [(b"", "is empty (0 bytes)"), (b"\x89PNG\r\n\x1a\nnot really a png", "is not a readable image")],
    ids=["zero-bytes", "corrupt"],
)
def test_bad_image_is_one_line_exit_2_and_writes_nothing(content, message, sample_data, tmp_path):
    data = copy_data(sample_data, tmp_path / "data")
    (data / "MPT-0.png").write_bytes(content)
    out = tmp_path / "out"
    result = invoke_run("--agent", "claude-code", "--model", "m", "--data", data, "--out-dir", out)
    assert result.exit_code == 2
    line = one_error_line(result.output)
    assert "item MPT-0" in line and message in line
    assert not out.exists()


def test_data_path_that_is_a_file_is_one_line_exit_2(sample_data, tmp_path):
    out = tmp_path / "out"
    result = invoke_run(
        "--agent", "codex", "--model", "gpt-5", "--data", sample_data / "metadata.jsonl", "--out-dir", out
    )
    assert result.exit_code == 2
    assert "metadata.jsonl" in one_error_line(result.output) and not out.exists()


def without_dac_override() -> list[str]:
    """Root reads and writes whatever the mode bits say: drop the two capabilities that let it, so
    chmod means what it means for any user. Not root: chmod works as it is."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot make a file unreadable for root")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]


def run_cli(*args) -> subprocess.CompletedProcess:
    env = {**os.environ, **KEYS}
    return subprocess.run(
        [*without_dac_override(), AGENT_EVAL, "run", *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    "target,message",
    [
        (".", "is not readable"),
        ("metadata.jsonl", "cannot be read (Permission denied)"),
        ("MPT-0.png", "Permission denied"),
    ],
    ids=["dir", "metadata", "image"],
)
def test_unreadable_data_is_a_clear_error_exit_2(target, message, sample_data, tmp_path):
    data = copy_data(sample_data, tmp_path / "data")
    (data / target).chmod(0)
    out = tmp_path / "out"
    try:
        result = run_cli("--agent", "claude-code", "--model", "m", "--data", data, "--out-dir", out)
    finally:
        (data / target).chmod(0o755)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.lower().startswith("error")]
    assert len(errors) == 1 and message in errors[0] and data.name in errors[0], result.stderr
    assert not out.exists()


def test_io_error_reading_the_dataset_is_one_line_exit_2(sample_data, tmp_path):
    """metadata.jsonl that fails with EIO on read, like a failing disk or a dead network mount
    (/proc/self/mem: a regular file whose read at offset 0 fails with EIO)."""
    data = copy_data(sample_data, tmp_path / "data")
    (data / "metadata.jsonl").unlink()
    (data / "metadata.jsonl").symlink_to("/proc/self/mem")
    out = tmp_path / "out"
    result = invoke_run("--agent", "claude-code", "--model", "m", "--data", data, "--out-dir", out)
    assert result.exit_code == 2, result.output
    assert "metadata.jsonl" in one_error_line(result.output) and not out.exists()


def test_out_dir_under_a_regular_file_is_one_line_exit_2(sample_data, tmp_path):
    (tmp_path / "afile").write_text("not a directory")
    result = invoke_run(
        "--agent",
        "claude-code",
        "--model",
        "claude-opus-4-8",  # a priced model: the out dir is what is wrong
        "--data",
        sample_data,
        "--ids",
        "CCC-0",
        "--out-dir",
        tmp_path / "afile" / "out",
    )
    assert result.exit_code == 2, result.output
    assert "afile" in one_error_line(result.output)


def test_read_only_out_dir_is_one_line_exit_2(sample_data, tmp_path):
    parent = tmp_path / "readonly"
    parent.mkdir()
    parent.chmod(0o555)
    result = run_cli(
        "--agent",
        "claude-code",
        "--model",
        "claude-opus-4-8",  # a priced model: the out dir is what is wrong
        "--data",
        sample_data,
        "--ids",
        "CCC-0",
        "--out-dir",
        parent / "out",
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and str(parent / "out") in result.stderr
    assert list(parent.iterdir()) == []


def test_codex_model_without_a_price_is_refused_unless_unpriced(sample_data, tmp_path):
    out = tmp_path / "out"
    result = invoke_run("--agent", "codex", "--model", "not-a-priced-model", "--data", sample_data, "--out-dir", out)
    assert result.exit_code == 2, result.output
    line = one_error_line(result.output)
    assert "no price for model 'not-a-priced-model'" in line and "genai-prices" in line and "--unpriced" in line
    assert not out.exists()
