"""A game's context policy, its pure parts: when a session hands off (context past N tokens, the CLI's compaction
point, the image cap), how the game tools refuse past the cap, what the next session is told in each observation
form and that every image given is counted. The real CLIs: tests/e2e/test_arcgames_context_e2e.py."""

import json
import time

import pytest

from agent_eval.benchmarks.arcgames.ladder import Ladder
from agent_eval.benchmarks.arcgames.loader import GameItem
from agent_eval.benchmarks.arcgames.ours_tools import tool_functions
from agent_eval.benchmarks.arcgames.session import GameSession
from agent_eval.benchmarks.arcgames.telling import continuation
from agent_eval.benchmarks.games.handoff import CHECKPOINT, HandoffState, handoff_request
from support.fakegame import FakeGame


def session(tmp_path, **options):
    item = GameItem(id="fk01", version="v1", game_dir=tmp_path, title=None, baseline_actions=(3, 3), files_sha256="x")
    return GameSession(item, FakeGame(), tmp_path / "game", max_actions=50, frame_scale=4, **options)


def test_the_image_cap_allows_one_image_fewer_than_its_number_per_session():
    state = HandoffState(images_cap=4)
    state.shown(2)
    assert state.image_room(1) is None  # the third image
    state.shown(1)
    refusal = state.image_room(1)  # the fourth would reach the cap
    assert refusal is not None and "No action taken" in refusal and "HANDOFF" in refusal
    assert state.told and state.reason == "the session's images reached 3 (--session-images 4)"
    state.begin()  # a fresh session: nothing shown yet
    assert state.image_room(1) is None and not state.told


def test_the_images_a_request_carried_count_only_for_the_session_they_belong_to():
    state = HandoffState(images_cap=10)
    before = time.monotonic()
    state.begin()
    state.request_carried(9, before)  # a request of the session before (its body read late)
    assert state.image_room(1) is None
    state.request_carried(9, time.monotonic())  # this session's: e.g. frames the agent opened with its shell
    assert state.image_room(1) is not None


def test_only_a_run_that_hands_off_at_the_cli_point_is_told_of_it():
    native = HandoffState(tokens=50_000)
    native.compaction_point("its hook blocked it")
    assert native.stop_now() is None
    at_cli = HandoffState(at_cli=True)
    at_cli.compaction_point("claude-code's PreCompact hook blocked its compaction (trigger auto)")
    stop = at_cli.stop_now()
    assert stop is not None and "where your CLI would compact it" in stop and at_cli.told
    assert at_cli.reason == (
        "the CLI reached its compaction point: claude-code's PreCompact hook blocked its compaction (trigger auto) "
        "(--context handoff:cli)"
    )
    assert at_cli.stop_now() is None  # told once


def test_the_ladder_reads_the_context_policy_and_the_image_cap():
    ladder = Ladder.from_options({"context": "handoff:cli", "session_images": 600})
    assert ladder.handoff_at_cli and ladder.hands_off and ladder.handoff_tokens is None
    assert ladder.rungs("none", {})["context and notes (iii, iv)"] == "handoff:cli, at most 599 images a session"
    assert Ladder.from_options({"context": "handoff:50000"}).rungs("none", {})["context and notes (iii, iv)"] == (
        "handoff:50000"
    )
    assert not Ladder().hands_off
    for bad, flag in (({"context": "handoff:clii"}, "--context"), ({"session_images": 1}, "--session-images")):
        with pytest.raises(ValueError, match=flag):
            Ladder.from_options(bad)


def test_the_game_tools_refuse_past_the_cap_and_take_no_action(tmp_path):
    s = session(tmp_path, ladder=Ladder(session_images=3))
    tools = tool_functions(s, 4, Ladder(session_images=3))
    play = tools["play"][0]
    assert len(play("RESET")) == 2 and len(play("ACTION1")) == 2  # JSON and image, twice
    refused = play("ACTION1")
    assert len(refused) == 1 and "No action taken" in json.loads(refused[0])["stop"]
    assert s.actions_used == 2 and s.observations["images"] == 2
    assert "--session-images 3" in json.loads(tools["recall"][0](frames=[1])[0])["stop"]
    assert "--session-images 3" in json.loads(tools["inspect"][0](frame=1)[0])["stop"]
    s.begin_session()  # the next session: the cap counts again
    assert len(tools["inspect"][0](frame=1)) == 2 and s.observations["images"] == 3  # inspect's image counted


def test_text_frames_never_reach_the_cap_and_never_count_as_images(tmp_path):
    s = session(tmp_path, ladder=Ladder(session_images=2))
    play = tool_functions(s, 4, Ladder(observation="text", session_images=2))["play"][0]
    for _ in range(4):
        out = play("ACTION5")
        assert len(out) == 2 and isinstance(out[1], str)  # JSON and the grid as text
    assert s.observations["images"] == 0 and s.observations["text_chars"] == 4 * (64 * 65 - 1)


@pytest.mark.parametrize("observation", ["image", "text", "both"])
def test_a_handoff_carries_the_last_frame_in_the_rungs_form_and_counts_it(tmp_path, observation):
    s = session(tmp_path)
    s.play("RESET", None, None)
    s.play("ACTION1", None, None)
    s.begin_session()
    before = dict(s.observations)
    handed = continuation(s, "PROMPT", reason="hand-off: the CLI ran out of context", observation=observation)
    images = 1 if observation != "text" else 0
    text = 64 * 65 - 1 if observation != "image" else 0
    assert len(handed.images) == images
    assert ("Frame 2:\n" in handed.prompt) == (observation != "image")
    assert ("Its frame is attached." in handed.prompt) == (observation != "text")
    assert s.observations == {"images": before["images"] + images, "text_chars": before["text_chars"] + text}
    assert s.handoff.images == images  # the new session's count starts with its attachment


@pytest.mark.parametrize(
    ("game_tools", "named", "absent"),
    [("ours", "write_note", "write_working"), ("vista", "write_working", "write_note")],
)
def test_the_handoff_request_names_the_notes_tools_the_run_offers(tmp_path, game_tools, named, absent):
    """With VISTA's tools the request is VISTA's checkpoint prompt; write_note does not exist there."""
    s = session(tmp_path, ladder=Ladder(session_images=2, game_tools=game_tools))
    play = tool_functions(s, 4, Ladder(session_images=2))["play"][0]
    play("RESET")
    stop = json.loads(play("ACTION1")[0])["stop"]
    assert named in stop and absent not in stop and "<answer>HANDOFF</answer>" in stop
    if game_tools == "vista":
        assert stop.startswith("No action taken") and CHECKPOINT in stop
    assert json.loads(play("ACTION1")[0])["stop"].endswith(handoff_request(game_tools))  # and again, the same words
