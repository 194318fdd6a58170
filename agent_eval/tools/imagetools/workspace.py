"""The item's working directory: which image, where views and the palette are kept.

The tools act on files the agent controls, and the MCP server runs outside the sandbox (in the
harness), so every access is confined to the workdir by construction, not by checking paths:
each path is walked one component at a time from an open descriptor of the workdir with
O_NOFOLLOW, so a symbolic link anywhere (an agent can make `image.png` or `views` a link to
anything the harness can read or write) is refused, never followed, even if it appears between
a check and the use. Only regular files are read (no FIFOs, devices or sockets), at most
MAX_FILE_BYTES and MAX_PIXELS, and only in the formats the tools accept (no Pillow plugin that
runs a program). Files are created with O_EXCL and replaced by rename, never written through an
existing name.

Several processes may use one workdir at once (the MCP server and, in python mode, the
command-line script), so view numbers are claimed with O_EXCL and the palette is updated
under a file lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import posixpath
import re
import stat
from contextlib import contextmanager
from pathlib import Path

from PIL import Image

from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.palette import Palette

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff"}
PILLOW_FORMATS = ("PNG", "JPEG", "GIF", "WEBP", "BMP", "TIFF")  # what those suffixes hold; nothing else is decoded
MAX_FILE_BYTES = 64 * 2**20
MAX_PIXELS = 50_000_000  # about 8000 x 6000; a decompression bomb is refused before it is decoded
VIEWS_DIR = "views"
PALETTE_FILE = "palette.json"
_VIEW_NAME = re.compile(r"^(\d+)-")
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class Workspace:
    def __init__(self, root: str | os.PathLike):
        self.root = Path(root).resolve()  # the harness's own path to the workdir, not the agent's
        self.views = self.root / VIEWS_DIR

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    # -- confined access ---------------------------------------------------------------------------------

    def _relative(self, path: str) -> str:
        """`path` as a normalised path inside the workdir (absolute paths into it are accepted)."""
        text = str(path)
        if text.startswith("/"):
            text = os.path.relpath(posixpath.normpath(text), self.root)
        text = posixpath.normpath(text)
        if text == ".." or text.startswith("../") or text.startswith("/"):
            raise ToolInputError(f"path {path!r} is outside the working directory; give a path relative to it")
        return text

    @contextmanager
    def _dir(self, parts: list[str], create: bool = False):
        """A descriptor of workdir/parts..., every component opened without following links."""
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for part in parts:
                if create:
                    try:
                        os.mkdir(part, 0o755, dir_fd=fd)
                    except FileExistsError:
                        pass
                try:
                    child = os.open(part, _DIR, dir_fd=fd)
                except OSError as exc:
                    raise ToolInputError(
                        f"{'/'.join(parts)!r} is not a directory in the working directory "
                        f"(symbolic links are not followed)"
                    ) from exc
                os.close(fd)
                fd = child
            yield fd
        finally:
            os.close(fd)

    def _open_regular(self, rel: str, shown: str):
        """An open binary file for the regular file workdir/rel, or ToolInputError."""
        *parents, name = rel.split("/")
        with self._dir(parents) as dir_fd:
            try:
                before = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                raise ToolInputError(
                    f"no file {shown!r} in the working directory; images there: {self._listing()}"
                ) from None
            if stat.S_ISLNK(before.st_mode):
                raise ToolInputError(
                    f"{shown!r} is a symbolic link; the image tools open only regular files "
                    f"in the working directory, never through a link"
                )
            if not stat.S_ISREG(before.st_mode):
                raise ToolInputError(f"no file {shown!r} in the working directory; images there: {self._listing()}")
            try:
                fd = os.open(name, _READ, dir_fd=dir_fd)
            except OSError as exc:
                raise ToolInputError(f"cannot open {shown!r} in the working directory ({exc.strerror})") from None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino):
            os.close(fd)
            raise ToolInputError(f"{shown!r} changed while it was being opened; try again")
        if st.st_size > MAX_FILE_BYTES:
            os.close(fd)
            raise ToolInputError(
                f"{shown!r} is {st.st_size / 2**20:.0f} MiB; the image tools open files of at most "
                f"{MAX_FILE_BYTES // 2**20} MiB"
            )
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")

    def _entries(self) -> list[str]:
        """Names of the regular files (not links) directly in the workdir."""
        with self._dir([]) as fd:
            with os.scandir(fd) as entries:
                return sorted(e.name for e in entries if e.is_file(follow_symlinks=False))

    # -- images --------------------------------------------------------------------------------------------

    def image_path(self, path: str | None = None) -> Path:
        """`path` inside the workdir, or the default image: `image.*`, else the only image in the root.
        Says which file; opening it (open_image) is what checks that it is a regular file."""
        if path:
            return self.root / self._relative(path)
        images = self._root_images()
        named = [name for name in images if Path(name).stem == "image"]
        if len(named) == 1:
            return self.root / named[0]
        if len(images) == 1:
            return self.root / images[0]
        raise ToolInputError(f"no single default image; pass path, one of: {self._listing()}")

    def open_image(self, path: str | None = None) -> tuple[Image.Image, str]:
        target = self.image_path(path)
        rel = self.rel(target)
        with self._open_regular(rel, path or rel) as handle:
            try:
                img = Image.open(handle, formats=PILLOW_FORMATS)
            except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
                raise ToolInputError(f"{rel!r} is not an image Pillow can read ({exc})") from exc
            if img.width * img.height > MAX_PIXELS:  # checked on the header, before any decoding
                raise ToolInputError(
                    f"{rel!r} is {img.width}x{img.height} pixels; the image tools open images "
                    f"of at most {MAX_PIXELS:,} pixels"
                )
            try:
                img.load()
            except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
                raise ToolInputError(f"{rel!r} is not an image Pillow can read ({exc})") from exc
        return img, rel

    def _root_images(self) -> list[str]:
        return [name for name in self._entries() if Path(name).suffix.lower() in IMAGE_SUFFIXES]

    def _listing(self) -> str:
        return ", ".join(self._root_images()) or "(none)"

    # -- for the harness, after the run (the same confinement: the agent left the workdir as it liked) --------

    def view_files(self) -> list[str]:
        """Workdir-relative paths of the saved views (regular files `views/NNN-...`), in order; none if
        `views` is not a real directory."""
        try:
            with self._dir([VIEWS_DIR]) as views, os.scandir(views) as entries:
                names = [e.name for e in entries if _VIEW_NAME.match(e.name) and e.is_file(follow_symlinks=False)]
        except (ToolInputError, FileNotFoundError):
            return []
        return [f"{VIEWS_DIR}/{name}" for name in sorted(names)]

    def image_size(self, path: str | os.PathLike) -> list[int] | None:
        """[width, height] of an image file inside the workdir, from its header; None if it is not a
        regular file inside it or not an image of an accepted format."""
        try:
            rel = self._relative(str(path))
            with self._open_regular(rel, rel) as handle, Image.open(handle, formats=PILLOW_FORMATS) as img:
                return [img.width, img.height]
        except (ToolInputError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
            return None

    # -- what the tools write ---------------------------------------------------------------------------

    def save_view(self, png: bytes, tool: str) -> str:
        """Write `views/NNN-<tool>.png` under the next free number; return its workdir-relative path."""
        with self._dir([VIEWS_DIR], create=True) as views:
            numbers = [int(m.group(1)) for name in os.listdir(views) if (m := _VIEW_NAME.match(name))]
            n = max(numbers, default=0) + 1
            while True:
                name = f"{n:03d}-{tool}.png"
                try:
                    fd = os.open(name, _CREATE, 0o644, dir_fd=views)
                except FileExistsError:
                    n += 1  # another process took this number (or the agent made a file or link of that name)
                    continue
                with os.fdopen(fd, "wb") as f:
                    f.write(png)
                return f"{VIEWS_DIR}/{name}"

    def create_file(self, directory: str, name: str, data: bytes) -> str | None:
        """Write a new file `directory/name` (created if missing); None if that name is already taken
        (by a file, or by a link the agent made). For other writers into the workdir (the observe tool)."""
        with self._dir([directory], create=True) as fd:
            try:
                handle = os.open(name, _CREATE, 0o644, dir_fd=fd)
            except FileExistsError:
                return None
            with os.fdopen(handle, "wb") as f:
                f.write(data)
        return f"{directory}/{name}"

    @contextmanager
    def palette(self):
        """The session palette, locked for the duration and saved on success."""
        with self._dir([VIEWS_DIR], create=True) as views:
            try:
                lock_fd = os.open(
                    ".palette.lock", os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=views
                )
            except OSError as exc:
                raise ToolInputError(f"cannot lock {VIEWS_DIR}/.palette.lock ({exc.strerror}); remove it") from None
            with os.fdopen(lock_fd, "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                palette = self._read_palette(views)
                yield palette
                tmp = f".{PALETTE_FILE}.tmp{os.getpid()}-{id(palette)}"
                try:
                    os.unlink(tmp, dir_fd=views)
                except FileNotFoundError:
                    pass
                with os.fdopen(os.open(tmp, _CREATE, 0o644, dir_fd=views), "w") as f:
                    f.write(json.dumps(palette.to_json(), indent=1))
                os.replace(tmp, PALETTE_FILE, src_dir_fd=views, dst_dir_fd=views)

    def _read_palette(self, views: int) -> Palette:
        try:
            os.stat(PALETTE_FILE, dir_fd=views, follow_symlinks=False)
        except FileNotFoundError:
            return Palette()
        rel = f"{VIEWS_DIR}/{PALETTE_FILE}"
        with self._open_regular(rel, rel) as handle:
            return Palette.from_json(json.loads(handle.read()))
