"""Operations bound to a workdir: open the image, run the op, save what the model sees.

The MCP server and the command-line script both call this, so they behave identically.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass

from agent_eval.tools.imagetools import ops
from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.regions import resolve_region
from agent_eval.tools.imagetools.workspace import Workspace

REGION_KEYS = ("x", "y", "width", "height")


@dataclass
class View:
    meta: dict
    png: bytes


class ImageTools:
    def __init__(self, workdir):
        self.workspace = Workspace(workdir)

    def inspect(
        self, views: list[dict] | None = None, size: int = ops.DEFAULT_SIZE, grid: int = 0, path: str | None = None
    ) -> list[View]:
        views = views or [{}]
        if len(views) > ops.MAX_VIEWS:
            raise ToolInputError(f"{len(views)} views requested; at most {ops.MAX_VIEWS} per call")
        img, rel = self.workspace.open_image(path)
        pixels = ops.as_pixels(img)
        # Validate every view before saving any, so a bad call leaves no partial output.
        rendered = []
        for spec in views:
            unknown = set(spec) - set(REGION_KEYS)
            if unknown:
                raise ToolInputError(f"unknown view keys {sorted(unknown)}; a view has only {list(REGION_KEYS)}")
            region = resolve_region(img.size, **{k: spec.get(k) for k in REGION_KEYS})
            rendered.append(ops.inspect_view(pixels, region, size, grid))
        out = []
        for view, meta in rendered:
            buf = io.BytesIO()
            view.save(buf, format="PNG")
            saved = self.workspace.save_view(buf.getvalue(), "inspect")
            out.append(
                View(
                    {"image": rel, "image_size": {"width": img.width, "height": img.height}, **meta, "saved": saved},
                    buf.getvalue(),
                )
            )
        return out

    def read_pixels(
        self, x=None, y=None, width=None, height=None, rows=None, columns=None, path: str | None = None
    ) -> dict:
        img, rel = self.workspace.open_image(path)
        region = resolve_region(img.size, x, y, width, height)
        with self.workspace.palette() as palette:
            result = ops.read_pixels(ops.as_pixels(img), region, rows, columns, palette)
        return {"image": rel, **result}

    def info(self, path: str | None = None) -> dict:
        img, rel = self.workspace.open_image(path)
        return {"image": rel, **ops.image_info(img)}


def format_pixels(result: dict) -> str:
    """The read_pixels answer as text: header, palette, sample coordinates, one line per row."""
    r = result["region"]
    lines = [
        f"image {result['image']}, region x={r['x']} y={r['y']} width={r['width']} height={r['height']}: "
        f"{result['rows']} rows x {result['columns']} columns; each symbol is the colour of the centre pixel "
        f"of a {result['bin_size']['width']:g} x {result['bin_size']['height']:g} px bin.",
        "palette: " + json.dumps(result["palette"]),
        "sample x: " + " ".join(map(str, result["sample_x"])),
        "sample y: " + " ".join(map(str, result["sample_y"])),
        "rows (top to bottom):",
        *result["grid"],
    ]
    return "\n".join(lines)
