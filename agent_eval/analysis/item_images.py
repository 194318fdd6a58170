"""The images of a run: which workdir file each image the model saw shows, and images embedded in the HTML report."""

from __future__ import annotations

import base64
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"}


def resolve_image(base: Path, path: str) -> Path:
    return Path(path) if Path(path).is_absolute() else base / path


class ItemImages:
    """The images of one item dir. The parsers save what the model saw as `seen/NNN.png`; matching
    pixels tells which workdir file (the original, a view in `work/views/`) each one shows."""

    def __init__(self, base: Path):
        self.base = base
        self._keys: dict[Path, str | None] = {}
        self._sizes: dict[Path, tuple[int, int] | None] = {}

    def _read(self, path: Path) -> None:
        from PIL import Image, UnidentifiedImageError

        try:
            with Image.open(path) as img:
                self._sizes[path] = img.size
                rgba = img.convert("RGBA")  # same pixels in RGB or RGBA files give the same key
                self._keys[path] = hashlib.sha1(rgba.tobytes() + repr(rgba.size).encode()).hexdigest()
        except (OSError, UnidentifiedImageError, ValueError):
            self._keys[path] = self._sizes[path] = None

    def key(self, rel: str) -> str | None:
        path = resolve_image(self.base, rel)
        if path not in self._keys:
            self._read(path)
        return self._keys[path]

    def size(self, rel: str) -> tuple[int, int] | None:
        self.key(rel)
        return self._sizes[resolve_image(self.base, rel)]

    def workdir(self) -> list[str]:
        work = self.base / "work"
        if not work.is_dir():
            return []
        return [
            p.relative_to(self.base).as_posix()
            for p in sorted(work.rglob("*"))
            if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()
        ]

    def original(self, prompt_images: list[str]) -> str | None:
        """The item's input image: attached to the prompt (mode none) or `work/image.*`."""
        inputs = [p for p in prompt_images if resolve_image(self.base, p).is_file()]
        found = inputs or [p for p in self.workdir() if p.count("/") == 1 and p.startswith("work/image.")]
        return found[0] if found else None

    def alias(self, rel: str) -> str | None:
        """The workdir file holding the same pixels as `rel`, when `rel` is a copy (e.g. seen/001.png)."""
        if rel.startswith("work/") or self.key(rel) is None:
            return None
        return next((p for p in self.workdir() if self.key(p) == self.key(rel)), None)

    def not_shown(self, shown: list[str], original: str | None) -> list[str]:
        """Workdir images whose pixels appear nowhere in `shown` (e.g. scratch files never opened)."""
        keys = {self.key(p) for p in shown} - {None}
        return [p for p in self.workdir() if p != original and p not in shown and self.key(p) not in keys]

    def describe(self, rel: str) -> str:
        size, alias = self.size(rel), self.alias(rel)
        return f"{rel} " + (f"({size[0]}×{size[1]} px)" if size else "(missing)") + (f" = {alias}" if alias else "")


MIME = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


@dataclass
class Img:
    path: str
    src: str = ""  # data: URI; empty when missing or shown earlier in the item
    width: int = 0
    height: int = 0
    note: str = ""
    alias: str = ""  # the workdir file with the same pixels (seen/001.png = work/views/001-inspect.png)
    received: str = ""  # "model received 2000×1467 of 3000×2200 (reduced by the CLI)"


class ImageEmbedder:
    """One item's images as data URIs: bytes as they are unless larger than `max_px` (then a PNG
    thumbnail, noted), and each distinct picture embedded once (a repeat points back to it)."""

    def __init__(self, images: ItemImages, max_px: int):
        self.images, self.max_px = images, max_px
        self.done: dict[str, str] = {}  # pixel key -> where it was first shown

    def __call__(self, rel: str, label: str) -> Img:
        from PIL import Image

        key, alias = self.images.key(rel), self.images.alias(rel) or ""
        if key is None:
            return Img(rel, note="missing or unreadable")
        if key in self.done:
            return Img(rel, note=f"same image as {self.done[key]} above", alias=alias)
        path = resolve_image(self.images.base, rel)
        with Image.open(path) as img:
            size, fmt = img.size, img.format
            if max(size) <= self.max_px and fmt in MIME:
                data, mime, shown = path.read_bytes(), MIME[fmt], size
            else:
                img.thumbnail((self.max_px, self.max_px), Image.Resampling.LANCZOS)
                buffer = io.BytesIO()
                img.convert("RGBA" if img.mode in ("RGBA", "LA", "P") else "RGB").save(buffer, "PNG")
                data, mime, shown = buffer.getvalue(), "image/png", img.size
        self.done[key] = label
        note = f"shown at {shown[0]}×{shown[1]}, downscaled from {size[0]}×{size[1]}" if shown != size else ""
        return Img(rel, f"data:{mime};base64,{base64.b64encode(data).decode()}", size[0], size[1], note, alias)
