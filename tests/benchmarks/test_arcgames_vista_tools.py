"""`--game-tools vista` against VISTA's stated behaviour (its harness's source: arc3/claude/tools.py, controller.py;
core/tools.py, session.py, dispatcher.py; backends/claude/mcp_bridge.py), through the MCP SDK's own call path on a
stand-in game: play's checks, refusals and metadata, the display -> grid click, inspect's views, read_pixels'
centre samples of a 512x512 PNG with grid lines and its symbol palette, history's two views, the notes' tools."""

import asyncio
import base64
import io
import json

import numpy as np
import pytest
from PIL import Image

from agent_eval.benchmarks.arcgames import game_server
from agent_eval.benchmarks.arcgames.ladder import NOTE_PURPOSES, Ladder
from agent_eval.benchmarks.arcgames.loader import GameItem
from agent_eval.benchmarks.arcgames.session import GameSession
from agent_eval.benchmarks.notes import Notes, read_history
from support.fakegame import FakeGame

ITEM = GameItem(id="fk01", version="v1", game_dir=None, title=None, baseline_actions=(3, 3), files_sha256="x")
OUTSIDE = {"x": 500, "y": 0, "width": 13, "height": 1}  # 500 + 13 > 512
VISTA = {"game_tools": "vista", "coordinates": "display", "frame_grid": "on", "notes": "on"}


class Game:
    """A stand-in game behind VISTA's tools (scale 8: VISTA's 512x512 image, display coordinates, grid lines)."""

    def __init__(self, tmp_path, max_actions=30, **options):
        options = {**VISTA, **options}
        self.ladder = Ladder.from_options(options)
        self.session = GameSession(
            ITEM,
            FakeGame(),
            tmp_path / "game",
            max_actions=max_actions,
            frame_scale=8,
            ladder=Ladder(frame_grid=self.ladder.frame_grid),
        )
        self.notes = Notes(tmp_path, NOTE_PURPOSES, self.ladder.note_limits()) if self.ladder.notes else None
        self.server = game_server.build_server(self.session, "image", 8, self.ladder, self.notes)

    def call(self, name, args):
        return asyncio.run(self.server.call_tool(name, args))

    def meta(self, name, args) -> tuple[bool, dict | str]:
        result = self.call(name, args)
        text = result.content[0].text
        try:
            return result.is_error, json.loads(text)
        except ValueError:
            return result.is_error, text

    def play(self, *actions):
        for action in actions:
            args = (
                {"action": action[0], "x": action[1], "y": action[2]}
                if isinstance(action, tuple)
                else {"action": action}
            )
            error, shown = self.meta("play", args)
            assert not error, shown
        return shown


def test_the_tool_set_and_play_schema_are_vistas(tmp_path):
    game = Game(tmp_path)
    listed = asyncio.run(game.server.list_tools())
    assert [t.name for t in listed] == [
        "play", "inspect", "read_pixels", "history", "read_guide", "write_guide", "read_working", "write_working"
    ]  # fmt: skip
    play = listed[0]
    point = {"type": ["integer", "null"], "minimum": 0, "maximum": 511}
    assert play.input_schema == {
        "type": "object",
        "additionalProperties": False,
        "required": ["action"],
        "properties": {"action": {"type": "string", "enum": ["RESET"] + [f"ACTION{i}" for i in range(1, 8)]},
                       "x": point, "y": point},
    }  # fmt: skip
    assert "in the standard 512x512 coordinate system" in play.description
    assert play.annotations.read_only_hint is False and listed[1].annotations.read_only_hint is True
    inspect = listed[1].input_schema
    assert inspect["required"] == ["question", "views"] and inspect["properties"]["views"]["maxItems"] == 16
    assert inspect["properties"]["views"]["items"]["properties"]["region"]["properties"]["width"]["maximum"] == 512
    pixels = listed[2].input_schema["properties"]["views"]
    assert pixels["maxItems"] == 64 and pixels["items"]["required"] == ["label", "turn", "region", "rows", "columns"]
    assert listed[5].input_schema["properties"]["content"]["maxLength"] == 64 * 1024
    assert listed[7].input_schema["properties"]["content"]["maxLength"] == 16 * 1024


def test_play_answers_with_vistas_metadata_a_label_and_the_image(tmp_path):
    game = Game(tmp_path)
    result = game.call("play", {"action": "RESET"})
    assert [c.type for c in result.content] == ["text", "text", "image"] and not result.is_error
    assert json.loads(result.content[0].text) == {
        "turn": 1,
        "state": "NOT_FINISHED",
        "progress": {"completed": 0, "total": 2},
        "available_actions": ["ACTION1", "ACTION2", "ACTION5", "ACTION6"],
        "action_applied": True,
        "terminal": False,
        "visual": {"turn": 1, "frame_count": 1, "final_frame": 0, "width": 512, "height": 512},
    }
    assert result.content[1].text == (
        '<current_visual turn="1" frame="0" frame_count="1" size="512x512">Current game state after the action.'
        "</current_visual>"
    )
    assert Image.open(io.BytesIO(base64.b64decode(result.content[2].data))).size == (512, 512)
    animated = game.play("ACTION5")  # three frames: the last is shown, every one archived
    assert animated["visual"] == {"turn": 2, "frame_count": 3, "final_frame": 2, "width": 512, "height": 512}


def test_a_click_in_display_pixels_reaches_the_game_pixel_under_it(tmp_path):
    game = Game(tmp_path)
    game.play("RESET", ("ACTION6", 100, 20))
    assert game.session.plays[-1].x == 12 and game.session.plays[-1].y == 2
    assert game.session.archive.load(2)[2, 12] == 8  # the stand-in paints the clicked game pixel red


@pytest.mark.parametrize(
    "args,error",
    [
        ({"action": "ACTION1"}, "ACTION1 is not currently available."),  # before any observation: RESET only
        ({"action": "JUMP"}, "Unknown action."),
        ({"action": "RESET", "speed": 2}, "Unexpected tool argument."),
        ({"action": "RESET", "x": 3}, "x and y are only used with ACTION6."),
    ],
)
def test_refusals_before_the_first_observation(tmp_path, args, error):
    refused, shown = Game(tmp_path).meta("play", args)
    assert refused and shown["error"] == error and shown["action_applied"] is False and "visual" not in shown


@pytest.mark.parametrize(
    "args,error",
    [
        ({"action": "RESET"}, "RESET is not currently available."),  # VISTA: RESET only once the game is over
        ({"action": "ACTION6", "x": 512, "y": 0}, "ACTION6 coordinates must be in 0..511."),
        ({"action": "ACTION6", "x": 1.5, "y": 0}, "ACTION6 requires integer x and y."),
        ({"action": "ACTION6", "x": 3}, "ACTION6 requires integer x and y."),
        ({"action": "ACTION7"}, "ACTION7 is not currently available."),
        ({"action": "ACTION1", "y": 3}, "x and y are only used with ACTION6."),
    ],
)
def test_refusals_as_vista_words_them_spend_nothing(tmp_path, args, error):
    game = Game(tmp_path)
    game.play("RESET")
    refused, shown = game.meta("play", args)
    assert refused and shown["error"] == error and shown["turn"] == 1 and game.session.actions_used == 1


def test_the_sixteenth_refusal_in_a_row_is_flagged_and_an_action_resets_the_count(tmp_path):
    game = Game(tmp_path)
    flags = [game.meta("play", {"action": "ACTION7"})[1].get("invalid_action_limit") for _ in range(17)]
    assert flags == [None] * 15 + [True, None]
    game.play("RESET")
    assert [game.meta("play", {"action": "ACTION7"})[1].get("invalid_action_limit") for _ in range(16)][-1]


def test_game_over_allows_reset_only_and_the_end_is_terminal_without_an_image(tmp_path):
    game = Game(tmp_path, max_actions=4)
    over = game.play("RESET", "ACTION2")
    assert over["state"] == "GAME_OVER" and over["available_actions"] == ["RESET"] and not over["terminal"]
    assert game.meta("play", {"action": "ACTION1"})[1]["error"] == "ACTION1 is not currently available."
    game.play("RESET")
    spent = game.play("ACTION1")
    assert spent["terminal"] and spent["termination_reason"] == "action_budget_exhausted"
    assert spent["available_actions"] == []
    after = game.call("play", {"action": "ACTION1"})
    assert not after.is_error and len(after.content) == 1
    assert json.loads(after.content[0].text)["action_applied"] is False


def test_a_won_game_ends_with_reason_win(tmp_path):
    game = Game(tmp_path)
    won = game.play("RESET", *["ACTION1"] * 6)
    assert won["state"] == "WIN" and won["terminal"] and won["termination_reason"] == "WIN"
    assert "level_boundary" not in won  # VISTA marks no boundary on the terminal turn


def test_inspect_crops_enlarges_and_labels_views_in_request_order(tmp_path):
    game = Game(tmp_path)
    game.play("RESET", "ACTION5")
    region = {"x": 0, "y": 0, "width": 64, "height": 32}
    result = game.call(
        "inspect",
        {
            "question": "where is the dot?",
            "views": [{"label": "now", "turn": 2, "region": region}, {"label": "first", "turn": 2, "frame": 0}],
        },
    )
    shown = json.loads(result.content[0].text)
    assert shown["visual_kind"] == "inspection" and shown["current_state_unchanged"] and shown["view_count"] == 2
    first, second = shown["views"]
    assert first == {
        "index": 1,
        "turn": 2,
        "frame": 2,
        "available_frames": 3,
        "available_frame_range": [0, 2],
        "region": region,
        "image_size": {"width": 512, "height": 256},
    }
    assert second["frame"] == 0 and second["image_size"] == {"width": 512, "height": 512}
    assert result.content[1].text == (
        '<inspection_visual index="1" count="2" turn="2" frame="2" region="0,0,64,32" size="512x256">'
        "</inspection_visual>"
    )
    crop = np.asarray(Image.open(io.BytesIO(base64.b64decode(result.content[2].data))).convert("RGB"))
    shown_png = np.asarray(Image.open(io.BytesIO(game.session.archive.png(4))).convert("RGB"))
    assert np.array_equal(crop[::8, ::8], shown_png[:32, :64])  # enlarged 8x without smoothing
    assert "first" not in result.content[0].text and "where is the dot" not in result.content[0].text


@pytest.mark.parametrize(
    "args,error",
    [
        ({"question": "q", "views": [{"label": "a", "turn": 9}]}, "View 1: no frames found for turn 9."),
        ({"question": "q", "views": [{"label": "a", "turn": 1, "frame": 1}]}, "View 1: no frame 1 found for turn 1."),
        ({"question": "q", "views": [{"label": "a", "turn": 1, "region": None}]}, "View 1: invalid region."),
        ({"question": "q", "views": [{"label": "a", "turn": 1, "region": OUTSIDE}]}, "View 1: invalid region."),
        ({"question": "q", "views": [{"label": "x" * 129, "turn": 1}]}, "View 1: invalid selection."),
        ({"question": "q", "views": [{"label": "a", "turn": 1}] * 17}, "Invalid arguments."),
        ({"question": " ", "views": [{"label": "a", "turn": 1}]}, "Invalid arguments."),
        ({"views": [{"label": "a", "turn": 1}]}, "Invalid arguments."),
    ],
)  # fmt: skip
def test_inspect_refuses_as_vista_does(tmp_path, args, error):
    game = Game(tmp_path)
    game.play("RESET")
    refused, shown = game.meta("inspect", args)
    assert refused and shown == {"error": error}


def test_read_pixels_samples_centres_of_the_png_as_shown_with_a_lasting_symbol_palette(tmp_path):
    game = Game(tmp_path)
    game.play("RESET")  # white board, the blue dot at game pixel (0, 0)
    whole_row = {"label": "row 0", "turn": 1, "region": {"x": 0, "y": 0, "width": 512, "height": 8}, "rows": 1,
                 "columns": 64}  # fmt: skip
    error, shown = game.meta("read_pixels", {"question": "colours of row 0?", "views": [whole_row]})
    assert not error and shown["sampling"] == "equal-bin-centers" and shown["sample_count"] == 64
    # the centre of each game pixel (x = 8c + 4, y = 4): never a grid line, so exactly the palette's colours
    assert shown["palette"] == {"0": "#1E93FF", "1": "#FFFFFF"} and shown["views"][0]["samples"] == ["0" + "1" * 63]
    every_pixel = {"label": "edge", "turn": 1, "region": {"x": 8, "y": 4, "width": 16, "height": 1}, "rows": 1,
                   "columns": 16}  # fmt: skip
    error, shown = game.meta("read_pixels", {"question": "grid lines?", "views": [every_pixel]})
    # display x 8 and 16 are grid lines (white darkened to 3/4: #BFBFBF), a new colour: the next symbol
    assert shown["palette"] == {"1": "#FFFFFF", "2": "#BFBFBF"} and shown["views"][0]["samples"] == [
        "2" + "1" * 7 + "2" + "1" * 7
    ]


def test_read_pixels_limits(tmp_path):
    game = Game(tmp_path)
    game.play("RESET")
    view = {"label": "a", "turn": 1, "region": {"x": 0, "y": 0, "width": 512, "height": 512}, "rows": 64, "columns": 64}
    assert game.meta("read_pixels", {"question": "q", "views": [view, view]})[1] == {
        "error": "At most 4096 samples may be requested."
    }
    assert game.meta("read_pixels", {"question": "q", "views": [{**view, "rows": 513}]})[1] == {
        "error": "View 1: invalid sample dimensions."
    }
    assert game.meta("read_pixels", {"question": "q", "views": [{**view, "rows": 1}] * 65})[1] == {
        "error": "Invalid arguments."
    }


def test_in_text_observation_the_grid_is_in_the_metadata_and_visual_tools_are_unavailable(tmp_path):
    game = Game(tmp_path, observation="text")
    result = game.call("play", {"action": "RESET"})
    assert [c.type for c in result.content] == ["text"]
    grid = json.loads(result.content[0].text)["grid"]["frames"]
    assert len(grid) == 1 and len(grid[0]) == 64 and grid[0][0][0] == 9
    assert game.meta("inspect", {"question": "q", "views": [{"label": "a", "turn": 1}]})[1] == {
        "error": "Visual observations are unavailable."
    }
    events = game.meta("history", {"view": "events"})[1]["events"]
    assert "grid" not in events[0]["result"]  # VISTA's public events leave the grid out


def test_the_notes_tools_answer_as_vistas_dispatcher(tmp_path):
    game = Game(tmp_path, guide_chars=40)
    assert game.meta("read_guide", {}) == (False, "No reliable model yet.\n")
    assert game.meta("read_working", {}) == (False, "WORKING.md does not exist.")
    assert game.meta("read_guide", {"x": 1}) == (True, "Invalid arguments.")
    assert game.meta("write_guide", {"content": "  "}) == (True, "Invalid GUIDE.md content.")
    assert game.meta("write_guide", {"content": "x" * 41}) == (True, "Invalid GUIDE.md content.")
    assert game.meta("write_guide", {"content": "  the dot moves right \n"}) == (False, "GUIDE.md updated.")
    assert game.meta("read_guide", {}) == (False, "the dot moves right\n")
    assert game.meta("write_working", {"content": "plan: go right"}) == (False, "WORKING.md updated.")
    assert [(h["version"], h["note"]) for h in read_history(tmp_path)] == [(1, "GUIDE.md"), (2, "WORKING.md")]


def test_turn_zero_is_the_first_observation_shown_before_any_action(tmp_path):
    from agent_eval.benchmarks.arcgames.turns import initial_metadata

    ladder = Ladder.from_options(VISTA)
    session = GameSession(
        ITEM,
        FakeGame(),
        tmp_path / "game",
        max_actions=30,
        frame_scale=8,
        ladder=Ladder(frame_grid=True),
        initial_frame=True,
    )
    first = initial_metadata(session, ladder, 8)
    assert first == {
        "turn": 0,
        "state": "NOT_FINISHED",
        "progress": {"completed": 0, "total": 2},
        "available_actions": ["ACTION1", "ACTION2", "ACTION5", "ACTION6"],  # no RESET: the game lists none
        "action_applied": False,
        "terminal": False,
        "visual": {"turn": 0, "frame_count": 1, "final_frame": 0, "width": 512, "height": 512},
    }
    server = game_server.build_server(session, "image", 8, ladder, None)
    refused = asyncio.run(server.call_tool("play", {"action": "RESET"}))
    assert json.loads(refused.content[0].text)["error"] == "RESET is not currently available."
    shown = json.loads(asyncio.run(server.call_tool("play", {"action": "ACTION1"})).content[0].text)
    assert shown["turn"] == 1 and shown["visual"]["turn"] == 1
    looked = asyncio.run(server.call_tool("inspect", {"question": "q", "views": [{"label": "start", "turn": 0}]}))
    assert json.loads(looked.content[0].text)["views"][0]["turn"] == 0 and looked.content[2].type == "image"
    events = json.loads(asyncio.run(server.call_tool("history", {"view": "events"})).content[0].text)
    assert [e["turn"] for e in events["events"]] == [1] and events["events"][0]["step"] == 0
    attempts = json.loads(asyncio.run(server.call_tool("history", {"view": "attempts"})).content[0].text)
    assert attempts["attempts"] == [
        {"attempt": 1, "start": "level_entry", "start_turn": 0, "outcome": "NOT_FINISHED", "game_actions": 1,
         "end_turn": 1}
    ]  # fmt: skip


def test_a_play_before_the_last_result_was_seen_is_refused_in_vistas_words(tmp_path):
    session = GameSession(
        ITEM, FakeGame(), tmp_path / "game", max_actions=30, frame_scale=8, one_action_per_observation=True
    )
    server = game_server.build_server(session, "image", 8, Ladder.from_options(VISTA), None)
    asyncio.run(server.call_tool("play", {"action": "RESET"}))
    blind = asyncio.run(server.call_tool("play", {"action": "ACTION1"}))
    assert blind.is_error and blind.content[0].text == "Observe the previous play result before another action."
    session.gate.model_asked()  # the result reached the model
    assert not asyncio.run(server.call_tool("play", {"action": "ACTION1"})).is_error


# The next two are scenarios of VISTA's authors' own tests of their controller (a public test file of package
# vista_arc3's codex controller: test_inspect_renders_independent_views_in_request_order and
# test_read_pixels_keeps_rgb_symbols_stable_across_calls), with the expectations those tests state.


def test_vistas_inspect_scenario_a_14x22_region_fits_512_as_325x512(tmp_path):
    game = Game(tmp_path)
    game.play("RESET")
    region = {"x": 161, "y": 81, "width": 14, "height": 22}
    result = game.call(
        "inspect", {"question": "q", "views": [{"label": "changed region", "turn": 1, "region": region}]}
    )
    assert json.loads(result.content[0].text)["views"][0]["image_size"] == {"width": 325, "height": 512}
    view = np.asarray(Image.open(io.BytesIO(base64.b64decode(result.content[2].data))).convert("RGB"))
    archived = Image.open(io.BytesIO(game.session.archive.png(1))).convert("RGB")
    expected = archived.crop((161, 81, 175, 103)).resize((325, 512), Image.Resampling.NEAREST)
    assert np.array_equal(view, np.asarray(expected))


def test_vistas_read_pixels_scenario_symbols_stay_with_their_colours(tmp_path):
    game = Game(tmp_path)
    game.play("RESET", "ACTION5")  # turn 2: three frames; frames 0 and 1 replaced by VISTA's test pictures
    colours = [(10, 20, 30), (40, 50, 60), (70, 80, 90), (100, 110, 120)]
    supplied = Image.new("RGB", (512, 512), colours[3])
    supplied.paste(colours[0], (256, 0, 512, 256))
    supplied.paste(colours[2], (0, 256, 256, 512))
    supplied.paste(colours[1], (256, 256, 512, 512))
    later = supplied.copy()
    later.paste((1, 2, 3), (0, 0, 256, 256))
    for number, picture in ((2, supplied), (3, later)):
        picture.save(game.session.archive.directory / f"{number:04d}.png")
    whole = {"x": 0, "y": 0, "width": 512, "height": 512}
    right = {"x": 256, "y": 0, "width": 256, "height": 512}
    views = [
        {"label": "all quadrants", "turn": 2, "frame": 0, "region": whole, "rows": 2, "columns": 2},
        {"label": "right quadrants", "turn": 2, "frame": 0, "region": right, "rows": 2, "columns": 1},
    ]
    shown = game.meta("read_pixels", {"question": "Are the four quadrants distinct?", "views": views})[1]
    assert shown["palette"] == {"0": "#0A141E", "1": "#28323C", "2": "#46505A", "3": "#646E78"}
    assert [v["samples"] for v in shown["views"]] == [["30", "21"], ["0", "1"]] and shown["sample_count"] == 6
    assert "quadrants" not in json.dumps(shown)  # the question and labels stay in the call
    quarter = {"x": 0, "y": 0, "width": 256, "height": 256}
    lower = {"x": 0, "y": 256, "width": 256, "height": 256}
    views = [
        {"label": "new lower RGB", "turn": 2, "frame": 1, "region": quarter, "rows": 1, "columns": 1},
        {"label": "previously assigned RGB", "turn": 2, "frame": 1, "region": lower, "rows": 1, "columns": 1},
    ]
    later_shown = game.meta("read_pixels", {"question": "Did an earlier color keep its symbol?", "views": views})[1]
    assert later_shown["palette"] == {"2": "#46505A", "4": "#010203"}
    assert [v["samples"] for v in later_shown["views"]] == [["4"], ["2"]]


def test_vistas_tools_keep_the_session_image_cap(tmp_path):
    """--session-images (the context policy's cap) counts VISTA's images too: play's frame and each inspected view;
    past it nothing is shown or played and the agent is asked to hand off."""
    session = GameSession(
        ITEM, FakeGame(), tmp_path / "game", max_actions=30, frame_scale=8, ladder=Ladder(session_images=4)
    )
    server = game_server.build_server(session, "image", 8, Ladder.from_options({**VISTA, "session_images": 4}), None)
    asyncio.run(server.call_tool("play", {"action": "RESET"}))
    two = {"question": "q", "views": [{"label": "a", "turn": 1}, {"label": "b", "turn": 1}]}
    assert not asyncio.run(server.call_tool("inspect", two)).is_error and session.observations["images"] == 3
    refused = asyncio.run(server.call_tool("play", {"action": "ACTION1"}))
    assert refused.is_error and "--session-images 4" in refused.content[0].text and session.actions_used == 1
    assert "--session-images 4" in asyncio.run(server.call_tool("inspect", two)).content[0].text
