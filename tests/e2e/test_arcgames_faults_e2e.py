"""ARC-AGI-3 games that go wrong, through the real CLIs: broken game files are errors for their item only
(naming the game and what failed; the run goes on and the good game is graded), a game without
baselines is played and has no score (not a score of 0). A runner killed mid-game: test_arcgames_restore_e2e.py."""

import sys
from pathlib import Path

import pytest

from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.game_play import play_scenario
from support.agentrun import run_agent
from support.arcgames import write_broken_games, write_game

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
