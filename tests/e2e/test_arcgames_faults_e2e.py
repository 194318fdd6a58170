"""ARC-AGI-3 games that go wrong, through the real CLIs: broken game files are errors for their item only
(naming the game and what failed; the run goes on and the good game is graded), a game without
baselines is played and has no score (not a score of 0), and a runner killed with SIGKILL mid-game
leaves nothing running and, run again, plays that game from the start."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_eval.agents.registry import scripted_environ
from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.game_play import play_scenario
from support.agentrun import MODELS, run_agent, wait_until_gone
from support.arcgames import WIN, write_broken_games, write_game

pytestmark = pytest.mark.e2e

AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")


@pytest.mark.parametrize("agent", ["codex", "claude-code"])
def test_broken_games_are_errors_of_their_own_items(agent, tmp_path):
    root = tmp_path / "environment_files"
    write_game(root, "tg01")
    broken = write_broken_games(root)
    with ScriptedServer(play_scenario(["RESET", "ACTION4", "ACTION4", "ACTION4", ("ACTION6", 10, 10)])) as server:
        outcome = run_agent(agent, "none", server, root, tmp_path / "out", jobs=3)
    records = {r.id: r for r in outcome.store.records()}
    assert set(records) == {"tg01", *broken}  # every game has its record: the run went on
    assert records["tg01"].status == "ok" and records["tg01"].correct
    for game, expected in (
        ("bx01", "SyntaxError"),
        ("bx02", "Bx02"),
        ("bx03", "boom in step"),
        ("bx04", "did not return within"),
    ):
        record = records[game]
        assert record.status == "benchmark_error" and not record.correct, (game, record.status, record.error)
        assert f"{game}-v1: " in record.error and "\n" not in record.error, record.error  # one line, naming the game
        assert expected.lower() in record.error.lower(), (game, record.error)
    no_baselines = records["bx05"]
    assert no_baselines.status == "ok" and no_baselines.correct
    assert no_baselines.metrics["score"] is None and "baseline_actions" in no_baselines.metrics["score_note"]
    rollup = outcome.rollup["arcgames"]
    assert rollup["scored_games"] == 1 and rollup["wins"] == 2


def test_sigkill_mid_game_then_resume_replays_the_game(tmp_path):
    root = tmp_path / "environment_files"
    write_game(root, "tg01")
    out = tmp_path / "out"
    (tmp_path / "tmp").mkdir()
    slow = {**play_scenario(WIN), "faults": {"delay": 1.0}}
    with ScriptedServer(slow) as server:
        env = {**os.environ, **scripted_environ("codex", server.url), "TMPDIR": str(tmp_path / "tmp")}
        command = [
            AGENT_EVAL,
            "run",
            "--agent",
            "codex",
            "--model",
            MODELS["codex"],
            "--data",
            str(root),
            "--out-dir",
            str(out),
            "--run-name",
            "r",
            "--unpriced",
            "--tools",
            "image",
        ]
        runner = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        timeline = out / "r" / "sandboxes" / "tg01" / "game" / "timeline.jsonl"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and runner.poll() is None:
            if timeline.exists() and len(timeline.read_text().splitlines()) >= 2:
                break
            time.sleep(0.05)
        assert timeline.exists(), "the game never started"
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait()
        assert wait_until_gone(str(tmp_path)) == []  # the agent, its sandbox, the game process
        played_before = len(timeline.read_text().splitlines())
        assert 2 <= played_before < len(WIN)
        assert not list((out / "r").glob("*/items.jsonl"))  # nothing half done was recorded
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    records = [json.loads(line) for path in (out / "r").glob("*/items.jsonl") for line in path.read_text().splitlines()]
    (record,) = records
    assert record["status"] == "ok" and record["correct"] and record["metrics"]["actions"] == 4
    steps = [json.loads(line)["step"] for line in timeline.read_text().splitlines()]
    assert steps == list(range(1, len(WIN) + 1))  # replayed from the start
    archived = list((out / "r" / "sandboxes" / ".attempts").glob("tg01.*"))
    assert len(archived) == 1 and (archived[0] / "game" / "timeline.jsonl").exists()
