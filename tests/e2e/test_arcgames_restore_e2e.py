"""A game survives the harness, through both real CLIs: a runner killed with SIGKILL mid-game leaves nothing
running and, run again, goes on with the same game from where it stopped (the record replayed in a fresh game
process, checked frame by frame), with one scorecard equal to the toolkit's for the whole action sequence and
the CLI's own session continued; with the CLI's record of the session removed, a fresh session is told where
the game stands; a game that does not replay identically is started over, and the record says so."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_eval.agents.registry import scripted_environ
from agent_eval.benchmarks.arcgames.grading import environment_score
from agent_eval.scripted import ScriptedServer
from support.agentrun import MODELS, wait_until_gone
from support.arcgames import COMPARED, WIN, toolkit_scorecard, write_game

pytestmark = pytest.mark.e2e

AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")
FRESH = "already in progress"  # words only the prompt of a fresh session on a restored game has
# Each image pixel is a random colour: the same actions never give the same frames twice.
RANDOM_PIXEL = (
    "        import random\n"
    "        self.current_level.get_sprites_by_name('spark')[0].set_position(random.randint(0, 60), 50)\n"
)


def scenario(first: list, rest: list) -> dict:
    """The first session plays `first` then stops answering for a while (the kill comes then); a continued
    session goes on with the same turns; a fresh one (its prompt says the game is in progress) plays `rest`."""
    plays = lambda actions: [  # noqa: E731
        {"call": "play", "input": {"action": a[0], "x": a[1], "y": a[2]} if isinstance(a, tuple) else {"action": a}}
        for a in actions
    ]
    done = {"final": "<answer>DONE</answer>"}
    return {
        "rules": [
            {"match": FRESH, "turns": plays(rest) + [done]},
            {"turns": plays(first + rest) + [done]},
        ],
        # every answer after the first session's plays waits: the runner is killed in that wait
        "faults": {"delay": 0.4},
    }


def run_command(agent: str, root: Path, out: Path, mode: str) -> list[str]:
    return [
        AGENT_EVAL,
        "run",
        "--agent",
        agent,
        "--model",
        MODELS[agent],
        "--data",
        str(root),
        "--out-dir",
        str(out),
        "--run-name",
        "r",
        "--unpriced",
        "--tools",
        mode,
    ]


def kill_after_plays(command, env, timeline: Path, plays: int, tmp_path) -> int:
    runner = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 120
    stream = timeline.parent.parent / "transcript.jsonl"
    while time.monotonic() < deadline and runner.poll() is None:
        # the plays are on record and their answers reached the CLI (its stream shows each result): a loaded
        # machine can take longer than any fixed pause between the two
        recorded = timeline.exists() and len(timeline.read_text().splitlines()) >= plays
        if recorded and results_seen(stream) >= plays and results_kept(timeline.parent.parent / "home") >= plays:
            break
        time.sleep(0.02)
    assert runner.poll() is None, "the run ended before the kill"
    time.sleep(0.15)  # the CLI's next request then waits at the model
    os.kill(runner.pid, signal.SIGKILL)
    runner.wait()
    assert wait_until_gone(str(tmp_path)) == []  # the agent, its sandbox, the game process
    return len(timeline.read_text().splitlines())


def results_seen(stream: Path) -> int:
    """Tool results the CLI reported in its stream so far (Claude Code: a user event's tool_result; Codex: a
    completed MCP call)."""
    if not stream.exists():
        return 0
    lines = stream.read_text(errors="replace").splitlines()
    return sum('"tool_result"' in line or ('"item.completed"' in line and '"mcp_tool_call"' in line) for line in lines)


def results_kept(home: Path) -> int:
    """Tool results in the CLI's own record of its session (what a resumed session is given back): under load it
    lags behind the stream, and a session resumed without its last result plays that action again."""
    records = [*home.glob(".claude/projects/*/*.jsonl"), *home.glob(".codex/sessions/*/*/*/*.jsonl")]
    lines = [line for path in records for line in path.read_text(errors="replace").splitlines()]
    return sum('"tool_result"' in line or '"function_call_output"' in line for line in lines)


def remove_cli_session_record(home: Path) -> list[Path]:
    """What each CLI keeps of its sessions under its private home (Claude Code: .claude/projects/; Codex:
    sessions/ under CODEX_HOME), removed: the session cannot be continued."""
    gone = [p for p in home.rglob("*") if p.is_dir() and p.name in ("projects", "sessions")]
    for path in gone:
        shutil.rmtree(path)
    return gone


@pytest.mark.parametrize(
    "agent, cli_record",
    [("claude-code", "kept"), ("codex", "kept"), ("claude-code", "removed"), ("codex", "removed")],
)
def test_a_game_killed_mid_play_goes_on_from_where_it_stopped(agent, cli_record, tmp_path):
    root = tmp_path / "environment_files"
    write_game(root, "tg01")
    out = tmp_path / "out"
    (tmp_path / "tmp").mkdir()
    item = out / "r" / "sandboxes" / "tg01"
    with ScriptedServer(scenario(WIN[:2], WIN[2:])) as server:
        env = {**os.environ, **scripted_environ(agent, server.url), "TMPDIR": str(tmp_path / "tmp")}
        command = run_command(agent, root, out, "image")
        played_before = kill_after_plays(command, env, item / "game" / "timeline.jsonl", 2, tmp_path)
        assert played_before == 2
        assert not list((out / "r").glob("*/items.jsonl"))  # nothing half done was recorded
        if cli_record == "removed":
            assert remove_cli_session_record(item / "home"), "no session record found under the CLI's home"
        server.faults = {}
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        prompts = [r for r in server.main_requests() if r.rule is not None]
    assert done.returncode == 0, done.stderr[-2000:]
    (record,) = [
        json.loads(line) for path in (out / "r").glob("*/items.jsonl") for line in path.read_text().splitlines()
    ]
    assert record["status"] == "ok" and record["correct"], (record["status"], record["error"])
    metrics = record["metrics"]
    # one game: the 2 actions before the kill and the 3 after, each played once, in one scorecard
    assert metrics["plays"] == len(WIN) and metrics["restores"] == 1
    steps = [json.loads(line) for line in (item / "game" / "timeline.jsonl").read_text().splitlines()]
    assert [s["step"] for s in steps] == list(range(1, len(WIN) + 1)) and steps[-1]["state"] == "WIN"
    assert not (out / "r" / "sandboxes" / ".attempts").exists()  # the item's folder went on, not moved aside
    direct = toolkit_scorecard(root, "tg01", WIN, tmp_path)
    recorded = environment_score(metrics["scorecard"]["toolkit_scorecard"])  # the toolkit's card, as it wrote it
    assert {k: recorded.get(k) for k in COMPARED} == {k: direct.get(k) for k in COMPARED}
    sessions = [json.loads(line) for line in (item / "sessions.jsonl").read_text().splitlines()]
    starts = [s for s in sessions if "kind" in s]
    assert [s["n"] for s in starts] == [1, 2]
    if cli_record == "kept":  # the CLI's own session, continued: the model saw the first session's turns
        assert starts[1]["kind"] == "resume" and starts[1]["session_id"] == _session_id(sessions, 1)
        assert not any(FRESH in str(r.body) for r in prompts)
    else:
        assert starts[1]["kind"] == "new" and "missing or broken" in starts[1]["reason"]
        assert any(r.rule == 0 for r in prompts)  # the fresh session's prompt said where the game stands
    steps_json = json.loads((item / "steps.json").read_text())
    assert [s["n"] for s in steps_json["sessions"]] == [1, 2]


def records(run: Path) -> list[dict]:
    return [json.loads(line) for path in run.glob("*/items.jsonl") for line in path.read_text().splitlines()]


def _session_id(sessions: list[dict], n: int) -> str | None:
    ids = [s["session_id"] for s in sessions if s["n"] == n and s.get("session_id")]
    return ids[-1] if ids else None


def test_a_game_that_does_not_replay_identically_is_started_over(tmp_path):
    root = tmp_path / "environment_files"
    write_game(root, "tg01", step_patch=RANDOM_PIXEL)
    out = tmp_path / "out"
    (tmp_path / "tmp").mkdir()
    item = out / "r" / "sandboxes" / "tg01"
    with ScriptedServer(scenario(WIN[:2], WIN[2:])) as server:
        env = {**os.environ, **scripted_environ("codex", server.url), "TMPDIR": str(tmp_path / "tmp")}
        command = run_command("codex", root, out, "none")
        kill_after_plays(command, env, item / "game" / "timeline.jsonl", 2, tmp_path)
        server.faults = {}
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (record,) = [
        json.loads(line) for path in (out / "r").glob("*/items.jsonl") for line in path.read_text().splitlines()
    ]
    (why,) = record["metrics"]["started_over"]
    assert "does not replay identically: " in why
    assert record["metrics"]["restores"] == 0
    abandoned = item.parent / "tg01" / "game.abandoned-1"
    assert len((abandoned / "timeline.jsonl").read_text().splitlines()) == 2  # the old game kept, aside
    first = json.loads((item / "game" / "timeline.jsonl").read_text().splitlines()[0])
    assert first["step"] == 1  # the new game began at its start, never from the old one's state
