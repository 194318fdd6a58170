"""A GameWorld run's switches (agent_eval/benchmarks/gameworld/rung.py): their values checked with the flag named,
the tools each mode and rung offers, and what compare pairs runs on."""

import pytest

from agent_eval.benchmarks.gameworld.rung import Rung


def test_the_defaults_are_vistas_protocol_computer_use_and_the_tasks_steps():
    rung = Rung.from_options({})
    assert (rung.protocol, rung.interface, rung.max_steps, rung.realtime, rung.notes) == (
        "vista",
        "computer-use",
        None,
        False,
        False,
    )
    assert rung.act_tool == "act" and Rung.from_options({"interface": "semantic"}).act_tool == "control"


@pytest.mark.parametrize(
    "given, words",
    [
        ({"max_steps": 0}, "--max-steps must be at least 1"),
        ({"context": "handoff:50"}, "--context must be native, handoff:cli or handoff:TOKENS"),
        ({"context": "summary"}, "--context must be native, handoff:cli or handoff:TOKENS"),
        ({"context": "handoff:5000", "protocol": "official", "notes": "on"}, "needs VISTA's protocol and --notes on"),
        ({"context": "handoff:5000"}, "needs VISTA's protocol and --notes on"),
    ],
)
def test_a_bad_value_names_its_flag(given, words):
    with pytest.raises(ValueError, match=words):
        Rung.from_options(given)


def test_each_mode_offers_its_tools_and_the_notes_in_every_mode():
    rung = Rung.from_options({"notes": "on", "context": "handoff:20000"})
    assert rung.handoff_tokens == 20000
    assert rung.tools("none") == ("act", "read_notes", "write_note")
    assert rung.tools("image") == ("act", "recall", "inspect", "read_pixels", "history", "read_notes", "write_note")
    assert Rung.from_options({"interface": "semantic"}).tools("python")[0] == "control"


def test_compare_pairs_runs_on_their_rungs():
    official = Rung.from_options({"protocol": "official"}).rungs("image", {"max_steps": 3})
    vista = Rung.from_options({}).rungs("image", {"max_steps": 3})
    assert {k for k in official if official[k] != vista[k]} == {"protocol"}
    assert Rung.from_options({"realtime": "on"}).rungs("none", {})["clock"] == "real time"


def test_vistas_words_redirect_and_untold_steps_are_switches_of_their_own():
    vista = Rung.from_options({"task_prompt": "vista", "final_answer": "redirect", "tell_steps": "off"})
    ours = Rung.from_options({})
    assert (ours.task_prompt, ours.final_answer, ours.tell_steps) == ("ours", "ends", True)
    differs = {k for k, v in vista.rungs("image", {}).items() if ours.rungs("image", {})[k] != v}
    assert differs == {"task prompt", "final answer", "steps told"}


@pytest.mark.parametrize(
    "given, says",
    [
        ({"task_prompt": "vista", "protocol": "official"}, "are VISTA's protocol's"),
    ],
)
def test_vistas_switches_are_checked(given, says):
    with pytest.raises(ValueError, match=says):
        Rung.from_options(given)


def test_session_images_is_the_game_cores_option_here_too():
    with pytest.raises(ValueError, match="--session-images needs VISTA's protocol and --notes on"):
        Rung.from_options({"session_images": 600})
    with pytest.raises(ValueError, match="--session-images must be at least 2"):
        Rung.from_options({"session_images": 1, "notes": "on"})
    rung = Rung.from_options({"session_images": 600, "notes": "on"})
    assert rung.session_images == 600 and rung.hands_off and rung.handoff_tokens is None


def test_the_hand_off_at_the_clis_compaction_point_is_a_context_policy_of_vistas_protocol():
    rung = Rung.from_options({"context": "handoff:cli", "notes": "on"})
    assert rung.handoff_at_cli and rung.hands_off and rung.handoff_tokens is None
    assert rung.rungs("image", {})["context and notes"] == "handoff:cli with notes"
    with pytest.raises(ValueError, match="needs VISTA's protocol and --notes on"):
        Rung.from_options({"context": "handoff:cli"})


def test_isolated_roles_come_with_vistas_tools_act_and_words():
    vista = {"game_tools": "vista", "act_schema": "vista", "task_prompt": "vista"}
    assert Rung.from_options(vista | {"roles": "isolated"}).roles == "isolated"
    assert Rung.from_options({}).roles == "shared" and Rung.from_options({}).act_schema == "ours"
    with pytest.raises(ValueError, match="--roles isolated is VISTA's setting"):
        Rung.from_options({"roles": "isolated", "game_tools": "vista"})
    with pytest.raises(ValueError, match="--act-schema vista is the computer-use"):
        Rung.from_options({"act_schema": "vista", "interface": "semantic"})
