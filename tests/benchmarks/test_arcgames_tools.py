"""The `game` MCP server's tools on a stand-in game: what each mode offers, and recall, inspect and
read_pixels on the archive (through the MCP SDK's own call path)."""

import asyncio
import json

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from agent_eval.benchmarks.arcgames import game_server
from agent_eval.benchmarks.arcgames.loader import GameItem
from agent_eval.benchmarks.arcgames.session import GameSession
from support.fakegame import FakeGame


@pytest.fixture
def played(tmp_path):
    item = GameItem(id="fk01", version="v1", game_dir=tmp_path, title=None, baseline_actions=(3, 3), files_sha256="x")
    s = GameSession(item, FakeGame(), tmp_path / "game", max_actions=20, frame_scale=4)
    for action, x, y in (("RESET", None, None), ("ACTION6", 2, 1), ("ACTION5", None, None)):
        s.play(action, x, y)
    return s


def call(server, name, args):
    return asyncio.run(server.call_tool(name, args))


@pytest.mark.parametrize(
    "mode,tools",
    [
        ("none", ["play"]),
        ("image", ["play", "recall", "inspect", "read_pixels"]),
        ("python", ["play", "recall", "inspect", "read_pixels"]),
    ],
)
def test_each_mode_offers_its_tools(played, mode, tools):
    listed = asyncio.run(game_server.build_server(played, mode, 4).list_tools())
    assert [t.name for t in listed] == tools
    play = next(t for t in listed if t.name == "play")
    assert set(play.input_schema["properties"]) == {"action", "x", "y"} and play.input_schema["required"] == ["action"]


def test_read_pixels_gives_the_exact_indices(played):
    result = call(
        game_server.build_server(played, "image", 4),
        "read_pixels",
        {"frame": 2, "x": 0, "y": 0, "width": 4, "height": 2},
    )
    header, *rows = result.content[0].text.splitlines()
    assert rows == ["9000", "0080"] and "8=red" in header and "9=blue" in header


def test_recall_by_step_returns_every_frame_of_it(played):
    result = call(game_server.build_server(played, "image", 4), "recall", {"step": 3})
    texts = [json.loads(c.text)["frame"] for c in result.content if c.type == "text"]
    assert texts == [3, 4, 5] and sum(c.type == "image" for c in result.content) == 3


def test_inspect_enlarges_with_a_grid(played):
    result = call(
        game_server.build_server(played, "image", 4), "inspect", {"frame": 1, "width": 16, "height": 16, "scale": 8}
    )
    meta = json.loads(result.content[0].text)
    assert meta["region"] == {"x": 0, "y": 0, "width": 16, "height": 16} and meta["grid"]["x_lines"] == [8]


@pytest.mark.parametrize(
    "name,args,message",
    [
        ("recall", {"frames": [99]}, "no frame 99"),
        ("recall", {}, "either"),
        ("read_pixels", {"frame": 1, "x": 70}, "outside"),
        ("play", {"action": "ACTION6", "x": 64, "y": 0}, "0-63"),
    ],
)
def test_bad_requests_are_tool_errors_the_model_reads(played, name, args, message):
    server = game_server.build_server(played, "image", 4)
    try:
        result = call(server, name, args)
    except ToolError as error:
        assert message in str(error)
    else:
        assert result.is_error and message in result.content[0].text


def test_ours_in_grid_coordinates_describe_play_as_before(played):
    (play,) = [t for t in asyncio.run(game_server.build_server(played, "none", 4).list_tools()) if t.name == "play"]
    assert (
        "ACTION6 is a click at `x`, `y` (integers 0-63, x to the right, y downwards, on the 64x64 game grid); the "
        "others take no coordinates. Every action counts against your action budget, RESET included."
    ) in play.description


def test_ours_in_display_coordinates(tmp_path):
    from agent_eval.benchmarks.arcgames.ladder import Ladder

    item = GameItem(id="fk01", version="v1", game_dir=tmp_path, title=None, baseline_actions=(3, 3), files_sha256="x")
    s = GameSession(item, FakeGame(), tmp_path / "game", max_actions=20, frame_scale=8, ladder=Ladder(frame_grid=True))
    server = game_server.build_server(s, "image", 8, Ladder(coordinates="display", frame_grid=True))
    listed = {t.name: t for t in asyncio.run(server.list_tools())}
    assert "pixels of the image as shown (0-511, the 512x512 image)" in listed["play"].description
    call(server, "play", {"action": "RESET"})
    call(server, "play", {"action": "ACTION6", "x": 100, "y": 20})
    assert (s.plays[-1].x, s.plays[-1].y) == (12, 2)  # the game pixel under display pixel (100, 20)
    text = call(server, "read_pixels", {"frame": 2, "x": 96, "y": 16, "width": 16, "height": 8}).content[0].text
    header, *rows = text.splitlines()
    assert rows == ["80"] and "game pixels x=12 y=2 width=2 height=1" in header
    view = call(server, "inspect", {"frame": 2, "x": 96, "y": 16, "width": 16, "height": 8, "scale": 2, "grid": 8})
    meta = json.loads(view.content[0].text)
    assert meta["region"] == {"x": 96, "y": 16, "width": 16, "height": 8} and meta["grid"]["x_lines"] == [104]
    with pytest.raises(ToolError, match="0-511"):
        call(server, "play", {"action": "ACTION6", "x": 512, "y": 0})
