"""show, report, compare and the Inspect export on ARC-AGI-3 runs the real CLIs played against the scripted
model: a wasteful win (Claude Code, mode none) and a clean win plus a loss (Codex, mode python)."""

import json
import re

import pytest
from click.testing import CliRunner
from inspect_ai.log import read_eval_log  # make setup installs inspect-ai: never skipped

from agent_eval.commands.compare import command as compare_command
from agent_eval.commands.export import command as export_command
from agent_eval.commands.report import command as report_command
from agent_eval.commands.show import command as show_command
from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.game_play import play_turns
from support.agentrun import run_agent
from support.arcgames import WIN, write_game

pytestmark = pytest.mark.e2e

WASTEFUL = ["RESET", "ACTION5", "ACTION1", "RESET", "ACTION4", "ACTION4", "ACTION4", ("ACTION6", 10, 10)]


def invoke(command, *args):
    result = CliRunner().invoke(command, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("arc-reading")
    games = root / "environment_files"
    write_game(games, "tg01")
    write_game(games, "tg02")
    out = {}
    # Both games get the same sequence: their prompts are alike (no rules are given), and tg02 is tg01 renamed.
    for name, agent, tools, actions in (("a", "claude-code", "none", WASTEFUL), ("b", "codex", "python", WIN)):
        with ScriptedServer({"turns": play_turns(actions)}) as server:
            out[name] = run_agent(agent, tools, server, games, root / "runs", run_name=name).store.root
    return out


def test_show_prints_the_timeline_and_the_scorecard(runs):
    table = invoke(show_command, runs["a"]).output
    assert re.search(r"mean game score \d+\.\d of 100 over 2 scored game\(s\); won 2/2; levels 4/4", table), table
    item = invoke(show_command, runs["a"], "tg01").output
    assert "game timeline (8 play call(s))" in item
    lines = [line for line in item.splitlines() if "ACTION6 (10, 10)" in line]
    assert lines and "WIN" in lines[0] and "2/2" in lines[0]
    assert "GAME_OVER" in item and re.search(r"ACTION5 .* NOT_FINISHED .* 0/2 .* 3-6 \(4\)", item), item
    assert "sandboxes/tg01/game/frames/NNNN.npy" in item
    assert "scorecard: WON, levels 2/2" in item and "L1 " in item and "(baseline 3, score " in item


def test_report_draws_a_filmstrip_per_level(runs, tmp_path):
    html = tmp_path / "r.html"
    invoke(report_command, runs["a"], runs["b"], "-o", html)
    text = html.read_text()
    assert text.count('class="arc-strip"') >= 4 and "level 2" in text and "mean game score" in text
    assert text.count('<img src="data:image/png') >= 8


def test_compare_pairs_wins_scores_and_levels(runs):
    # a Claude Code run without tools against a Codex run with python: more than one rung apart, compared when told
    out = invoke(compare_command, runs["a"], runs["b"], "--format", "json", "--force").output
    data = json.loads(out[out.index("{") :])
    games = data["games"]["overall"]
    assert games["n"] == 2 and games["wins"] == [2, 2] and games["levels"] == [4, 4]
    assert games["score"][1] > games["score"][0]  # the clean win scores higher
    assert games["wins_vs_first"][1]["p_value"] == 1.0 and "p_value" in games["score_vs_first"][1]
    assert any("mean game score per game" in v for v in data["verdicts"])
    screen = invoke(compare_command, runs["a"], runs["b"], "--force").output
    assert "--force: A and B differ in more than the rung under study" in screen
    assert "ARC-AGI-3 games on the shared games" in screen and "actions/level" in screen
    assert "play" in screen and "BROKEN" not in screen  # play is the game itself, even in mode none


def test_inspect_export_carries_the_play_calls_and_their_frames(runs, tmp_path):
    log_path = tmp_path / "a.eval"
    invoke(export_command, "--format", "inspect", runs["a"], "-o", log_path)
    log = read_eval_log(str(log_path))
    sample = next(s for s in log.samples if s.id == "tg01")
    calls = [e for e in sample.events if getattr(e, "event", None) == "tool" and e.function.endswith("play")]
    assert len(calls) == len(WASTEFUL) and calls[-1].arguments == {"action": "ACTION6", "x": 10, "y": 10}
    tool_messages = [m for m in sample.messages if m.role == "tool"]
    images = [c for m in tool_messages for c in (m.content if isinstance(m.content, list) else []) if c.type == "image"]
    assert len(images) == len(WASTEFUL)
    assert sample.scores["correct"].value == "C"
