"""VISTA's rungs through both real CLIs: each rung offers exactly its game tools (a tool of another rung is never
offered), frames reach the model as text on the text rung (no image anywhere), and the notes are written and read
through the harness's tools in mode none, every version kept."""

import re

import pytest

from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.inspect_requests import conversation, has_image, offered_tool_names
from support.agentrun import AGENTS, run_agent
from support.arcgames import WIN, write_game

pytestmark = pytest.mark.e2e
# a row of the text grid: 64 hex digits ending a line (Codex joins the JSON and the grid without a line break)
GRID_ROW = re.compile(r"[0-9a-f]{64}$", re.M)


def plays(actions) -> list[dict]:
    return [
        {"call": "play", "input": {"action": a[0], "x": a[1], "y": a[2]} if isinstance(a, tuple) else {"action": a}}
        for a in actions
    ]


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    root = tmp_path_factory.mktemp("ladder") / "environment_files"
    write_game(root, "tg01")
    return root


def game_tools(request) -> list[str]:
    return sorted(name.split("__")[-1] for name in offered_tool_names(request) if name.startswith("mcp__game"))


@pytest.mark.parametrize("agent", AGENTS)
def test_the_text_rung_with_notes_shows_frames_as_text_and_keeps_the_notes(agent, games, tmp_path):
    turns = (
        plays(WIN[:2])
        + [
            {"call": "write_note", "input": {"name": "GUIDE.md", "text": "ACTION4 moves the blue pixel right"}},
            {"call": "read_notes", "input": {}},
        ]
        + plays(WIN[2:])
        + [{"final": "<answer>DONE</answer>"}]
    )
    options = {"observation": "text", "notes": "on"}
    with ScriptedServer({"rules": [{"turns": turns}]}) as server:
        outcome = run_agent(agent, "none", server, games, tmp_path, kind_options=options)
        mains = server.main_requests()
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.correct, (record.status, record.error)
    assert game_tools(mains[0]) == ["play", "read_notes", "write_note"]
    assert not any(has_image(r) for r in mains)  # the text rung sends no image at all
    outputs = [conversation(r).last_output or "" for r in mains]
    assert any(len(GRID_ROW.findall(text)) == 64 for text in outputs)  # a frame as 64 rows of 64 hex digits
    assert any("ACTION4 moves the blue pixel right" in text for text in outputs)  # read_notes read it back
    assert "GUIDE.md: what the game is" in conversation(mains[0]).prompt
    metrics = record.metrics
    assert metrics["notes_written"] == 1 and metrics["observations"]["images"] == 0
    assert metrics["observations"]["text_chars"] == len(WIN) * (64 * 65 - 1)
    item = outcome.store.root / "sandboxes" / "tg01" / "notes"
    assert (item / "GUIDE.md").read_text() == "ACTION4 moves the blue pixel right"


@pytest.mark.parametrize("agent", AGENTS)
def test_memory_without_pixel_readout_offers_recall_and_inspect_only(agent, games, tmp_path):
    turns = plays(WIN) + [{"call": "recall", "input": {"step": 2}}, {"final": "<answer>DONE</answer>"}]
    with ScriptedServer({"rules": [{"turns": turns}]}) as server:
        outcome = run_agent(agent, "image", server, games, tmp_path, kind_options={"pixel_readout": "off"})
        mains = server.main_requests()
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.correct, (record.status, record.error)
    assert {tuple(game_tools(r)) for r in mains} == {("inspect", "play", "recall")}
    assert outcome.store.read_manifest().config.kind_options["pixel_readout"] == "off"  # in the run's identity
