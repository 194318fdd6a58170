"""The AI GameStore `game` tools on a real page (no agent CLI): what play says (never the score) and shows (five
frames), refusals the model can act on, the looks, the notes, and the hand-off: once the context passed the
threshold the next answer asks the agent to update its notes and stop, later moves are refused until a fresh
session begins."""

import json

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from agent_eval.benchmarks.aigamestore.benchmark import NOTE_PURPOSES
from agent_eval.benchmarks.aigamestore.game_server import offered, tool_functions
from agent_eval.benchmarks.aigamestore.session import Budget, GameStoreSession
from agent_eval.benchmarks.games.handoff import HANDOFF, HandoffState, parse_context
from agent_eval.benchmarks.notes import Notes
from agent_eval.browser.host import PageHost
from support.aigamestore import ender_game
from support.vista_browser import AIGAMESTORE_TOOLS, caller

NOOP = [["NOOP"]] * 5


@pytest.fixture
def tools(tmp_path):
    game = ender_game(tmp_path / "site")
    handoff = HandoffState(5000, ask=HANDOFF)
    with PageHost(game.site, scratch=tmp_path / "browser") as page:
        session = GameStoreSession(game, page, tmp_path / "game", Budget(4))
        functions = {
            name: fn for name, (fn, _) in tool_functions(session, Notes(tmp_path, NOTE_PURPOSES), handoff).items()
        }
        yield functions, handoff, session


def test_play_the_looks_the_notes_and_the_hand_off(tools):
    call, handoff, session = tools
    answer = call["play"](NOOP)
    shown = json.loads(answer[0])
    assert shown == {"decision": 1, "decisions_left": 3, "episode": 1, "frames": [2, 3, 4, 5, 6]}  # no score
    assert len(answer) == 6
    with pytest.raises(ToolError, match="exactly 5 segments"):
        call["play"](NOOP[:4])
    assert len(call["recall"](decision=1)) == 10 and "decision 1 · episode 1" in call["history"]()
    assert "saved (version 1" in call["write_note"]("GUIDE.md", "press space to end")
    handoff.context_seen(4000)  # below the threshold: nothing
    assert "stop" not in json.loads(call["play"](NOOP)[0])
    handoff.context_seen(6000)
    assert json.loads(call["play"](NOOP)[0])["stop"].startswith("Your context reached 6000 tokens. Bring your notes")
    with pytest.raises(ToolError, match="No move made: Bring your notes up to date"):
        call["play"](NOOP)
    assert session.decisions == 3 and handoff.next_reason(False).startswith("hand-off: the context reached 6000")
    handoff.begin()
    last = json.loads(call["restart"]()[0])
    assert last["decision"] == 4 and last["stop"].startswith("the run's 4 game seconds")


def test_with_tell_steps_off_play_says_neither_the_decision_nor_the_decisions_left(tmp_path):
    game = ender_game(tmp_path / "site")
    with PageHost(game.site, scratch=tmp_path / "browser") as page:
        session = GameStoreSession(game, page, tmp_path / "game", Budget(4))
        call = {name: fn for name, (fn, _) in tool_functions(session, tell_steps=False).items()}
        assert json.loads(call["play"](NOOP)[0]) == {"episode": 1, "frames": [2, 3, 4, 5, 6]}
        assert json.loads(call["restart"]()[0]) == {"episode": 2, "frames": [7]}


def test_which_tools_a_protocol_offers():
    assert offered("vista", "none", False) == ("play", "restart")
    assert offered("vista", "image", True) == (
        "play",
        "restart",
        "recall",
        "inspect",
        "read_pixels",
        "history",
        "read_notes",
        "write_note",
    )
    assert offered("official", "none", False) == ()  # one reply per decision: no tools at all
    assert offered("official", "python", False) == ("recall", "inspect", "read_pixels", "history")


@pytest.mark.parametrize("value, expected", [(None, None), ("native", None), ("handoff:20000", 20000)])
def test_the_context_policy(value, expected):
    assert parse_context(value)[0] == expected


@pytest.mark.parametrize("value", ["handoff:10", "handoff", "compact"])
def test_a_bad_context_policy_names_the_flag(value):
    with pytest.raises(ValueError, match="--context must be native or handoff:TOKENS"):
        parse_context(value)


@pytest.mark.parametrize(
    "given, says",
    [
        ({"decisions": 0}, "--decisions must be at least 1"),
        ({"context": "handoff:5000"}, "needs VISTA's protocol and --notes on"),
        ({"context": "handoff:5000", "notes": "on", "protocol": "official"}, "needs VISTA's protocol"),
        ({"final_answer": "redirect", "protocol": "official"}, "are VISTA's protocol's"),
    ],
)
def test_the_kinds_options_are_checked(given, says):
    from agent_eval.benchmarks.aigamestore.benchmark import Options

    with pytest.raises(ValueError, match=says):
        Options.from_given(given)
    assert Options.from_given({"context": "handoff:5000", "notes": "on"}).handoff_tokens == 5000


def test_session_images_hand_off_before_a_session_holds_n_images(tmp_path):
    """--session-images, the game core's image cap: play gives five frames, so with a cap of 8 the second play would
    reach it and is not made (the agent is asked to hand off); a fresh session counts again."""
    game = ender_game(tmp_path / "site")
    handoff = HandoffState(images_cap=8, ask=HANDOFF)
    with PageHost(game.site, scratch=tmp_path / "browser") as page:
        session = GameStoreSession(game, page, tmp_path / "game", Budget(4))
        call = {name: fn for name, (fn, _) in tool_functions(session, handoff=handoff).items()}
        assert len(call["play"](NOOP)) == 6 and handoff.images == 5
        refused = call["play"](NOOP)
        assert len(refused) == 1 and "no more than 7 are given in one session" in json.loads(refused[0])["stop"]
        assert session.decisions == 1 and handoff.next_reason(False).startswith("hand-off: the session's images")
        handoff.begin()
        assert len(call["play"](NOOP)) == 6 and session.decisions == 2


def test_session_images_needs_vistas_protocol_and_notes():
    from agent_eval.benchmarks.aigamestore.benchmark import Options

    with pytest.raises(ValueError, match="--session-images needs VISTA's protocol and --notes on"):
        Options.from_given({"session_images": 600})
    assert Options.from_given({"session_images": 600, "notes": "on"}).session_images == 600


def test_vistas_tools_answer_in_vistas_words_over_the_games_events(tmp_path):
    """--game-tools vista: VISTA's play and restart, then inspect, read_pixels, history and the notes over the
    game's events (event 0 the start, one a decision), each frame after VISTA's label; never the score or a count."""
    import asyncio

    from agent_eval.benchmarks.aigamestore import game_server

    game = ender_game(tmp_path / "site")
    with PageHost(game.site, scratch=tmp_path / "browser") as page:
        session = GameStoreSession(game, page, tmp_path / "game", Budget(2))
        notes = Notes(tmp_path, NOTE_PURPOSES, {"GUIDE.md": 65536, "WORKING.md": 16384})
        server = game_server.vista_server(session, game_server.vista_offered("image", True), notes)
        assert [t.name for t in asyncio.run(server.list_tools())] == AIGAMESTORE_TOOLS
        call = caller(server)

        failed, played = call("play", {"segments": NOOP})
        assert not failed and played[0] == "The game ran for one game second and is paused."
        assert played[1::2] == [f'<visual kind="{k}" event="1" moment="{m}" view="screen" size="32x16"></visual>'
                                for m, k in enumerate(["historical"] * 4 + ["current"])]  # fmt: skip
        assert played[2::2] == ["image"] * 5
        assert call("play", {"segments": NOOP[:4]}) == (True, ["Invalid tool arguments."])
        events = json.loads(call("history", {})[1][0])["events"]
        assert [e["action"] for e in events] == [None, {"name": "play", "arguments": {"segments": NOOP}}]
        assert events[0]["result"] == game_server.OBJECTIVE and 'score"' not in json.dumps(events)
        view = {"label": "start", "event": 0, "region": {"x": 0, "y": 0, "width": 8, "height": 8}}
        failed, inspected = call("inspect", {"question": "What is there?", "views": [view]})
        assert not failed and inspected[-1] == "image" and '"visual_kind":"inspection"' in inspected[0]
        assert call("read_guide", {}) == (False, ["No reliable model yet.\n"])
        assert call("write_working", {"content": "plan"}) == (False, ["WORKING.md updated."])
        failed, restarted = call("restart", {})
        assert restarted[0] == "The game restarted and is paused at its first frame. The run's game seconds are spent."
        assert call("play", {"segments": NOOP}) == (True, ["The run has ended."])


def test_compare_reads_each_of_the_profiles_switches_as_a_rung():
    from agent_eval.benchmarks.aigamestore.hooks import GameStoreReading
    from agent_eval.benchmarks.registry import profile_of

    vista = {k: v for k, v in profile_of("vista", "aigamestore").options.items() if k not in ("tools", "system_prompt")}
    ours, theirs = GameStoreReading().rungs("image", {}), GameStoreReading().rungs("image", vista)
    assert {k for k in ours if ours[k] != theirs[k]} == {
        "notes", "decisions", "task prompt", "final answer", "steps told", "game tools", "action batches"
    }  # fmt: skip


def test_codexs_checkpoint_tool_saves_the_notes_only_while_a_hand_off_is_asked(tmp_path):
    """VISTA's save_compact_checkpoint (its Codex player's): refused in VISTA's words until a checkpoint is pending
    (here: the hand-off asked), then GUIDE.md (unless null) and WORKING.md saved at once, once."""

    from agent_eval.benchmarks.aigamestore import game_server

    game = ender_game(tmp_path / "site")
    handoff = HandoffState(5000, ask=HANDOFF)
    with PageHost(game.site, scratch=tmp_path / "browser") as page:
        session = GameStoreSession(game, page, tmp_path / "game", Budget(4))
        notes = Notes(tmp_path, NOTE_PURPOSES, {"GUIDE.md": 65536, "WORKING.md": 16384})
        names = game_server.vista_offered("image", True, codex=True)
        assert names[-1] == "save_compact_checkpoint" and "save_compact_checkpoint" not in game_server.vista_offered(
            "image", True
        )
        call = caller(game_server.vista_server(session, names, notes, handoff))
        saved = {"guide": None, "working_memory": "left of the blocks"}
        assert call("save_compact_checkpoint", saved) == (True, ['{"error":"No compact checkpoint is pending."}'])
        handoff.context_seen(6000)
        assert "Your context reached 6000 tokens" in call("play", {"segments": NOOP})[1][0]  # the hand-off asked
        assert call("save_compact_checkpoint", saved) == (
            False,
            ['{"checkpoint_saved":true,"guide_chars":0,"guide_updated":false,"working_chars":18}'],
        )
        assert notes.read()["WORKING.md"] == "left of the blocks\n" and notes.read()["GUIDE.md"] == ""
        assert call("save_compact_checkpoint", saved)[1] == ['{"already_saved":true,"checkpoint_saved":true}']


def test_vistas_tools_count_their_images_toward_the_session_images_cap(tmp_path):
    """--session-images under --game-tools vista: VISTA's play (five frames) and inspect (a view an image) count as
    ours do; the call that would reach the cap does nothing and answers, as VISTA answers an error, the hand-off's
    request in VISTA's words; a fresh session counts again."""
    from agent_eval.benchmarks.aigamestore import game_server
    from agent_eval.benchmarks.games.handoff import HANDOFF_VISTA_TOOLS

    game = ender_game(tmp_path / "site")
    handoff = HandoffState(images_cap=8, ask=HANDOFF_VISTA_TOOLS)
    with PageHost(game.site, scratch=tmp_path / "browser") as page:
        session = GameStoreSession(game, page, tmp_path / "game", Budget(4))
        notes = Notes(tmp_path, NOTE_PURPOSES, {"GUIDE.md": 65536, "WORKING.md": 16384})
        call = caller(game_server.vista_server(session, game_server.vista_offered("image", True), notes, handoff))
        assert call("play", {"segments": NOOP})[1].count("image") == 5 and handoff.images == 5
        view = {"label": "start", "event": 0, "region": {"x": 0, "y": 0, "width": 8, "height": 8}}
        failed, inspected = call("inspect", {"question": "What is there?", "views": [view, view]})
        assert not failed and inspected.count("image") == 2 and handoff.images == 7
        failed, refused = call("play", {"segments": NOOP})
        assert failed and refused == [refused[0]] and "no more than 7 are given in one session" in refused[0]
        assert HANDOFF_VISTA_TOOLS in refused[0] and session.decisions == 1
        assert call("inspect", {"question": "Again?", "views": [view]})[0]  # a look at the cap is refused too
        assert handoff.next_reason(False).startswith("hand-off: the session's images")
        handoff.begin()
        assert call("play", {"segments": NOOP})[1].count("image") == 5 and session.decisions == 2


def test_one_action_per_observation_refuses_a_play_whose_last_result_the_model_has_not_seen(tmp_path):
    """--action-batches off (the core's ObservationGate): a second play before the next model request is refused and
    spends nothing, in our words with our tools and in VISTA's with its tools; the next request lets the next one go."""
    from agent_eval.benchmarks.aigamestore import game_server
    from agent_eval.benchmarks.games.protocol import BLIND, UNSEEN, ObservationGate

    game = ender_game(tmp_path / "site")
    with PageHost(game.site, scratch=tmp_path / "browser") as page:
        session = GameStoreSession(game, page, tmp_path / "game", Budget(6))
        gate = ObservationGate(True)
        call = {name: fn for name, (fn, _) in tool_functions(session, gate=gate).items()}
        assert len(call["play"](NOOP)) == 6
        with pytest.raises(ToolError, match="one action per observation"):
            call["restart"]()
        assert session.decisions == 1 and gate.refused == 1 and BLIND.startswith("No action taken")
        gate.model_asked()
        assert len(call["restart"]()) == 2 and session.decisions == 2
        vista = caller(game_server.vista_server(session, game_server.vista_offered("none", False), gate=gate))
        assert vista("play", {"segments": NOOP}) == (True, [UNSEEN]) and session.decisions == 2
        gate.model_asked()
        assert not vista("play", {"segments": NOOP})[0] and session.decisions == 3
        assert ObservationGate(False).refuses() is None  # --action-batches on: every play of a message runs
