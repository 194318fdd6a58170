"""Did anything open, read or create a file in these places? inotify (Linux), through ctypes:
a canary that must stay unread is proven unread, not only absent from the output."""

from __future__ import annotations

import ctypes
import os
import struct

IN_ACCESS, IN_OPEN, IN_CREATE, IN_MODIFY = 0x1, 0x20, 0x100, 0x2
IN_NONBLOCK = os.O_NONBLOCK
_libc = ctypes.CDLL(None, use_errno=True)


class OpenWatch:
    """with OpenWatch([file, directory, ...]) as watch: ...; watch.events() -> [(path, name, mask)]"""

    def __init__(self, paths, mask: int = IN_ACCESS | IN_OPEN | IN_CREATE | IN_MODIFY):
        self.paths, self.mask = [str(p) for p in paths], mask
        self._collected: list[tuple[str, str, int]] = []

    def __enter__(self) -> "OpenWatch":
        self.fd = _libc.inotify_init1(IN_NONBLOCK)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.watches = {}
        for path in self.paths:
            wd = _libc.inotify_add_watch(self.fd, path.encode(), self.mask)
            if wd < 0:
                raise OSError(ctypes.get_errno(), f"inotify_add_watch {path}")
            self.watches[wd] = path
        return self

    def events(self) -> list[tuple[str, str, int]]:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return list(self._collected)
            offset = 0
            while offset < len(data):
                wd, mask, _, size = struct.unpack_from("iIII", data, offset)
                name = data[offset + 16 : offset + 16 + size].rstrip(b"\0").decode(errors="replace")
                offset += 16 + size
                self._collected.append((self.watches.get(wd, "?"), name, mask))

    def __exit__(self, *exc) -> None:
        os.close(self.fd)
