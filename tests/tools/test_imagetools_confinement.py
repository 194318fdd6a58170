"""The image tools run outside the sandbox on files the agent controls: whatever the agent makes
of its workdir (links, FIFOs, huge files, a `views` link pointing elsewhere), they read and write
only regular files inside it. The same attacks through the real CLIs: test_sandbox_leaks_e2e.py."""

import json
import os
import struct
import threading
import zlib

import pytest
from PIL import Image

from agent_eval.tools.imagetools import workspace
from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.service import ImageTools


@pytest.fixture
def setup(tmp_path):
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    Image.new("RGB", (40, 30), "white").save(work / "image.png")
    Image.new("RGB", (40, 30), "red").save(outside / "secret.png")
    (outside / "canary.txt").write_text("CANARY")
    return work, outside


def test_a_link_is_refused_wherever_it_is_in_the_path(setup):
    work, outside = setup
    (work / "link.png").symlink_to(outside / "secret.png")
    (work / "inner.png").symlink_to(work / "image.png")  # even a link that stays inside
    (work / "dir").symlink_to(outside)
    (work / "sub").mkdir()
    (work / "sub" / "up").symlink_to("..")
    tools = ImageTools(work)
    for path in ("link.png", "inner.png", "dir/secret.png", "sub/up/image.png"):
        with pytest.raises(ToolInputError, match="symbolic link|not a directory"):
            tools.inspect(path=path)
    for path in ("../outside/secret.png", "sub/../../outside/secret.png", str(outside / "secret.png")):
        with pytest.raises(ToolInputError, match="outside the working directory"):
            tools.info(path)


def test_the_default_image_is_never_a_link(setup):
    work, outside = setup
    (work / "image.png").unlink()
    (work / "image.png").symlink_to(outside / "secret.png")
    with pytest.raises(ToolInputError, match="no single default image"):
        ImageTools(work).info()


def test_fifos_devices_and_directories_are_not_opened(setup):
    work, _ = setup
    os.mkfifo(work / "pipe.png")  # opening it for reading would block forever
    (work / "folder.png").mkdir()
    tools = ImageTools(work)
    done = []
    worker = threading.Thread(target=lambda: done.append(pytest.raises(ToolInputError, tools.info, "pipe.png")))
    worker.start()
    worker.join(5)
    assert done and "no file 'pipe.png'" in str(done[0].value)
    with pytest.raises(ToolInputError, match="no file 'folder.png'"):
        tools.info("folder.png")
    with pytest.raises(ToolInputError, match="symbolic link"):
        os.symlink("/dev/zero", work / "zero.png")
        tools.info("zero.png")


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")  # Pillow's own, for 144 MP
def test_oversized_files_and_decompression_bombs_are_refused(setup, monkeypatch):
    work, _ = setup
    monkeypatch.setattr(workspace, "MAX_FILE_BYTES", 1000)
    with open(work / "big.png", "wb") as handle:
        handle.truncate(1001)
    with pytest.raises(ToolInputError, match="at most"):
        ImageTools(work).info("big.png")

    # PNG headers claiming 12000 x 12000 (our limit) and 100000 x 100000 pixels (Pillow's own):
    # refused before any pixel is decoded.
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    for side, message in (
        (12000, "12000x12000 pixels; the image tools open images of at most"),
        (100000, "decompression bomb"),
    ):
        header = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
        (work / "bomb.png").write_bytes(header + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b""))
        with pytest.raises(ToolInputError, match=message):
            ImageTools(work).info("bomb.png")


def test_only_the_accepted_formats_are_decoded(setup):
    work, _ = setup
    # An EPS file: Pillow's EPS plugin would run Ghostscript on it.
    (work / "x.png").write_bytes(b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nshowpage\n")
    with pytest.raises(ToolInputError, match="not an image Pillow can read"):
        ImageTools(work).info("x.png")


def test_views_and_palette_are_never_written_through_a_link(setup):
    work, outside = setup
    tools = ImageTools(work)
    (work / "views").symlink_to(outside)  # views/ pointing elsewhere
    with pytest.raises(ToolInputError, match="not a directory"):
        tools.inspect()
    with pytest.raises(ToolInputError, match="not a directory"):
        tools.read_pixels()
    assert sorted(p.name for p in outside.iterdir()) == ["canary.txt", "secret.png"]
    (work / "views").unlink()
    (work / "views").mkdir()
    (work / "views" / "001-inspect.png").symlink_to(outside / "canary.txt")  # a view name taken by a link
    (work / "views" / "palette.json").symlink_to(outside / "canary.txt")
    saved = tools.inspect()[0].meta["saved"]
    assert saved == "views/002-inspect.png" and (work / saved).is_file() and not (work / saved).is_symlink()
    with pytest.raises(ToolInputError, match="symbolic link"):
        tools.read_pixels()  # would read the canary as the palette
    (work / "views" / "palette.json").unlink()
    (work / "views" / ".palette.lock").unlink()
    (work / "views" / ".palette.lock").symlink_to(outside / "lock")
    with pytest.raises(ToolInputError, match="cannot lock"):
        tools.read_pixels()
    (work / "views" / ".palette.lock").unlink()
    assert "palette" in tools.read_pixels(rows=2, columns=2)
    assert json.loads((work / "views" / "palette.json").read_text())
    assert (outside / "canary.txt").read_text() == "CANARY"
    assert sorted(p.name for p in outside.iterdir()) == ["canary.txt", "secret.png"]


def test_the_observe_tool_never_writes_its_views_through_a_link(tmp_path):
    from agent_eval.benchmarks.activeobs.observe_server import ObservationLog

    work, outside = tmp_path / "work", tmp_path / "outside"
    outside.mkdir()
    log = ObservationLog(tmp_path / "obs", views_dir=work / "views")
    meta = {"frame_index": 1, "angle_deg": 10.0}
    assert log.add(dict(meta), b"png1")["saved_as"] == "views/001-f0001-a010.0.png"
    (work / "views" / "002-f0001-a010.0.png").symlink_to(outside / "planted.png")  # a name taken by a link
    assert "saved_as" not in log.add(dict(meta), b"png2")
    (work / "views").rename(work / "old")
    (work / "views").symlink_to(outside)  # views/ itself a link
    entry = log.add(dict(meta), b"png3")
    assert "saved_as" not in entry and (tmp_path / "obs" / entry["image"]).read_bytes() == b"png3"
    assert list(outside.iterdir()) == []
