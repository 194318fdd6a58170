"""The item's working directory: which image, where views and the palette are kept.

Several processes may use one workdir at once (the MCP server and, in python mode, the
command-line script), so view numbers are claimed with O_EXCL and the palette is updated
under a file lock.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
from contextlib import contextmanager
from pathlib import Path

from PIL import Image

from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.palette import Palette

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff"}
VIEWS_DIR = "views"
PALETTE_FILE = "palette.json"
_VIEW_NAME = re.compile(r"^(\d+)-")


class Workspace:
    def __init__(self, root: str | os.PathLike):
        self.root = Path(root).resolve()
        self.views = self.root / VIEWS_DIR

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def image_path(self, path: str | None = None) -> Path:
        """`path` inside the workdir, or the default image: `image.*`, else the only image in the root."""
        if path:
            target = (self.root / path).resolve()
            if target != self.root and self.root not in target.parents:
                raise ToolInputError(f"path {path!r} is outside the working directory; give a path relative to it")
            if not target.is_file():
                raise ToolInputError(f"no file {path!r} in the working directory; images there: {self._listing()}")
            return target
        images = self._root_images()
        named = [p for p in images if p.stem == "image"]
        if len(named) == 1:
            return named[0]
        if len(images) == 1:
            return images[0]
        raise ToolInputError(f"no single default image; pass path, one of: {self._listing()}")

    def open_image(self, path: str | None = None) -> tuple[Image.Image, str]:
        target = self.image_path(path)
        try:
            img = Image.open(target)
            img.load()
        except (OSError, SyntaxError, ValueError) as exc:
            raise ToolInputError(f"{self.rel(target)!r} is not an image Pillow can read ({exc})") from exc
        return img, self.rel(target)

    def _root_images(self) -> list[Path]:
        return sorted(p for p in self.root.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)

    def _listing(self) -> str:
        return ", ".join(self.rel(p) for p in self._root_images()) or "(none)"

    def save_view(self, png: bytes, tool: str) -> str:
        """Write `views/NNN-<tool>.png` under the next free number; return its workdir-relative path."""
        self.views.mkdir(exist_ok=True)
        numbers = [int(m.group(1)) for name in os.listdir(self.views) if (m := _VIEW_NAME.match(name))]
        n = max(numbers, default=0) + 1
        while True:
            target = self.views / f"{n:03d}-{tool}.png"
            try:
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                n += 1  # another process took this number
                continue
            with os.fdopen(fd, "wb") as f:
                f.write(png)
            return self.rel(target)

    @contextmanager
    def palette(self):
        """The session palette, locked for the duration and saved on success."""
        self.views.mkdir(exist_ok=True)
        path = self.views / PALETTE_FILE
        with open(self.views / ".palette.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            palette = Palette.from_json(json.loads(path.read_text())) if path.exists() else Palette()
            yield palette
            tmp = path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(json.dumps(palette.to_json(), indent=1))
            os.replace(tmp, path)
