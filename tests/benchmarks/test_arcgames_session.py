"""The play tool's session on a stand-in game: archive, animation, click, budget, game over, the game's failure."""

import json

import numpy as np
import pytest

from agent_eval.benchmarks.arcgames.frames import PALETTE
from agent_eval.benchmarks.arcgames.game_record import read_end
from agent_eval.benchmarks.arcgames.loader import GameItem
from agent_eval.benchmarks.arcgames.session import GameSession, PlayRefused
from agent_eval.benchmarks.games.folder import read_timeline
from support.fakegame import FakeGame


def session(tmp_path, max_actions=10, **game):
    item = GameItem(id="fk01", version="v1", game_dir=tmp_path, title=None, baseline_actions=(3, 3), files_sha256="x")
    return GameSession(item, FakeGame(**game), tmp_path / "game", max_actions=max_actions, frame_scale=4)


def test_every_frame_of_an_animation_is_archived_and_the_last_shown(tmp_path):
    s = session(tmp_path)
    s.play("RESET", None, None)
    shown, png = s.play("ACTION5", None, None)
    assert shown["frames"] == [2, 3, 4] and "animation" in shown["note"]
    for number, offset in zip((2, 3, 4), range(3)):
        frame = np.load(tmp_path / "game" / "frames" / f"{number:04d}.npy")
        assert frame.shape == (64, 64) and frame[1, 1] == offset
    assert png == (tmp_path / "game" / "frames" / "0004.png").read_bytes()
    import io

    from PIL import Image

    image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert image.shape == (256, 256, 3) and (image[4:8, 4:8] == PALETTE[2]).all()  # index 2 as a 4x4 square


def test_a_click_needs_coordinates_and_reaches_the_game(tmp_path):
    s = session(tmp_path)
    with pytest.raises(PlayRefused, match="give x"):
        s.play("ACTION6", None, 3)
    with pytest.raises(PlayRefused, match="unknown action"):
        s.play("JUMP", None, None)
    assert s.actions_used == 0  # refused plays cost nothing
    s.play("action6", 5, 7)
    assert s.game.steps == [("ACTION6", 5, 7)] and s.archive.load(1)[7, 5] == 8
    s.play("ACTION1", 9, 9)  # coordinates of a non-click are dropped
    assert s.game.steps[-1] == ("ACTION1", None, None)


def test_budget_counts_resets_and_stops(tmp_path):
    s = session(tmp_path, max_actions=3)
    s.play("RESET", None, None)
    s.play("RESET", None, None)
    shown, _ = s.play("ACTION1", None, None)
    assert (
        shown["actions_left"] == 0
        and "budget (3) is spent" in shown["stop"]
        and "<answer>DONE</answer>" in shown["stop"]
    )
    shown, png = s.play("ACTION1", None, None)
    assert png is None and shown["stop"].startswith("No action taken") and len(s.game.steps) == 3
    end = s.finish()
    assert end.budget_spent and end.actions_used == 3 and end.scorecard["resets"] == 2


def test_game_over_says_reset_and_a_win_stops(tmp_path):
    s = session(tmp_path)
    shown, _ = s.play("ACTION2", None, None)
    assert shown["state"] == "GAME_OVER" and "RESET" in shown["note"]
    s.play("RESET", None, None)
    for _ in range(6):
        shown, _ = s.play("ACTION1", None, None)
    assert shown["state"] == "WIN" and "won" in shown["stop"]
    assert s.play("ACTION1", None, None)[1] is None
    timeline = read_timeline(tmp_path)
    assert [e["state"] for e in timeline][:2] == ["GAME_OVER", "NOT_FINISHED"] and timeline[-1]["levels_completed"] == 2


def test_a_failing_game_is_the_items_error(tmp_path):
    s = session(tmp_path, fail_on="ACTION1")
    s.play("RESET", None, None)
    shown, png = s.play("ACTION1", None, None)
    assert png is None and "the game failed" in shown["stop"]
    end = s.finish()
    assert end.error == "fk01-v1: fake: step ACTION1 failed" and end.scorecard is None
    assert read_end(tmp_path).error == end.error
    assert json.loads((tmp_path / "game" / "timeline.jsonl").read_text().splitlines()[-1])["state"] == "ERROR"


def test_the_time_budget_stops_play_before_the_runs_time_limit(tmp_path):
    import time

    from agent_eval.benchmarks.games.folder import time_budget

    assert time_budget(1800) == 1680 and time_budget(60) == 54 and time_budget(6) == 3 and time_budget(None) is None
    item = GameItem(id="fk01", version="v1", game_dir=tmp_path, title=None, baseline_actions=(3, 3), files_sha256="x")
    s = GameSession(item, FakeGame(), tmp_path / "game", max_actions=10, frame_scale=4, time_budget_s=0.3)
    shown, _ = s.play("RESET", None, None)
    assert "stop" not in shown and 0 <= shown["seconds_left"] <= 1
    time.sleep(0.35)
    shown, png = s.play("ACTION1", None, None)
    assert png is None and "time budget is spent" in shown["stop"] and len(s.game.steps) == 1
