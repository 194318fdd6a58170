"""Images that reached the model inside events (base64) are saved losslessly beside the transcript."""

from __future__ import annotations

import base64
import binascii
from pathlib import Path

EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}


class SeenImages:
    """Writes `<item_dir>/seen/NNN.ext` in the order images appear; returns paths relative to item_dir."""

    def __init__(self, item_dir: Path):
        self.item_dir = item_dir
        # Several parsers (stream, session file, rollout) add to one item's seen/: number on from the last.
        self.count = len(list((item_dir / "seen").glob("*"))) if (item_dir / "seen").is_dir() else 0

    def save(self, data_b64: str, media_type: str) -> str | None:
        try:
            data = base64.b64decode(data_b64, validate=False)
        except (binascii.Error, ValueError):
            return None
        self.count += 1
        path = self.item_dir / "seen" / f"{self.count:03d}{EXTENSIONS.get(media_type, '.bin')}"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        return str(path.relative_to(self.item_dir))

    def save_data_url(self, url: str) -> str | None:
        """`data:image/png;base64,...` as the Responses API carries images."""
        if not url.startswith("data:") or ";base64," not in url:
            return None
        header, data = url[5:].split(";base64,", 1)
        return self.save(data, header)
