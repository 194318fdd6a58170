"""One AI GameStore game on the browser host, without an agent: decisions and restarts counted as VISTA counts them,
the score kept as the highest seen, the budget's end, the official protocol's restart before its inputs, and a game
that survives the harness: replayed move by move in a fresh browser with every frame checked, or refused
(NotReplayable) when its files changed; real time replayed exactly."""

import json
import time

import pytest

from agent_eval.benchmarks.aigamestore.loader import load_games
from agent_eval.benchmarks.aigamestore.protocol import checked_segments
from agent_eval.benchmarks.aigamestore.record import read_moves
from agent_eval.benchmarks.aigamestore.session import Budget, GameStoreSession, NotReplayable, PlayRefused
from agent_eval.benchmarks.games.folder import read_restores
from agent_eval.browser.host import PageHost
from support.aigamestore import ENDER, ender_game

NOOP = [["NOOP"]] * 5
END = [["SPACE"], ["NOOP"], ["NOOP"], ["NOOP"], ["NOOP"]]


@pytest.fixture
def game(tmp_path):
    return ender_game(tmp_path / "site")


def session(game, tmp_path, budget=Budget(5), name="b"):
    page = PageHost(game.site, scratch=tmp_path / f"browser-{name}")
    return page, GameStoreSession(game, page, tmp_path / "game", budget)


def test_decisions_restarts_and_the_score(game, tmp_path):
    page, s = session(game, tmp_path)
    with page:
        start = s.moves[0]
        # the start: 0.5 s, Enter, 1 s of play: 60 frames after the one that saw Enter
        assert (start.kind, start.decisions, len(start.frames), start.state["gamePhase"]) == ("start", 0, 1, "PLAYING")
        first = start.state["score"]
        move = s.play(checked_segments(NOOP))
        assert (move.decisions, len(move.frames), move.state["score"]) == (1, 5, first + 60)
        move = s.play(checked_segments(END))
        assert move.state["gamePhase"] == "GAME_OVER_LOSE" and s.ended and move.state["highScore"] == first + 60
        move = s.restart()  # R, Enter: a decision, a new episode
        assert (move.decisions, move.episode, move.state["gamePhase"]) == (3, 2, "PLAYING")
        assert s.raw_score() == first + 60  # the best seen, not the last
        s.play(checked_segments(NOOP))
        s.play(checked_segments(NOOP))
        assert s.over and "5 game seconds" in s.over
        with pytest.raises(PlayRefused, match="No move made"):
            s.play(checked_segments(NOOP))
        end = s.finish()
    assert (end.decisions, end.episodes, end.frames, end.raw_score) == (
        5,
        2,
        1 + 5 + 5 + 1 + 5 + 5,
        max(m.state["highScore"] for m in s.moves),
    )
    assert end.canvas == [32, 16] and end.won is False


def test_the_official_protocol_restarts_an_ended_game_before_its_inputs(game, tmp_path):
    page, s = session(game, tmp_path, Budget(5, protocol="official"))
    with page:
        s.play(checked_segments(END), via="reply", scratchpad="pad")
        move = s.play(checked_segments(NOOP), via="reply")
        assert move.restarted_first and move.decisions == 2 and move.episode == 2  # no decision of its own
        assert move.state["gamePhase"] == "PLAYING" and len(move.frames) == 5 and len(move.batches) == 2


def test_a_killed_game_is_replayed_with_every_frame_checked(game, tmp_path):
    page, s = session(game, tmp_path, Budget(10, realtime=True), "first")
    with page:
        s.play(checked_segments(NOOP))
        time.sleep(0.3)  # real time: the game runs on while "the model thinks"
        gap = s.play(checked_segments(END))
        s.restart()
        state, frames = dict(s.state), s.archive.count
    assert gap.gap_ms >= 300 and gap.batches[0][0] == {"op": "advance", "ms": gap.gap_ms}
    # (the harness dies here: the session never finished)
    page, again = session(game, tmp_path, Budget(10, realtime=True), "second")
    with page:
        assert again.restored["outcome"] == "replayed" and again.restored["moves"] == 4
        assert again.state == state and again.decisions == 3 and again.archive.count == frames
        move = again.play(checked_segments(NOOP))
        assert move.frames == list(range(frames + 1, frames + 6))  # numbering goes on
    assert [m.n for m in read_moves(tmp_path / "game")] == [1, 2, 3, 4, 5]
    assert read_restores(tmp_path / "game")[0]["outcome"] == "replayed"


def test_a_game_whose_files_changed_is_not_continued(game, tmp_path):
    page, s = session(game, tmp_path, name="first")
    with page:
        s.play(checked_segments(NOOP))
    (game.site / game.page).write_text(ENDER.replace("s.score += 1", "s.score += 2"))
    changed = load_games(game.site).items[0]
    with pytest.raises(NotReplayable, match="files changed"):
        with PageHost(changed.site, scratch=tmp_path / "browser-2") as page:
            GameStoreSession(changed, page, tmp_path / "game", Budget(5))


def test_a_recorded_frame_that_differs_is_found(game, tmp_path):
    page, s = session(game, tmp_path, name="first")
    with page:
        s.play(checked_segments(NOOP))
    timeline = tmp_path / "game" / "timeline.jsonl"
    lines = [json.loads(line) for line in timeline.read_text().splitlines()]
    lines[1]["hashes"][2] = "0" * 16  # as if the game had drawn something else
    timeline.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(NotReplayable, match="move 2 .play, decision 1. gave 5 frame"):
        with PageHost(game.site, scratch=tmp_path / "browser-2") as page:
            GameStoreSession(game, page, tmp_path / "game", Budget(5))


def test_errors_the_page_throws_while_it_loads_are_recorded(tmp_path):
    """As the public game3 does (a module's `export` in a classic script): the error is kept in game.json and
    result.json and counted with the errors thrown during the moves."""
    folder = tmp_path / "site" / "games" / "broken"
    folder.mkdir(parents=True)
    thrower = '<script>export const unused = 1;</script><script>setTimeout(() => { throw new Error("late"); }, 1200);'
    (folder / "index.html").write_text(ENDER.replace("<script>", thrower + "</script><script>", 1))
    game = load_games(tmp_path / "site").items[0]
    page, s = session(game, tmp_path)
    with page:
        s.play(checked_segments(NOOP))
        end = s.finish()
    loaded = json.loads((tmp_path / "game" / "game.json").read_text())["load_errors"]
    assert len(loaded) == 1 and "Unexpected token 'export'" in loaded[0]
    assert end.load_errors == loaded and end.page_errors == 2  # and the one thrown at 1.2 s, during the start
    assert json.loads((tmp_path / "game" / "result.json").read_text())["page_errors"] == 2
