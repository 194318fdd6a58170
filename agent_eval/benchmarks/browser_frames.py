"""What the browser-game kinds share of frames: the lossless archive of every frame a page gave (PNGs as the
browser encoded them, numbered in order, each with its pixel hash), and the looks the tools take at them
(`recall`, `inspect`, `read_pixels`), which are the image tools' own operations (tools/imagetools) applied to
an archived frame. The archive is in the item's folder, outside the sandbox; in mode python it is bound
read-only into the workdir as it grows.

    <item>/game/frames/NNNN.png   frame N as captured (the page's canvas or a screenshot)"""

from __future__ import annotations

import io
import json
import os
import threading
from pathlib import Path

from PIL import Image

from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.ops import MAX_SIZE, as_pixels, inspect_view, read_pixels
from agent_eval.tools.imagetools.palette import Palette
from agent_eval.tools.imagetools.regions import resolve_region

FRAMES_DIR = "frames"
MAX_RECALL = 10  # frames per recall call
DEFAULT_INSPECT_SCALE = 2


class FrameRefused(ToolInputError):
    """A look the model can fix (no such frame, too many at once): said as the tool's error."""


def frame_name(number: int) -> str:
    return f"{number:04d}.png"


class FrameArchive:
    """Numbered PNG frames in one folder (thread-safe); each file complete before its name appears."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._count = 0

    @property
    def count(self) -> int:
        return self._count

    def add(self, png: bytes) -> int:
        with self._lock:
            self._count += 1
            number = self._count
        tmp = self.directory / f".{frame_name(number)}.tmp"
        tmp.write_bytes(png)
        os.replace(tmp, self.path(number))
        return number

    def resume(self, count: int) -> None:
        """Frames 1..count are an earlier process's (a restored game): numbering goes on after them."""
        with self._lock:
            self._count = count

    def path(self, number: int) -> Path:
        return self.directory / frame_name(number)

    def has(self, number) -> bool:
        return isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= self._count

    def png(self, number: int) -> bytes:
        return self.path(self.checked(number)).read_bytes()

    def image(self, number: int) -> Image.Image:
        with Image.open(self.path(self.checked(number))) as image:
            image.load()  # the pixels, read before the file closes
            return as_pixels(image)

    def checked(self, number) -> int:
        if not self.has(number):
            raise FrameRefused(
                f"no frame {number!r}: frames so far are 1-{self._count}" if self._count else "no frame yet: play first"
            )
        return number


class FrameLooks:
    """recall, inspect and read_pixels on one item's archive (read_pixels keeps one palette per item, as the
    image tools keep one per session, so a colour's symbol never changes)."""

    def __init__(self, archive: FrameArchive):
        self.archive = archive
        self.palette = Palette()

    def recall(self, numbers: list[int]) -> list[tuple[dict, bytes]]:
        if not numbers:
            raise FrameRefused("give the numbers of the frames to look at again")
        if len(numbers) > MAX_RECALL:
            raise FrameRefused(f"{len(numbers)} frames asked; at most {MAX_RECALL} per call")
        return [({"frame": n}, self.archive.png(n)) for n in numbers]

    def inspect(self, frame: int, x=None, y=None, width=None, height=None, scale=DEFAULT_INSPECT_SCALE, grid=0):
        """(what was shown, the view as PNG): the region enlarged `scale` times by nearest neighbour, with grid
        lines every `grid` frame pixels labelled in frame coordinates."""
        image = self.archive.image(frame)
        region = resolve_region(image.size, x, y, width, height)
        if isinstance(scale, bool) or not isinstance(scale, int) or not 1 <= scale <= 16:
            raise FrameRefused(f"scale must be an integer 1-16, got {scale!r}")
        size = max(16, min(max(region.width, region.height) * scale, MAX_SIZE))
        view, meta = inspect_view(image, region, size, grid)
        buffer = io.BytesIO()
        view.save(buffer, format="PNG")
        return {"frame": frame, **meta}, buffer.getvalue()

    def read_pixels(self, frame: int, x=None, y=None, width=None, height=None, rows=None, columns=None) -> str:
        image = self.archive.image(frame)
        region = resolve_region(image.size, x, y, width, height)
        found = read_pixels(image, region, rows, columns, self.palette)
        return json.dumps({"frame": frame, **found})
