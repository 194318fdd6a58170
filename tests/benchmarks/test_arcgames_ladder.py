"""VISTA's rungs as switches: each rung's exact tool set, frames as text, the per-level action bound, the notes
(every version kept, refused writes said), and the prompt a rung gives (through the MCP SDK's call path)."""

import asyncio
import json

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from agent_eval.benchmarks.arcgames import game_server
from agent_eval.benchmarks.arcgames.benchmark import ArcGames
from agent_eval.benchmarks.arcgames.ladder import NOTE_PURPOSES, Ladder
from agent_eval.benchmarks.arcgames.loader import GameItem
from agent_eval.benchmarks.arcgames.session import GameSession
from agent_eval.benchmarks.arcgames.telling import continuation
from agent_eval.benchmarks.notes import Notes, read_history
from support.fakegame import FakeGame

ITEM = GameItem(id="fk01", version="v1", game_dir=None, title=None, baseline_actions=(3, 3), files_sha256="x")


def call(server, name, args):
    return asyncio.run(server.call_tool(name, args))


def tools(server) -> list[str]:
    return [t.name for t in asyncio.run(server.list_tools())]


@pytest.mark.parametrize(
    "options,mode,expected",
    [
        ({}, "none", ["play"]),
        ({}, "image", ["play", "recall", "inspect", "read_pixels"]),
        ({"pixel_readout": "off"}, "image", ["play", "recall", "inspect"]),
        ({"pixel_readout": "off"}, "python", ["play", "recall", "inspect"]),
        ({"notes": "on"}, "none", ["play", "read_notes", "write_note"]),
        ({"notes": "on", "pixel_readout": "off"}, "image", ["play", "recall", "inspect", "read_notes", "write_note"]),
        # VISTA's tools: rung v is inspect and history, rung vi read_pixels, rung iv its four notes tools
        ({"game_tools": "vista"}, "none", ["play"]),
        ({"game_tools": "vista"}, "image", ["play", "inspect", "read_pixels", "history"]),
        ({"game_tools": "vista", "pixel_readout": "off"}, "python", ["play", "inspect", "history"]),
        ({"game_tools": "vista", "notes": "on"}, "none", ["play", "read_guide", "write_guide", "read_working",
                                                          "write_working"]),
        ({"game_tools": "vista", "notes": "on"}, "image", ["play", "inspect", "read_pixels", "history", "read_guide",
                                                           "write_guide", "read_working", "write_working"]),
    ],
)  # fmt: skip
def test_each_rung_offers_exactly_its_tools(tmp_path, options, mode, expected):
    ladder = Ladder.from_options(options)
    s = GameSession(ITEM, FakeGame(), tmp_path / "game", max_actions=5, frame_scale=2)
    server = game_server.build_server(s, mode, 2, ladder, Notes(tmp_path, NOTE_PURPOSES) if ladder.notes else None)
    assert tools(server) == expected == list(ladder.tools(mode))


@pytest.mark.parametrize(
    "bad",
    [
        {"level_actions": 0},
        {"guide_chars": 0},
        {"working_scope": "level"},  # a notes switch without the notes
        {"working_chars": 500},
    ],
)
def test_a_bad_switch_is_one_line_naming_the_flag(bad):
    flag = "--" + next(iter(bad)).replace("_", "-")
    with pytest.raises(ValueError, match=flag):
        Ladder.from_options(bad)


def test_note_sizes_are_the_tool_styles_unless_given():
    assert Ladder().note_limits() == {"GUIDE.md": 20_000, "WORKING.md": 20_000}
    assert Ladder(game_tools="vista").note_limits() == {"GUIDE.md": 65_536, "WORKING.md": 16_384}
    assert Ladder.from_options({"notes": "on", "working_chars": 500}).note_limits() == {
        "GUIDE.md": 20_000,
        "WORKING.md": 500,
    }


def test_the_new_switches_are_rungs_compare_sees():
    base = Ladder().rungs("image", {})
    vista = Ladder.from_options({"game_tools": "vista", "frame_grid": "on"}).rungs("image", {"frame_scale": 8})
    assert base["tool style"] == "ours" and vista["tool style"] == "vista"
    assert base["frames (scale, grid lines, coordinates)"] == (4, "plain", "grid")
    assert vista["frames (scale, grid lines, coordinates)"] == (8, "grid lines", "grid")
    assert vista["memory and inspection (v)"] and vista["pixel readout (vi)"]
    scoped = Ladder.from_options({"notes": "on", "working_scope": "level", "guide_chars": 900}).rungs("none", {})
    assert scoped["context and notes (iii, iv)"] == "native with notes (WORKING.md per level, sizes 900/20000)"
    assert Ladder(notes=True).rungs("none", {})["context and notes (iii, iv)"] == "native with notes"


@pytest.mark.parametrize("observation,texts,images", [("image", 0, 1), ("text", 1, 0), ("both", 1, 1)])
def test_play_shows_the_frame_as_the_rung_says(tmp_path, observation, texts, images):
    s = GameSession(ITEM, FakeGame(), tmp_path / "game", max_actions=5, frame_scale=2)
    server = game_server.build_server(s, "image", 2, Ladder(observation=observation))
    result = call(server, "play", {"action": "ACTION6", "x": 2, "y": 1})
    grids = [c.text for c in result.content[1:] if c.type == "text"]
    assert len(grids) == texts and sum(c.type == "image" for c in result.content) == images
    if grids:
        rows = grids[0].splitlines()
        assert len(rows) == 64 and all(len(r) == 64 for r in rows)
        assert rows[1][2] == "8" and rows[0][0] == "9"  # the click painted red (8); the dot is blue (9)
    recalled = call(server, "recall", {"frames": [1]})
    assert sum(c.type == "image" for c in recalled.content) == images
    assert s.observations == {"images": 2 * images, "text_chars": 2 * texts * (64 * 65 - 1)}


def test_a_level_bound_stops_play_on_that_level_and_restarts_with_the_next(tmp_path):
    s = GameSession(
        ITEM, FakeGame(), tmp_path / "game", max_actions=50, frame_scale=2, ladder=Ladder(level_actions=2.0)
    )
    shown, _ = s.play("RESET", None, None)
    assert shown["level_actions_left"] == 5  # ceil(3 x 2) = 6 for level 1, one used
    for _ in range(3):  # x reaches 3: level 1 done in 4 actions
        shown, _ = s.play("ACTION1", None, None)
    assert shown["levels_completed"] == "1 of 2" and shown["level_actions_left"] == 6
    for _ in range(6):
        shown, _ = s.play("ACTION5", None, None)
    assert "this level's action budget (6" in shown["stop"]
    again = GameSession(
        ITEM, FakeGame(), tmp_path / "game", max_actions=50, frame_scale=2, ladder=Ladder(level_actions=2.0)
    )
    assert again.over and "level's action budget" in again.over  # the count survives a restore


def test_notes_keep_every_version_and_refuse_what_the_model_can_fix(tmp_path):
    s = GameSession(ITEM, FakeGame(), tmp_path / "game", max_actions=5, frame_scale=2)
    notes = Notes(tmp_path, NOTE_PURPOSES)
    server = game_server.build_server(s, "none", 2, Ladder(notes=True), notes)
    call(server, "play", {"action": "RESET"})
    saved = call(server, "write_note", {"name": "GUIDE.md", "text": "blue dot moves right"})
    assert "version 1" in saved.content[0].text
    call(server, "write_note", {"name": "GUIDE.md", "text": "blue dot moves right; x=3 wins"})
    call(server, "write_note", {"name": "WORKING.md", "text": "level 1: at x=1"})
    with pytest.raises(ToolError, match="no note 'PLAN.md': the notes are GUIDE.md and WORKING.md"):
        call(server, "write_note", {"name": "PLAN.md", "text": "x"})
    read = call(server, "read_notes", {}).content[0].text
    assert "x=3 wins" in read and "level 1: at x=1" in read and "moves right\n" not in read
    history = read_history(tmp_path)
    assert [(h["version"], h["note"], h["actions_used"]) for h in history] == [
        (1, "GUIDE.md", 1),
        (2, "GUIDE.md", 1),
        (3, "WORKING.md", 1),
    ]
    assert (tmp_path / "notes" / "history" / "0001-GUIDE.md").read_text() == "blue dot moves right"
    told = continuation(s, "Play.\n", notes)
    assert "x=3 wins" in told.prompt and "notes as the earlier session left them" in told.prompt


def test_the_prompt_says_what_the_rung_changes_and_the_image_rung_is_unchanged():
    template = "Each frame is shown, each game pixel drawn as a {scale}x{scale} square. At most {max_actions}."
    plain = ArcGames()
    plain.configure({})
    assert (
        plain.task_prompt(template, "none")
        == "Each frame is shown, each game pixel drawn as a 4x4 square. At most 200.\n"
    )
    rungs = ArcGames()
    rungs.configure({"observation": "text", "notes": "on", "level_actions": 2})
    prompt = rungs.task_prompt(template, "none")
    assert "as text: one line per row" in prompt and "4x4" not in prompt
    assert "GUIDE.md: what the game is" in prompt and "WORKING.md: the current level" in prompt
    assert "2 times the actions a person needed" in prompt
    assert json.dumps(prompt)  # plain text
