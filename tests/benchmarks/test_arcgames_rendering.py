"""Frames as VISTA draws them and clicks as VISTA maps them: the grid lines of arc3/render.py (render_frame_image:
nearest-neighbour upscale, then every pixel of a row or column that is a multiple of the scale darkened to
(c x 3) // 4), checked against that procedure written out here on an RGB image; the display -> grid mapping of
arc3/claude/controller.py (validate_tool_action: min(63, x * 64 // display_size)); a click in display pixels
reaching the game at the pixel under it; the archive's PNG is the image as shown."""

import io

import numpy as np
import pytest
from PIL import Image

from agent_eval.benchmarks.arcgames.coordinates import Coordinates
from agent_eval.benchmarks.arcgames.frames import PALETTE, png_bytes
from agent_eval.benchmarks.arcgames.ladder import Ladder
from agent_eval.benchmarks.arcgames.loader import GameItem
from agent_eval.benchmarks.arcgames.session import GameSession
from support.fakegame import FakeGame

ITEM = GameItem(id="fk01", version="v1", game_dir=None, title=None, baseline_actions=(3, 3), files_sha256="x")


def vista_render(frame: np.ndarray, scale: int, grid: bool) -> np.ndarray:
    """VISTA's render_frame_image as its source states it, on an RGB image (not our palette PNG)."""
    image = Image.fromarray(PALETTE[frame], mode="RGB")
    image = image.resize((frame.shape[1] * scale, frame.shape[0] * scale), Image.Resampling.NEAREST)
    pixels = np.asarray(image, dtype=np.uint16).copy()
    if grid:
        mask = np.zeros(pixels.shape[:2], dtype=bool)
        mask[::scale, :] = True
        mask[:, ::scale] = True
        pixels[mask] = (pixels[mask] * 3) // 4
    return pixels.astype(np.uint8)


def decoded(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@pytest.mark.parametrize("scale", [1, 4, 8])
@pytest.mark.parametrize("grid", [False, True])
def test_frames_are_drawn_as_vista_draws_them(scale, grid):
    frame = np.random.default_rng(scale).integers(0, 16, (64, 64), dtype=np.uint8)
    assert np.array_equal(decoded(png_bytes(frame, scale, grid)), vista_render(frame, scale, grid))


def test_grid_lines_darken_the_first_row_and_column_of_each_square():
    frame = np.zeros((64, 64), dtype=np.uint8)  # white
    pixels = decoded(png_bytes(frame, 8, grid=True))
    assert pixels.shape == (512, 512, 3)
    assert tuple(pixels[0, 0]) == tuple(pixels[8, 3]) == tuple(pixels[3, 16]) == (191, 191, 191)
    assert tuple(pixels[4, 4]) == tuple(pixels[511, 511]) == (255, 255, 255)


@pytest.mark.parametrize(
    "point,cell", [((0, 0), (0, 0)), ((7, 7), (0, 0)), ((8, 15), (1, 1)), ((100, 20), (12, 2)), ((511, 511), (63, 63))]
)
def test_a_display_point_is_the_game_pixel_under_it(point, cell):
    display = Coordinates("display", 8)
    assert display.size == 512 and display.to_grid(*point) == cell
    assert Coordinates("grid", 8).to_grid(*cell) == cell


def test_regions_in_either_system():
    display, grid = Coordinates("display", 8), Coordinates("grid", 8)
    assert display.region_in_grid(100, 20, 16, 1) == (12, 2, 3, 1)  # display x 100-115 touches cells 12-14
    assert grid.region_in_grid(12, 2, 3, 1) == (12, 2, 3, 1)


def test_the_archive_keeps_the_image_as_shown(tmp_path):
    s = GameSession(ITEM, FakeGame(), tmp_path / "game", max_actions=5, frame_scale=8, ladder=Ladder(frame_grid=True))
    s.play("RESET", None, None)
    shown = decoded(s.archive.png(1))
    assert shown.shape == (512, 512, 3) and np.array_equal(shown, vista_render(s.archive.load(1), 8, True))
