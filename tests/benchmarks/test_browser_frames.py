"""The browser-game kinds' frame archive and the looks at it: frames numbered in order and written whole, recall
of at most a few at once, inspect and read_pixels as the image tools' own operations on the exact pixels (an RGBA
PNG as a browser encodes a canvas), one palette per item, clear refusals."""

import io
import json

import pytest
from PIL import Image

from agent_eval.benchmarks.games.frames import FrameArchive, FrameRefused
from agent_eval.benchmarks.games.tools import MAX_RECALL, FrameLooks


def png(colour, size=(20, 10)) -> bytes:
    image = Image.new("RGBA", size, colour)
    image.putpixel((3, 2), (255, 255, 255, 255))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def looks(tmp_path):
    archive = FrameArchive(tmp_path / "frames")
    for colour in ((255, 0, 0, 255), (0, 0, 255, 255)):
        archive.add(png(colour))
    return FrameLooks(archive)


def test_frames_are_numbered_and_kept_whole(looks, tmp_path):
    assert looks.archive.count == 2 and sorted(p.name for p in (tmp_path / "frames").iterdir()) == [
        "0001.png",
        "0002.png",
    ]
    assert looks.archive.png(2) == png((0, 0, 255, 255))
    looks.archive.resume(5)
    assert looks.archive.add(png((0, 0, 0, 255))) == 6


def test_recall_inspect_and_read_pixels(looks):
    assert [meta for meta, _ in looks.recall([2, 1])] == [{"frame": 2}, {"frame": 1}]
    meta, view = looks.inspect(1, x=2, y=1, width=4, height=3, scale=4)
    assert meta["region"] == {"x": 2, "y": 1, "width": 4, "height": 3} and Image.open(io.BytesIO(view)).size == (16, 12)
    read = json.loads(looks.read_pixels(1, x=2, y=2, width=3, height=1))
    assert read["grid"] == ["ABA"] and read["palette"] == {"A": "#FF0000", "B": "#FFFFFF"}
    again = json.loads(looks.read_pixels(2, x=3, y=2, width=2, height=1))
    assert again["grid"] == ["BC"]  # the palette is the item's: white keeps its symbol


@pytest.mark.parametrize(
    "call, says",
    [
        (lambda looks: looks.recall([3]), "no frame 3: frames so far are 1-2"),
        (lambda looks: looks.recall(list(range(1, MAX_RECALL + 2))), f"at most {MAX_RECALL}"),
        (lambda looks: looks.recall([]), "give the numbers"),
        (lambda looks: looks.inspect(1, scale=99), "scale must be an integer 1-16"),
    ],
)
def test_refusals_say_what_to_do(looks, call, says):
    with pytest.raises(FrameRefused, match=says):
        call(looks)
