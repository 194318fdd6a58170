"""The frame archive every game kind keeps: every frame a game gave, numbered in order (<item>/game/frames/NNNN.png,
as the model is shown it), each file complete before its name appears, so the read-only mirror in the workdir (mode
python) never shows half a file. arcgames subclasses it (colour indices as NNNN.npy beside the PNG)."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import overload

from PIL import Image

from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.ops import as_pixels

FRAMES_DIR = "frames"


class FrameRefused(ToolInputError):
    """A look the model can fix (no such frame, too many at once): said as the tool's error."""


def frame_stem(number: int) -> str:
    """A frame's file stem: frame 7 is 0007 (0007.png, and 0007.npy for arcgames)."""
    return f"{number:04d}"


def frame_name(number: int) -> str:
    return f"{frame_stem(number)}.png"


class NumberedArchive:
    """Numbered frames in one folder (thread-safe): a kind's archive adds its frames with `_next` and `_write`."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._count = 0

    @property
    def count(self) -> int:
        return self._count

    def _next(self) -> int:
        with self._lock:
            self._count += 1
            return self._count

    def _write(self, name: str, data: bytes) -> None:
        tmp = self.directory / f".{name}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, self.directory / name)

    def resume(self, count: int) -> None:
        """Frames 1..count are an earlier process's (a restored game): numbering goes on after them. Files past
        count (archived by a move whose line never reached the timeline) are overwritten as play goes on."""
        with self._lock:
            self._count = count

    def path(self, number: int) -> Path:
        return self.directory / frame_name(number)

    def png(self, number: int) -> bytes:
        return self.path(self.checked(number)).read_bytes()

    def image(self, number: int) -> Image.Image:
        """The frame as shown, as RGB pixels (what the looks read)."""
        with Image.open(self.path(self.checked(number))) as image:
            image.load()  # the pixels, read before the file closes
            return as_pixels(image)

    def checked(self, number) -> int:
        if type(number) is not int or not 1 <= number <= self._count:  # a bool is no frame number
            raise FrameRefused(
                f"no frame {number!r}: frames so far are 1-{self._count}" if self._count else "no frame yet: play first"
            )
        return number


class ArchivedPngs(Sequence[bytes]):
    """Some of an archive's frames as PNGs, each read when it is looked at (a game's turn as an event: its moments
    as the archive holds them, not copies)."""

    def __init__(self, archive: NumberedArchive, numbers: Sequence[int]):
        self.archive, self.numbers = archive, tuple(numbers)

    def __len__(self) -> int:
        return len(self.numbers)

    @overload
    def __getitem__(self, index: int) -> bytes: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[bytes]: ...
    def __getitem__(self, index: int | slice) -> bytes | Sequence[bytes]:
        if isinstance(index, slice):
            return ArchivedPngs(self.archive, self.numbers[index])
        return self.archive.png(self.numbers[index])


class FrameArchive(NumberedArchive):
    """Frames captured as PNGs (the browser kinds: a page's canvas or a screenshot), kept as they came."""

    def add(self, png: bytes) -> int:
        number = self._next()
        self._write(frame_name(number), png)
        return number


def png_of(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()
