"""A game that survives the harness: a session over a folder with recorded plays restores the game by replaying
them (checked frame by frame), goes on with the budget left, and refuses a game that does not replay the same."""

import json

import pytest

from agent_eval.benchmarks.arcgames.game_record import in_progress, read_end, read_plays
from agent_eval.benchmarks.arcgames.loader import GameItem
from agent_eval.benchmarks.arcgames.session import GameSession, NotReplayable
from agent_eval.benchmarks.arcgames.telling import continuation
from agent_eval.benchmarks.games.folder import read_restores
from support.fakegame import FakeGame

ITEM = GameItem(id="fk01", version="v1", game_dir=None, title=None, baseline_actions=(3, 3), files_sha256="abc")


def session(tmp_path, game=None, max_actions=10, **kw):
    return GameSession(ITEM, game or FakeGame(), tmp_path / "game", max_actions=max_actions, frame_scale=2, **kw)


def play_all(s, actions):
    for a in actions:
        s.play(*(a if isinstance(a, tuple) else (a, None, None)))


def test_every_play_is_on_disk_with_its_frame_hashes_before_it_is_answered(tmp_path):
    s = session(tmp_path)
    play_all(s, ["RESET", "ACTION1", "ACTION5"])
    plays = read_plays(tmp_path / "game")  # read while the session is still open: as a crash would leave it
    assert [p.action for p in plays] == ["RESET", "ACTION1", "ACTION5"]
    assert [len(p.frame_hashes) for p in plays] == [1, 1, 3] and plays[-1].frames == [3, 4, 5]
    assert all(p.game_s is not None for p in plays)
    record = json.loads((tmp_path / "game" / "game.json").read_text())
    assert record["seed"] == 0 and record["files_sha256"] == "abc" and record["version"] == "v1"
    assert in_progress(tmp_path) is not None


def test_a_killed_game_is_restored_and_goes_on_with_the_budget_left(tmp_path):
    first = session(tmp_path, max_actions=6)
    play_all(first, ["RESET", "ACTION1", "ACTION1", ("ACTION6", 5, 7)])
    # the harness dies: no finish(), the game process gone; a new one replays the record
    game = FakeGame()
    again = session(tmp_path, game=game, max_actions=6)
    assert game.steps == [("RESET", None, None), ("ACTION1", None, None), ("ACTION1", None, None), ("ACTION6", 5, 7)]
    assert again.actions_used == 4 and again.archive.count == 4 and len(again.plays) == 4
    assert "2 left" in again.progress_words() and "0 of 2 levels" in again.progress_words()
    shown, _ = again.play("ACTION1", None, None)  # x reaches 3: level 1 done, in the restored state
    assert shown["step"] == 5 and shown["frames"] == [5] and shown["levels_completed"] == "1 of 2"
    assert shown["actions_left"] == 1
    end = again.finish()
    assert end.actions_used == 5 and end.scorecard["actions"] == 5  # the new process played all 5, once
    assert [r["outcome"] for r in read_end(tmp_path).restores] == ["replayed"]
    assert [p.step for p in read_plays(tmp_path / "game")] == [1, 2, 3, 4, 5]


def test_a_game_that_does_not_replay_the_same_is_refused_with_where(tmp_path):
    first = session(tmp_path, game=FakeGame(drift=1))
    play_all(first, ["RESET", "ACTION1"])
    with pytest.raises(NotReplayable, match=r"does not replay identically: step 1 \(RESET\)"):
        session(tmp_path, game=FakeGame(drift=2))
    assert read_restores(tmp_path / "game") == []  # nothing restored


def test_another_game_file_or_a_failed_step_is_not_continued(tmp_path):
    first = session(tmp_path)
    play_all(first, ["RESET"])
    changed = GameItem(id="fk01", version="v1", game_dir=None, title=None, baseline_actions=(3, 3), files_sha256="new")
    with pytest.raises(NotReplayable, match="files changed"):
        GameSession(changed, FakeGame(), tmp_path / "game", max_actions=5, frame_scale=2)
    broken = tmp_path / "b"
    s = GameSession(ITEM, FakeGame(fail_on="ACTION2"), broken / "game", max_actions=5, frame_scale=2)
    play_all(s, ["RESET", "ACTION2"])
    with pytest.raises(NotReplayable, match="failed at step 2"):
        GameSession(ITEM, FakeGame(), broken / "game", max_actions=5, frame_scale=2)


def test_a_line_cut_by_the_kill_is_a_play_never_answered(tmp_path):
    first = session(tmp_path)
    play_all(first, ["RESET", "ACTION1"])
    with (tmp_path / "game" / "timeline.jsonl").open("a") as f:
        f.write('{"step": 3, "action": "ACT')
    again = session(tmp_path)
    assert again.actions_used == 2
    again.play("ACTION1", None, None)  # its line starts on a line of its own, not glued to the cut one
    assert [p.step for p in read_plays(tmp_path / "game")] == [1, 2, 3]


def test_the_next_session_is_told_where_the_game_stands_and_the_last_play(tmp_path):
    first = session(tmp_path)
    play_all(first, ["RESET", ("ACTION6", 4, 9)])
    again = session(tmp_path)
    told = continuation(again, "Play the game.\n")
    assert "ACTION6 at (4, 9) (step 2)" in told.note and "8 left" in told.note
    assert told.prompt.startswith("Play the game.") and "already in progress" in told.prompt
    assert [p.name for p in told.images] == ["0002.png"] and told.images[0].is_file()


def test_the_games_hours_count_across_restarts(tmp_path):
    first = session(tmp_path, max_hours=1.0)
    play_all(first, ["RESET"])
    # an earlier process played 59 min 59.5 s of the hour
    lines = (tmp_path / "game" / "timeline.jsonl").read_text().splitlines()
    last = json.loads(lines[-1]) | {"game_s": 3599.5}
    (tmp_path / "game" / "timeline.jsonl").write_text("\n".join(lines[:-1] + [json.dumps(last)]) + "\n")
    again = session(tmp_path, max_hours=1.0)
    assert again.deadline - again._started <= 0.5
    import time

    time.sleep(0.6)
    shown, png = again.play("ACTION1", None, None)
    assert png is None and "time budget (1 h) is spent" in shown["stop"]
    assert again.finish().play_s >= 3600
