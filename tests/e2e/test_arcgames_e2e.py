"""ARC-AGI-3 games through the whole runner with both real CLIs, sandboxed, in every tool mode: the
scripted model plays a given action sequence through `play` (it never sees the game); the game runs in
its own process under the toolkit; the record holds the toolkit's scorecard, which must equal the
toolkit's own for the same sequence played directly here."""

import io
import json

import numpy as np
import pytest
from PIL import Image

from agent_eval.benchmarks.arcgames.grading import environment_score
from agent_eval.datamodel.transcript import Transcript
from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.game_play import play_scenario
from agent_eval.scripted.inspect_requests import conversation, has_image
from support.agentrun import AGENTS, run_agent
from support.arcgames import ANIMATION_FRAMES, BASELINES, COMPARED, WIN, toolkit_scorecard, write_game

pytestmark = pytest.mark.e2e

MODES = ("none", "image", "python")
PROTOCOL = {"initial_frame": "on", "action_batches": "off", "early_stop": "continue", "recoveries": 5}
# Wastes actions on level 1 (an animation, a loss and its RESET), then wins.
WASTEFUL = ["RESET", "ACTION5", "ACTION1", "RESET", "ACTION4", "ACTION4", "ACTION4", ("ACTION6", 10, 10)]


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    root = tmp_path_factory.mktemp("arcgames") / "environment_files"
    write_game(root, "tg01")
    return root


def level_formula(level_actions, baselines) -> float:
    """The toolkit's game score as the issue states it: level score min(115, (baseline/actions)^2 x 100) for a
    completed level, levels weighted by their index (1-based)."""
    scores = [min(115.0, (b / a) ** 2 * 100) for a, b in zip(level_actions, baselines)]
    weights = range(1, len(scores) + 1)
    return sum(s * w for s, w in zip(scores, weights)) / sum(weights)


def shown(result) -> dict:
    """The JSON `play` returned (Claude Code adds a line naming where it kept the image)."""
    return json.loads(result.text.strip().splitlines()[0])


def tool_results(item_dir):
    steps = Transcript.load(item_dir / "steps.json").steps
    return [s for s in steps if s.kind == "tool_result"]


def extra_looks(mode: str) -> list[dict]:
    if mode == "none":
        return []
    looks = [
        {"call": "recall", "input": {"step": 2}},
        {"call": "read_pixels", "input": {"frame": 1, "x": 0, "y": 32, "width": 4, "height": 1}},
    ]
    if mode == "python":
        looks.append(
            {
                "call": "shell",
                "input": {
                    "command": 'python3 -c "import numpy as n, glob; '
                    "print('npy', len(glob.glob('frames/*.npy')), n.load('frames/0001.npy').shape)\"; "
                    "touch frames/x 2>&1 | tail -1; (echo x > frames/0001.npy) 2>&1 | tail -1"
                },
            }
        )
    return looks


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("agent", AGENTS)
def test_the_winning_sequence_wins_with_the_toolkits_scorecard(agent, mode, games, tmp_path):
    with ScriptedServer(play_scenario(WIN, after=extra_looks(mode))) as server:
        outcome = run_agent(agent, mode, server, games, tmp_path, tasks="tg01")
        first = server.main_requests()[0]
    record = outcome.store.records()[0]
    # the game's first frame (before any action) reaches the model with the task, and is the record's inline image
    assert has_image(first) and "Current observation (before any action)" in conversation(first).prompt
    assert [i["via"] for i in record.images][:1] == ["inline"] and record.images[0]["at_api"] == [256, 256]
    metrics = record.metrics
    assert record.status == "ok" and record.correct and metrics["won"], (record.status, record.error)
    recorded = environment_score(metrics["scorecard"]["toolkit_scorecard"])  # the toolkit's card, as it wrote it
    direct = toolkit_scorecard(games, "tg01", WIN, tmp_path)
    assert {k: recorded.get(k) for k in COMPARED} == {k: direct.get(k) for k in COMPARED}
    assert metrics["score"] == pytest.approx(direct["score"]) and metrics["levels_completed"] == 2
    assert outcome.rollup["arcgames"]["wins"] == 1
    item_dir = outcome.store.root / "sandboxes" / "tg01"
    results = tool_results(item_dir)
    plays = results[: len(WIN)]
    assert all(len(r.images) == 1 for r in plays) and shown(plays[-1])["state"] == "WIN"
    assert "stop" in shown(plays[-1]) and "<answer>DONE</answer>" in plays[-1].text
    frames = sorted((item_dir / "game" / "frames").glob("*.npy"))
    assert len(frames) == 7  # the first observation, one per action, and two for the move that completes level 1
    if mode != "none":
        assert results[len(WIN)].images and "900e" in results[len(WIN) + 1].text  # recall, read_pixels
    if mode == "python":
        shell = results[len(WIN) + 2].text
        assert "npy 7 (64, 64)" in shell and "Read-only file system" in shell
        assert (item_dir / "game" / "frames" / "0001.npy").exists()


@pytest.mark.parametrize("agent,mode", [("claude-code", "image"), ("codex", "none")])
def test_wasted_actions_score_lower_by_the_formula(agent, mode, games, tmp_path):
    with ScriptedServer(play_scenario(WASTEFUL)) as server:
        outcome = run_agent(agent, mode, server, games, tmp_path, tasks="tg01")
    metrics = outcome.store.records()[0].metrics
    direct_win = toolkit_scorecard(games, "tg01", WIN, tmp_path)
    assert metrics["won"] and metrics["score"] < direct_win["score"]
    assert metrics["score"] == pytest.approx(level_formula(metrics["level_actions"], BASELINES))
    assert metrics["resets"] >= 1 and sum(metrics["level_resets"]) == metrics["resets"]  # ours agree with the toolkit
    assert metrics["level_resets"][0] == metrics["resets"]  # all on level 1
    item_dir = outcome.store.root / "sandboxes" / "tg01"
    timeline = [json.loads(line) for line in (item_dir / "game" / "timeline.jsonl").read_text().splitlines()]
    assert [e["state"] for e in timeline[:4]] == ["NOT_FINISHED", "NOT_FINISHED", "GAME_OVER", "NOT_FINISHED"]
    animation = timeline[1]["frames"]
    assert len(animation) == ANIMATION_FRAMES  # every frame of the animation is archived ...
    arrays = [np.load(item_dir / "game" / "frames" / f"{n:04d}.npy") for n in animation]
    assert len({a.tobytes() for a in arrays}) == ANIMATION_FRAMES
    shown = tool_results(item_dir)[1]
    assert len(shown.images) == 1  # ... and only the last one is returned
    seen = np.asarray(Image.open(item_dir / shown.images[0]).convert("RGB"))
    last = np.asarray(
        Image.open(io.BytesIO((item_dir / "game" / "frames" / f"{animation[-1]:04d}.png").read_bytes())).convert("RGB")
    )
    assert seen.shape == last.shape and (seen == last).all()
    assert "GAME_OVER" in tool_results(item_dir)[2].text and "RESET" in tool_results(item_dir)[2].text


@pytest.mark.parametrize("agent", AGENTS)
def test_the_budget_stops_play(agent, games, tmp_path):
    actions = ["RESET", "ACTION4", "ACTION4", "ACTION4", "ACTION4"]
    with ScriptedServer(play_scenario(actions)) as server:
        outcome = run_agent(agent, "none", server, games, tmp_path, tasks="tg01", kind_options={"max_actions": 3})
    record = outcome.store.records()[0]
    assert record.status == "ok" and not record.correct
    assert record.metrics["budget_spent"] and record.metrics["plays"] == 3 and record.metrics["max_actions"] == 3
    results = tool_results(outcome.store.root / "sandboxes" / "tg01")
    assert "budget (3) is spent" in results[2].text
    assert shown(results[3])["stop"].startswith("No action taken") and not results[3].images
    assert outcome.store.read_manifest().config.kind_options == {"max_actions": 3, "frame_scale": 4, **PROTOCOL}


def test_demo_wins_one_of_the_projects_games(tmp_path):
    from click.testing import CliRunner

    from agent_eval.commands.demo import command as demo_command

    result = CliRunner().invoke(
        demo_command,
        ["--kind", "arcgames", "--item", "ae02", "--agent", "codex", "--tools", "none", "--out-dir", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    (record,) = [
        json.loads(line)
        for line in (tmp_path / "scripted-codex-arcgames-none" / "ae02" / "items.jsonl").read_text().splitlines()
    ]
    assert record["correct"] and record["metrics"]["score"] == 100.0 and record["metrics"]["actions"] > 0
