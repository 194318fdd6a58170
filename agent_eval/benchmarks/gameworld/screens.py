"""The screens a GameWorld task showed, archived losslessly: every screenshot the harness took (the start, the screen
after each action, the last screen before each reset) as `frames/NNNN.png` in the item's folder, numbered from 1,
its pixels' hash in the timeline (checked when a killed run's task is replayed). Outside the sandbox; in python mode a
read-only copy of the frames the protocol lets the agent see is bound into its workdir."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

from PIL import Image

FRAMES_DIR = "frames"


def frame_name(number: int) -> str:
    return f"{number:04d}.png"


class ScreenArchive:
    """Numbered PNGs in one directory (thread-safe); each file whole before its name appears."""

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
        os.replace(tmp, self.directory / frame_name(number))
        return number

    def resume(self, count: int) -> None:
        """Frames 1..count are an earlier process's (a replayed task): numbering goes on after them."""
        with self._lock:
            self._count = count

    def has(self, number: object) -> bool:
        return isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= self._count

    def path(self, number: int) -> Path:
        return self.directory / frame_name(number)

    def png(self, number: int) -> bytes:
        return self.path(number).read_bytes()

    def image(self, number: int) -> Image.Image:
        with Image.open(self.path(number)) as image:
            return image.convert("RGB")


def show_only(window: Path, archive: ScreenArchive, numbers: list[int]) -> None:
    """Make `window` hold exactly these frames of the archive (the official protocol's python mode: the shell sees
    the frames the current decision was shown, not the whole archive)."""
    window.mkdir(parents=True, exist_ok=True)
    wanted = {frame_name(n) for n in numbers}
    for present in window.iterdir():
        if present.name not in wanted:
            present.unlink()
    for number in numbers:
        target = window / frame_name(number)
        if not target.exists():
            tmp = window / f".{frame_name(number)}.tmp"
            shutil.copyfile(archive.path(number), tmp)
            os.replace(tmp, target)
