"""The image tools: exact crops, nearest scaling, grid, pixel reading, palette, views, MCP and CLI."""

import base64
import io
import json
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import numpy as np
import pytest
from PIL import Image

from agent_eval.tools.imagetools import ops
from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.palette import ALPHABET, Palette
from agent_eval.tools.imagetools.regions import nearest_indices, resolve_region
from agent_eval.tools.imagetools.service import ImageTools
from agent_eval.tools.imagetools.workspace import Workspace


def noise(width=50, height=40, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)


@pytest.fixture
def workdir(tmp_path):
    """A workdir holding a random-noise image.png (almost every pixel a distinct colour)."""
    Image.fromarray(noise()).save(tmp_path / "image.png")
    return tmp_path


def flat_image(path: Path) -> np.ndarray:
    """40x30: white, a red square at x,y 5..14, a blue column at x=30."""
    arr = np.full((30, 40, 3), 255, np.uint8)
    arr[5:15, 5:15] = (255, 0, 0)
    arr[:, 30] = (0, 0, 255)
    Image.fromarray(arr).save(path)
    return arr


def view_array(tools, size=ops.DEFAULT_SIZE, grid=0, **region):
    """The first view's pixels (decoded from the PNG the model gets) and its metadata."""
    view = tools.inspect([region] if region else None, size=size, grid=grid)[0]
    return np.asarray(Image.open(io.BytesIO(view.png))), view.meta


# --- regions and scaling -------------------------------------------------------------------


def test_crop_is_pixel_exact(workdir):
    src = noise()
    arr, meta = view_array(ImageTools(workdir), x=3, y=5, width=10, height=8, size=30)
    assert meta["scale"] == 3.0 and meta["output_size"] == {"width": 30, "height": 24}
    expected = np.repeat(np.repeat(src[5:13, 3:13], 3, axis=0), 3, axis=1)  # integer scale: exact 3x3 blocks
    assert np.array_equal(arr, expected)


def test_nearest_scaling_only_copies_source_pixels(workdir):
    src = noise()
    arr, meta = view_array(ImageTools(workdir), x=7, y=2, width=13, height=11, size=97)
    assert meta["output_size"]["width"] == 97  # longer side is exactly `size`
    crop = src[2:13, 7:20]
    rows, cols = nearest_indices(11, arr.shape[0]), nearest_indices(13, 97)
    assert np.array_equal(arr, crop[rows][:, cols])
    # Each output pixel is one source pixel; enlarging shows every source pixel, in order.
    assert set(map(tuple, arr.reshape(-1, 3))) <= set(map(tuple, crop.reshape(-1, 3)))
    assert list(np.unique(cols)) == list(range(13)) and np.all(np.diff(cols) >= 0)


def test_whole_image_by_default_and_size_cap(workdir):
    tools = ImageTools(workdir)
    arr, meta = view_array(tools, size=2048)
    assert meta["region"] == {"x": 0, "y": 0, "width": 50, "height": 40}
    assert arr.shape[:2] == (1638, 2048)
    for bad in (2049, 15, 0):
        with pytest.raises(ToolInputError, match="2048"):
            tools.inspect(size=bad)


@pytest.mark.parametrize(
    "spec,message",
    [
        ({"x": 50}, "x=50 is outside the image: the image is 50x40"),
        ({"y": -1}, "y=-1"),
        ({"x": 10, "width": 41}, "width must be 1 to 40"),
        ({"height": 0}, "height must be 1 to 40"),
        ({"w": 3}, "unknown view keys"),
    ],
)
def test_bad_regions_say_what_is_allowed(workdir, spec, message):
    with pytest.raises(ToolInputError, match=message):
        ImageTools(workdir).inspect([spec])
    assert not (workdir / "views").exists() or not list((workdir / "views").glob("*.png"))


def test_bin_centres_match_integer_division():
    assert nearest_indices(10, 5).tolist() == [1, 3, 5, 7, 9]
    assert nearest_indices(3, 6).tolist() == [0, 0, 1, 1, 2, 2]
    assert resolve_region((20, 10)).as_dict() == {"x": 0, "y": 0, "width": 20, "height": 10}


# --- grid ---------------------------------------------------------------------------------


def test_grid_lines_at_original_coordinates(tmp_path):
    src = flat_image(tmp_path / "image.png")
    arr, meta = view_array(ImageTools(tmp_path), x=2, y=3, width=30, height=20, size=240, grid=5)
    grid = meta["grid"]
    assert grid["x_lines"] == [5, 10, 15, 20, 25, 30] and grid["y_lines"] == [5, 10, 15, 20]
    left, top = grid["view_offset"]
    assert meta["output_size"] == {"width": left + 240, "height": top + 160}
    colour = tuple(int(grid["line_colour"][i : i + 2], 16) for i in (1, 3, 5))
    content = arr[top:, left:]
    for c in grid["x_lines"]:  # scale 8: original column c starts at output column (c - 2) * 8
        assert all(tuple(p) == colour for p in content[:, (c - 2) * 8])
    for r in grid["y_lines"]:
        assert all(tuple(p) == colour for p in content[(r - 3) * 8, :])
    # Away from the lines, the view is the exact enlarged crop.
    expected = np.repeat(np.repeat(src[3:23, 2:32], 8, axis=0), 8, axis=1)
    off_lines = np.ones((160, 240), bool)
    off_lines[:, [(c - 2) * 8 for c in grid["x_lines"]]] = False
    off_lines[[(r - 3) * 8 for r in grid["y_lines"]], :] = False
    assert np.array_equal(content[off_lines], expected[off_lines])
    # Labels are drawn in the margins: light text pixels to the right of each x line.
    for c in grid["x_lines"]:
        x0 = left + (c - 2) * 8
        assert arr[:top, x0 + 1 : x0 + 12].max() > 200


def test_grid_too_dense_is_refused(workdir):
    with pytest.raises(ToolInputError, match="grid >= 4"):
        ImageTools(workdir).inspect(size=100, grid=1)  # 50 px wide at scale 2: lines 2 px apart


# --- read_pixels and the palette -----------------------------------------------------------


def test_read_pixels_samples_bin_centres(tmp_path):
    flat_image(tmp_path / "image.png")
    result = ImageTools(tmp_path).read_pixels(rows=3, columns=4)
    assert result["sample_x"] == [5, 15, 25, 35] and result["sample_y"] == [5, 15, 25]
    assert result["palette"] == {"A": "#FF0000", "B": "#FFFFFF"}
    assert result["grid"] == ["ABBB", "BBBB", "BBBB"]


def test_palette_is_stable_across_calls(tmp_path):
    flat_image(tmp_path / "image.png")
    tools = ImageTools(tmp_path)
    first = tools.read_pixels(x=28, width=4, rows=1)  # white, white, blue, white
    assert first["palette"] == {"A": "#FFFFFF", "B": "#0000FF"} and first["grid"] == ["AABA"]
    second = tools.read_pixels(x=0, y=5, width=31, height=1)  # white, red..., white, blue
    assert second["palette"] == {"A": "#FFFFFF", "B": "#0000FF", "C": "#FF0000"}
    assert second["grid"][0] == "AAAAA" + "C" * 10 + "A" * 15 + "B"
    saved = json.loads((tmp_path / "views" / "palette.json").read_text())
    assert saved["symbols"] == {"A": "#FFFFFF", "B": "#0000FF", "C": "#FF0000"}


def run_cli(workdir, *args, check=True):
    proc = subprocess.run(
        [sys.executable, "-m", "agent_eval.tools.imagetools.cli", "--workdir", str(workdir), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_palette_is_stable_across_processes(tmp_path):
    flat_image(tmp_path / "image.png")
    first = json.loads(run_cli(tmp_path, "read-pixels", "--x", "30", "--width", "1", "--json").stdout)
    second = json.loads(run_cli(tmp_path, "read-pixels", "--x", "28", "--width", "3", "--json").stdout)
    assert first["palette"] == {"A": "#0000FF"}
    assert second["palette"] == {"A": "#0000FF", "B": "#FFFFFF"} and second["grid"][0] == "BBA"
    text = run_cli(tmp_path, "read-pixels", "--rows", "3", "--columns", "4").stdout
    assert 'palette: {"B": "#FFFFFF", "C": "#FF0000"}' in text and text.rstrip().endswith("BBBB")


def test_sample_limit(tmp_path):
    Image.new("RGB", (100, 100), "white").save(tmp_path / "image.png")
    tools = ImageTools(tmp_path)
    assert len(tools.read_pixels(rows=64, columns=64)["grid"]) == 64
    with pytest.raises(ToolInputError, match="at most 4096"):
        tools.read_pixels(rows=65, columns=64)
    with pytest.raises(ToolInputError, match="rows must be an integer from 1 to 10"):
        tools.read_pixels(height=10, rows=11)


def test_too_many_colours_is_an_error_and_leaves_palette_unchanged(tmp_path):
    arr = np.zeros((1, 100, 3), np.uint8)
    arr[0, :, 0] = np.arange(100)
    Image.fromarray(arr).save(tmp_path / "image.png")
    tools = ImageTools(tmp_path)
    tools.read_pixels(width=10)
    with pytest.raises(ToolInputError, match=f"too many distinct colours.*{len(ALPHABET)} symbols"):
        tools.read_pixels(columns=100)
    assert len(json.loads((tmp_path / "views" / "palette.json").read_text())["symbols"]) == 10
    assert len(tools.read_pixels(width=len(ALPHABET), columns=len(ALPHABET))["palette"]) == len(
        ALPHABET
    )  # exactly full is fine


def test_palette_marks_transparency():
    palette = Palette()
    assert palette.assign(["#000000", "#00000080", "#000000"]) == {"#000000": "A", "#00000080": "B"}


# --- info ----------------------------------------------------------------------------------


def test_info_on_known_image(tmp_path):
    flat_image(tmp_path / "image.png")
    info = ImageTools(tmp_path).info()
    assert (info["width"], info["height"], info["mode"], info["format"]) == (40, 30, "RGB", "PNG")
    assert info["distinct_colours"] == 3
    assert info["top_colours"] == [
        {"colour": "#FFFFFF", "count": 1200 - 100 - 30, "fraction": round(1070 / 1200, 4)},
        {"colour": "#FF0000", "count": 100, "fraction": round(100 / 1200, 4)},
        {"colour": "#0000FF", "count": 30, "fraction": 0.025},
    ]
    assert info["coarse_colours"][0] == {"colour": "#E0E0E0", "fraction": round(1070 / 1200, 4)}


# --- workdir: paths and views ----------------------------------------------------------------


def test_paths_outside_the_workdir_are_refused(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    flat_image(work / "image.png")
    flat_image(tmp_path / "secret.png")
    (work / "link.png").symlink_to(tmp_path / "secret.png")
    tools = ImageTools(work)
    for path in ("../secret.png", str(tmp_path / "secret.png")):
        with pytest.raises(ToolInputError, match="outside the working directory"):
            tools.info(path)
    with pytest.raises(ToolInputError, match="symbolic link"):  # links are never followed
        tools.info("link.png")
    with pytest.raises(ToolInputError, match="no file 'nope.png'.*image.png"):
        tools.info("nope.png")
    (work / "notes.txt").write_text("hi")
    with pytest.raises(ToolInputError, match="not an image"):
        tools.info("notes.txt")


def test_default_image_and_own_images(tmp_path):
    flat_image(tmp_path / "image.png")
    Image.new("RGB", (7, 3)).save(tmp_path / "mine.png")
    tools = ImageTools(tmp_path)
    assert tools.info()["width"] == 40  # image.* wins over the agent's own files
    assert tools.info("mine.png")["width"] == 7
    (tmp_path / "image.png").rename(tmp_path / "other.png")
    with pytest.raises(ToolInputError, match="no single default image; pass path, one of: mine.png, other.png"):
        tools.info()


def test_views_saved_losslessly_with_increasing_counters(workdir):
    tools = ImageTools(workdir)
    views = tools.inspect([{"width": 5, "height": 5}, {"x": 5}]) + tools.inspect(grid=10)
    assert [v.meta["saved"] for v in views] == [
        "views/001-inspect.png",
        "views/002-inspect.png",
        "views/003-inspect.png",
    ]
    for view in views:
        assert (workdir / view.meta["saved"]).read_bytes() == view.png


def test_view_counter_is_safe_under_concurrency(tmp_path):
    space = Workspace(tmp_path)
    names = []
    threads = [
        threading.Thread(target=lambda: names.extend(space.save_view(b"x", "inspect") for _ in range(10)))
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(names) == [f"views/{n:03d}-inspect.png" for n in range(1, 81)]


# --- command line ----------------------------------------------------------------------------


def test_cli_inspect_and_errors(workdir):
    meta = json.loads(
        run_cli(workdir, "inspect", "--x", "1", "--y", "2", "--width", "4", "--height", "2", "--size", "64").stdout
    )
    assert meta["region"] == {"x": 1, "y": 2, "width": 4, "height": 2} and meta["saved"] == "views/001-inspect.png"
    saved = np.asarray(Image.open(workdir / meta["saved"]))
    assert np.array_equal(saved, np.repeat(np.repeat(noise()[2:4, 1:5], 16, 0), 16, 1))
    assert json.loads(run_cli(workdir, "info").stdout)["width"] == 50
    bad = run_cli(workdir, "inspect", "--x", "99", check=False)
    assert bad.returncode == 2 and "x=99 is outside the image" in bad.stderr and bad.stdout == ""


# --- MCP -----------------------------------------------------------------------------------


def test_mcp_server_over_stdio(tmp_path):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    flat_image(tmp_path / "image.png")
    params = StdioServerParameters(
        command=sys.executable,
        cwd=str(tmp_path),
        args=["-m", "agent_eval.tools.imagetools.mcp_server", "--workdir", str(tmp_path)],
    )

    async def session_calls():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == {"inspect", "read_pixels", "info"}
            for tool in tools.values():  # plain schemas: Codex drops tools with $ref / anyOf
                schema = json.dumps(tool.input_schema)
                assert "$ref" not in schema and "anyOf" not in schema and tool.description
            view = await session.call_tool(
                "inspect", {"views": [{"x": 5, "y": 5, "width": 10, "height": 10}], "size": 100, "grid": 5}
            )
            bad = await session.call_tool("inspect", {"views": [{"x": 40}]})
            bad_type = await session.call_tool("read_pixels", {"rows": "many"})
            pixels = await session.call_tool("read_pixels", {"rows": 3, "columns": 4})
            info = await session.call_tool("info", {})
            return view, bad, bad_type, pixels, info

    view, bad, bad_type, pixels, info = anyio.run(session_calls)
    assert not view.is_error and [c.type for c in view.content] == ["text", "image"]
    meta = json.loads(view.content[0].text)
    assert meta["region"] == {"x": 5, "y": 5, "width": 10, "height": 10} and meta["grid"]["x_lines"] == [10]
    assert base64.b64decode(view.content[1].data) == (tmp_path / meta["saved"]).read_bytes()
    assert bad.is_error and "x=40 is outside the image: the image is 40x30 pixels" in bad.content[0].text
    assert bad_type.is_error and "rows" in bad_type.content[0].text
    assert not pixels.is_error and pixels.content[0].text.splitlines()[-3:] == ["ABBB", "BBBB", "BBBB"]
    assert json.loads(info.content[0].text)["distinct_colours"] == 3
