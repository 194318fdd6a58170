"""The `game` tools of a GameWorld task on a real page (agent_eval/benchmarks/gameworld/game_server.py): the action
tool's schema is the role's own; the official protocol takes one action per decision and its looks reach only the
screens the decision was shown; the looks (recall, inspect, read_pixels, history) answer on the page's screenshots."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp.server.mcpserver import Image

from agent_eval.benchmarks.gameworld import game_server
from agent_eval.benchmarks.gameworld.protocol import Decisions
from agent_eval.benchmarks.gameworld.rung import Rung
from agent_eval.benchmarks.gameworld.session import StepRefused
from support import gameworld
from support.gameworld import WIN, open_session, task
from support.vista_browser import GAMEWORLD_TOOLS, caller

# the module's checkout and page host (pytest fixtures `checkout` and `host`)
checkout_fixture, host_fixture = gameworld.checkout_fixture, gameworld.host_fixture


def schema(server, name: str) -> dict:
    tools = {t.name: t for t in asyncio.run(server.list_tools())}
    return tools[name].input_schema


def test_the_action_tools_schema_is_the_roles(checkout, host, tmp_path):
    session = open_session(host, task(checkout), tmp_path / "t")
    official = game_server.build_server(
        game_server.GameTools(session, Rung("official"), Decisions(session, "", Rung("official"))), "image"
    )
    act = schema(official, "act")["properties"]
    assert act["key"]["enum"] == ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"]
    assert act["action"]["enum"] == [
        "press_key",
        "press_keys",
        "click",
        "click_hold",
        "mouse_move",
        "drag",
        "scroll",
        "wait",
    ]
    assert "reasoning" in act and "role" not in act and "text" not in act  # no single-character key: no typing
    vista = game_server.build_server(game_server.GameTools(session, Rung("vista", "semantic")), "none")
    names = [t.name for t in asyncio.run(vista.list_tools())]
    control = schema(vista, "control")["properties"]
    assert names == ["control"] and "reasoning" not in control and "cell" in control
    assert control["name"]["enum"] == sorted(["wait", "move_up", "move_down", "move_left", "move_right", "light_cell"])


def test_the_official_protocol_takes_one_action_per_decision(checkout, host, tmp_path):
    session = open_session(host, task(checkout), tmp_path / "t")
    rung = Rung("official")
    decisions = Decisions(session, "", rung)
    tools = game_server.GameTools(session, rung, decisions)
    first = json.loads(tools.act(None, WIN[0], "because")[0])
    assert first["step"] == 1 and first["stop"].startswith("This decision is over")
    again = json.loads(tools.act(None, WIN[1], None)[0])
    assert again["stop"].startswith("No step taken: you already acted") and len(session.steps) == 1
    assert session.steps[0].reasoning == "because" and session.steps[0].decision == 1
    assert decisions.next(False) is not None and decisions.decision == 2 and decisions.shown() == [1, 2]


def test_the_looks_answer_on_screenshots_and_stay_within_the_decision(checkout, host, tmp_path):
    session = open_session(host, task(checkout), tmp_path / "t")
    rung = Rung("official")
    decisions = Decisions(session, "", rung)
    tools = game_server.GameTools(session, rung, decisions)
    for move in WIN[:2]:
        tools.act(None, move, None)
        decisions.next(False)
    assert decisions.shown() == [1, 2, 3]  # the two preceding steps' screens and the current one
    pixels = json.loads(tools.read_pixels(1, 440, 20, 20, 20, 2, 2))
    assert pixels["palette"] == {"A": "#F7C948"} and pixels["grid"] == ["AA", "AA"]  # the yellow beacon at h1
    meta, view = tools.inspect(1, 420, 0, 60, 60, 4, 20)
    assert json.loads(meta)["view_size"] == {"width": 240, "height": 240} and isinstance(view, Image)
    assert len(tools.recall([1, 3], None)) == 4
    assert "step 2: click (450, 90) left; decided on screen 2, screen after 3" in tools.history(None, None, None)
    session.act(0, {"action": "wait"}, "computer_use")  # the third decision's step: screen 4
    decisions.next(False)
    with pytest.raises(StepRefused, match="screen 1 is not one this decision was shown"):
        tools.recall([1], None)
    vista = game_server.GameTools(session, Rung("vista"))
    assert len(vista.recall([1], None)) == 2  # VISTA's protocol: every screen within reach


def test_with_tell_steps_off_act_says_neither_the_step_nor_the_steps_left(checkout, host, tmp_path):
    session = open_session(host, task(checkout), tmp_path / "t", max_steps=2)
    tools = game_server.GameTools(session, Rung("vista", tell_steps=False))
    first = json.loads(tools.act(None, {"action": "wait"}, None)[0])
    assert first == {"frame": 2}
    last = json.loads(tools.act(None, {"action": "wait"}, None)[0])
    assert set(last) == {"frame", "stop"} and not any(c.isdigit() for c in last["stop"])  # no count, no horizon
    server = game_server.build_server(tools, "none")
    (act,) = asyncio.run(server.list_tools())
    assert "steps left" not in act.description and "Returns the screen after the step" in act.description
    spent = {"step": 2, "steps_left": 0, "frame": 3, "stop": "the step budget (2) is spent. Stop now."}
    assert game_server._untold(spent, 2) == {"frame": 3, "stop": "the step budget is spent. Stop now."}


def test_vistas_tools_over_the_tasks_events(checkout, host, tmp_path):
    """--game-tools vista: act answered in VISTA's words with its screen after VISTA's label (an invalid action a
    step all the same), then VISTA's inspect, read_pixels, history and note tools over the task's events."""
    from agent_eval.benchmarks.gameworld.rung import NOTE_PURPOSES
    from agent_eval.benchmarks.notes import Notes

    session = open_session(host, task(checkout), tmp_path / "t", max_steps=3)
    rung = Rung.from_options({"game_tools": "vista", "notes": "on"})
    server = game_server.build_server(
        game_server.GameTools(session, rung, notes=Notes(tmp_path, NOTE_PURPOSES)), "image"
    )
    assert [t.name for t in asyncio.run(server.list_tools())] == GAMEWORLD_TOOLS
    call = caller(server)

    label = '<visual kind="current" event="{}" moment="0" view="screen" size="480x360"></visual>'
    assert call("act", WIN[0]) == (False, ["Final game screen.", label.format(1), "image"])
    invalid = call("act", {"action": "click", "x": 9999, "y": 5})
    assert invalid == (True, ["No valid action was executed. Final game screen.", label.format(2), "image"])
    events = json.loads(call("history", {"start": 1})[1][0])["events"]
    assert [e["event"] for e in events] == [1, 2] and not events[1]["success"]
    assert events[1]["action"] == {"name": "act", "arguments": {"action": "click", "x": 9999, "y": 5}}  # as given
    failed, inspected = call("inspect", {"question": "Lit?", "views": [{"label": "first", "event": 1}]})
    assert not failed and inspected[-1] == "image"
    assert call("act", WIN[1])[1][0] == "Final game screen. The task has ended."  # the budget of 3 spent


def test_vistas_act_counts_its_screens_toward_the_session_images_cap(checkout, host, tmp_path):
    """--session-images under --game-tools vista: act's screen counts as ours does; the step that would reach the cap
    is not taken, answered as VISTA answers an error with the hand-off's request."""
    from agent_eval.benchmarks.games.handoff import HANDOFF_VISTA_TOOLS, HandoffState
    from agent_eval.benchmarks.gameworld.rung import NOTE_PURPOSES
    from agent_eval.benchmarks.notes import Notes

    session = open_session(host, task(checkout), tmp_path / "t", max_steps=5)
    rung = Rung.from_options({"game_tools": "vista", "notes": "on", "session_images": 3})
    handoff = HandoffState(images_cap=3, ask=HANDOFF_VISTA_TOOLS)
    tools = game_server.GameTools(session, rung, handoff=handoff, notes=Notes(tmp_path, NOTE_PURPOSES))
    call = caller(game_server.build_server(tools, "image"))
    assert call("act", {"action": "wait"})[1][-1] == "image" and handoff.images == 1
    assert call("act", {"action": "wait"})[1][-1] == "image" and handoff.images == 2
    failed, refused = call("act", {"action": "wait"})
    assert failed and "no more than 2 are given in one session" in refused[0] and len(session.steps) == 2


def test_vistas_act_schema_and_its_answers_to_bad_input(checkout, host, tmp_path):
    """--act-schema vista: act is VISTA's (computer_use.py action_schema: one closed object per action of the role,
    durations up to 2 s); arguments outside it are refused in VISTA's runtime's words with no step taken; an opposing
    key pair, which its description forbids, is a step with nothing sent."""
    session = open_session(host, task(checkout), tmp_path / "t", max_steps=5)
    rung = Rung.from_options({"game_tools": "vista", "act_schema": "vista"})
    server = game_server.build_server(game_server.GameTools(session, rung), "none")
    act = next(t for t in asyncio.run(server.list_tools()) if t.name == "act")
    variants = act.input_schema["oneOf"]
    assert act.input_schema["type"] == "object" and set(act.input_schema) == {"type", "oneOf"}
    assert [v["properties"]["action"]["const"] for v in variants] == [
        "wait",
        "press_key",
        "press_keys",
        "click",
        "click_hold",
        "mouse_move",
        "drag",
        "scroll",
    ]  # no single-character key: no `type`
    assert all(v["additionalProperties"] is False for v in variants)
    keys = variants[1]["properties"]["key"]["enum"]
    assert keys == ["ArrowDown", "ArrowLeft", "ArrowRight", "ArrowUp"]  # the catalog's names, sorted, as VISTA's
    assert variants[3]["properties"]["x"]["maximum"] == 479 and variants[0]["properties"]["duration"]["maximum"] == 2
    assert act.description.splitlines()[:2] == [
        "Execute exactly one GameWorld input for the current role, not an action list.",
        "Role 0 (player): keys [ArrowDown, ArrowLeft, ArrowRight, ArrowUp], mouse enabled.",
    ]
    assert "Forbidden opposing key pairs: ArrowLeft+ArrowRight, ArrowUp+ArrowDown." in act.description
    call = caller(server)
    for bad in (
        {"action": "press_key", "key": "ArrowUp", "duration": 3},  # past VISTA's 2 s
        {"action": "click", "x": 450, "y": 30, "duration": 0.1},  # click has no duration
        {"action": "press_keys", "keys": ["ArrowUp"]},  # exactly two
        {"action": "jump"},
        {"action": "click", "x": 480, "y": 30},  # off the screen
    ):
        assert call("act", bad) == (True, ["Invalid tool arguments."]), bad
    assert session.steps == []
    opposing = call("act", {"action": "press_keys", "keys": ["ArrowLeft", "ArrowRight"]})
    assert opposing[1][0] == "No valid action was executed. Final game screen."
    assert session.steps[0].action is None and "opposing" in (session.steps[0].invalid or "")
    assert call("act", WIN[0])[1][0] == "Final game screen." and session.steps[1].action["x"] == 450


def test_isolated_roles_each_see_their_own_act_and_events(host, tmp_path):
    """--roles isolated (roles.py): the server offers the playing role's act (its keys); one act a turn, a second
    refused in VISTA's words; as the next turn begins the tools become the next role's, whose events are its own:
    the start screen, the screen its turn began on (the other role's move), its steps; never the other's actions."""
    from agent_eval.benchmarks.gameworld.roles import DECISION_ENDED, turns_for
    from support.gameworld import RELAY_WIN, write_relay_checkout

    item = task(write_relay_checkout(tmp_path / "relay"), "91_01")
    session = open_session(host, item, tmp_path / "t")
    options = {"game_tools": "vista", "act_schema": "vista", "task_prompt": "vista", "notes": "on"}
    turns = turns_for(session, Rung.from_options(options | {"roles": "isolated"}), tmp_path / "item")
    assert turns is not None
    server = game_server.build_server(game_server.GameTools(session, Rung.from_options(options), turns=turns), "image")
    call = caller(server)

    def offered() -> str:
        return next(t for t in asyncio.run(server.list_tools()) if t.name == "act").description.splitlines()[1]

    assert offered() == "Role 0 (amber): keys [a, d], mouse disabled."
    assert call("act", RELAY_WIN[0][0])[1][0] == "Final game screen." and turns.turn_over()
    assert call("act", RELAY_WIN[0][1]) == (True, [DECISION_ENDED]) and len(session.steps) == 1
    assert turns.begin() == 1 and offered() == "Role 1 (teal): keys [ArrowLeft, ArrowRight], mouse disabled."
    assert call("act", RELAY_WIN[0][1]) == (True, ["Invalid tool arguments."])  # amber's key is not teal's
    call("act", RELAY_WIN[1][0])
    events = json.loads(call("history", {})[1][0])["events"]
    assert [e["action"] for e in events] == [None, None, {"name": "act", "arguments": RELAY_WIN[1][0]}]
    call("write_working", {"content": "teal's plan"})
    turns.begin()
    assert call("read_working", {})[1][0] != "teal's plan"  # each role its own notes
    events = json.loads(call("history", {})[1][0])["events"]
    assert [e["action"] for e in events] == [None, {"name": "act", "arguments": RELAY_WIN[0][0]}, None]


def test_one_action_per_observation_refuses_an_act_whose_last_screen_the_model_has_not_seen(checkout, host, tmp_path):
    """--action-batches off: a second act before the next model request takes no step, in our words (the tool's
    error) and in VISTA's (its answer); the next request lets it go."""
    from agent_eval.benchmarks.games.protocol import UNSEEN, ObservationGate

    session = open_session(host, task(checkout), tmp_path / "t", max_steps=5)
    gate = ObservationGate(True)
    ours = game_server.GameTools(session, Rung("vista"), gate=gate)
    assert ours.act(None, {"action": "wait"}, None)[-1] is not None and len(session.steps) == 1
    with pytest.raises(StepRefused, match="one action per observation"):
        ours.act(None, {"action": "wait"}, None)
    gate.model_asked()
    ours.act(None, {"action": "wait"}, None)
    call = caller(
        game_server.build_server(game_server.GameTools(session, Rung("vista", game_tools="vista"), gate=gate), "none")
    )
    assert call("act", {"action": "wait"}) == (True, [UNSEEN]) and len(session.steps) == 2
    gate.model_asked()
    assert not call("act", {"action": "wait"})[0] and len(session.steps) == 3
