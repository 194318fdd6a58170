"""VISTA's looks over the visuals a task supplies (github.com/joshhhhhan/VISTA, MIT: src/vista/core/support.py
TaskContext over core/session.py's _inspect and _read_pixels), a visual selected by its event, moment and view;
the descriptions, schemas, checks, answers and labels are VISTA's. The visuals are read here, outside the sandbox.
Used by the browser kinds' VISTA tools (events.py) and BabyVision's `--image-tools vista`."""

from __future__ import annotations

import functools
import io
import json
from dataclasses import dataclass
from html import escape

from jsonschema import Draft202012Validator
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult
from PIL import Image

from agent_eval.benchmarks.games.frames import png_of
from agent_eval.benchmarks.games.vista.mcp import (
    LABEL,
    MAX_INSPECTION_LABEL_CHARS,
    MAX_INSPECTION_QUESTION_CHARS,
    MAX_INSPECTION_VIEWS,
    MAX_PIXEL_READOUT_SAMPLES,
    MAX_PIXEL_READOUT_VIEWS,
    PIXEL_READOUT_SYMBOLS,
    READ_ONLY,
    Definition,
    answer,
    schema_counts,
    schema_object,
    schema_question,
    schema_region,
    tools_of,
)
from agent_eval.tools.imagetools.mcp_server import fixed_tools_server
from agent_eval.tools.imagetools.regions import bin_centres

TOOL_NAMES = ("inspect", "read_pixels")
COLOR_BITS = 4  # TaskContext.pixel_readout_color_bits: JPEG noise collapses into 16 levels a channel
INVALID = "Invalid tool arguments."  # runtime.py: a call its schema refuses is not run
Colour = tuple[int, int, int]


@dataclass(frozen=True)
class Supplied:
    """One visual the task supplied: where it is (event, moment, view), its file's bytes and size."""

    event: int
    moment: int
    view: str
    data: bytes
    width: int
    height: int
    kind: str = "current"  # VISTA's evidence kind of the observation it belongs to

    @classmethod
    def of_file(cls, data: bytes, view: str, event: int = 0, moment: int = 0) -> Supplied:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
        return cls(event, moment, view, data, width, height)

    def label(self) -> str:
        """The text VISTA puts before the visual where it is shown (support.py's labels)."""
        return _label(
            {"kind": self.kind, "event": self.event, "moment": self.moment, "view": self.view},
            self.width,
            self.height,
        )


def canonical(value) -> str:
    """VISTA's core/json.py canonical: sorted keys, ASCII, no spaces."""
    return json.dumps(value, ensure_ascii=True, sort_keys=True, separators=(",", ":"))


def _label(attributes: dict, width: int, height: int) -> str:
    shown = {**attributes, "size": f"{width}x{height}"}
    return "<visual " + " ".join(f'{k}="{escape(str(v), quote=True)}"' for k, v in shown.items()) + "></visual>"


def quantized(colour: Colour, bits: int = COLOR_BITS) -> Colour:
    """Each channel rounded to `bits` of precision, as the level's colour (support.py quantize_rgb)."""
    levels = (1 << bits) - 1
    return tuple((((c * levels + 127) // 255) * 255 + levels // 2) // levels for c in colour)  # type: ignore[return-value]


class Refused(ValueError):
    """A look VISTA answers with {"error": ...}: nothing was looked at."""


@dataclass(frozen=True)
class Picked:
    """A view's visual as a look reads it: where it is (the answer's fields), the region as asked and the same
    region in the visual's pixels, its PNG and the size that PNG must have."""

    address: dict
    region: tuple[int, int, int, int]
    box: tuple[int, int, int, int]
    data: bytes
    size: tuple[int, int]


class Looks:
    """VISTA's inspect and read_pixels in one loop over the views (core/session.py _inspection_view,
    _pixel_readout_view; support.py TaskContext runs the same loop over a task's events by mapping them onto turns):
    a subclass checks a view's address and picks its visual (`_check`, `_pick`), in VISTA's order of checks."""

    display = 1024  # the side an inspected crop is enlarged to fit, and read_pixels' most rows and columns
    colour_bits = 8  # read_pixels' precision a channel (8: the exact colour)

    def _check(self, selection: object, index: int, allowed: set[str], needed: set[str]) -> None:
        raise NotImplementedError

    def _pick(self, selection: dict, index: int) -> Picked:
        raise NotImplementedError

    def _rgb(self, picked: Picked, index: int, verb: str) -> Image.Image:
        try:
            with Image.open(io.BytesIO(picked.data)) as opened:
                if opened.size != picked.size:
                    raise OSError("not the size of the visual as supplied")
                return opened.convert("RGB")
        except OSError:
            raise Refused(f"View {index}: archived visual could not be {verb}.") from None

    def _inspected(self, views: list) -> tuple[dict, list[bytes]]:
        """Each view's region cropped and enlarged without smoothing: (the metadata, a PNG a view in order)."""
        shown, images = [], []
        for index, selection in enumerate(views, start=1):
            self._check(selection, index, {"label", "region"}, set())
            picked = self._pick(selection, index)
            x, y, width, height = picked.box
            crop = self._rgb(picked, index, "rendered").crop((x, y, x + width, y + height))
            longest = max(crop.size)  # enlarged proportionally without smoothing to fit the display
            size = (crop.width * self.display // longest, crop.height * self.display // longest)
            image = crop if size == crop.size else crop.resize(size, Image.Resampling.NEAREST)
            image_size = {"width": image.width, "height": image.height}
            shown.append(
                {"index": index, **picked.address, "region": _described(picked.region), "image_size": image_size}
            )
            images.append(png_of(image))
        metadata = {"visual_kind": "inspection", "current_state_unchanged": True, "view_count": len(shown)}
        return {**metadata, "views": shown}, images

    def _sampled(self, views: list, symbols: dict[Colour, str], fields: dict | None = None) -> dict:
        """Each view's region sampled at the centres of rows x columns equal bins (pixel_readout's answer)."""
        sampled: list[tuple[dict, list[list[Colour]]]] = []
        total = 0
        for index, selection in enumerate(views, start=1):
            self._check(selection, index, {"label", "region", "rows", "columns"}, {"region"})
            rows, columns = selection.get("rows"), selection.get("columns")
            if not all(type(n) is int and 1 <= n <= self.display for n in (rows, columns)):
                raise Refused(f"View {index}: invalid sample dimensions.")
            picked = self._pick(selection, index)
            x, y, width, height = picked.box
            xs, ys = bin_centres(x, width, columns), bin_centres(y, height, rows)
            pixels = self._rgb(picked, index, "sampled").load()
            assert pixels is not None
            samples = [[quantized(pixels[sx, sy], self.colour_bits) for sx in xs] for sy in ys]  # type: ignore[arg-type]
            total += rows * columns
            if total > MAX_PIXEL_READOUT_SAMPLES:
                raise Refused(f"At most {MAX_PIXEL_READOUT_SAMPLES} samples may be requested.")
            meta = {"index": index, **picked.address, "region": _described(picked.region)}
            sampled.append(({**meta, "rows": rows, "columns": columns}, samples))
        return pixel_readout(sampled, total, symbols, fields)


class StillLooks(Looks):
    """inspect and read_pixels over one task's supplied visuals (each addressed by event, moment and view; a region
    in the visual's own pixels; colours rounded to COLOR_BITS, named by a palette of the call's own)."""

    colour_bits = COLOR_BITS

    def __init__(self, visuals: list[Supplied]):
        self.visuals = visuals
        self.display = max((max(v.width, v.height) for v in visuals), default=1024)  # TaskContext.display_size
        self._validators = {name: Draft202012Validator(schema) for name, (_, schema, _) in self.definitions().items()}

    # -- the tools as offered

    def definitions(self) -> dict[str, Definition]:
        """TaskContext._tools: core/tools.py's inspect and read_pixels, a view addressed by event, moment, view."""
        address = {
            "event": {
                "type": "integer",
                "minimum": 0,
                "description": "This role's event number, starting at 0, shown with a supplied visual or in history.",
            },
            "moment": {
                "type": "integer",
                "minimum": 0,
                "description": "Observation within the event; omit for the final observation.",
            },
            "view": {
                "type": "string",
                "minLength": 1,
                "description": "View name; required only when the observation has multiple views.",
            },
        }
        region = schema_region(self.display)
        inspect_view = schema_object({"label": LABEL, "region": region, **address}, ["label", "event"])
        pixels_view = schema_object(
            {"label": LABEL, "region": region, **schema_counts(self.display), **address},
            ["label", "event", "region", "rows", "columns"],
        )
        inspect = (
            "Inspect one or more supplied visuals without changing the task. Select an event, optionally an earlier "
            "moment and a view name. Include a visual question and a label for each view. Regions use original image "
            f"pixels; crops are enlarged proportionally without smoothing to fit within {self.display}x{self.display}."
        )
        read_pixels = (
            "Read RGB samples from one or more supplied visuals without changing the task. Select an event, "
            "optionally a moment and view name, and an original-image pixel region. The tool divides the region into "
            "equal rows and columns and samples their center pixels. Colors are rounded to 4 bits per channel (16 "
            "levels each) so compression noise does not fragment the palette; each reply carries its own palette of "
            "at most 64 colors as symbols, with compact row strings, without interpreting pixels. At most 64 views "
            "and 4096 total samples may be requested. Include a visual question and labels."
        )
        return {
            "inspect": (inspect, schema_question(inspect_view, MAX_INSPECTION_VIEWS), READ_ONLY),
            "read_pixels": (read_pixels, schema_question(pixels_view, MAX_PIXEL_READOUT_VIEWS), READ_ONLY),
        }

    def tools(self) -> list[Tool]:
        return tools_of(self.definitions(), {"inspect": self.inspect, "read_pixels": self.read_pixels}, TOOL_NAMES)

    # -- the looks

    def _look(self, name: str, arguments: object) -> CallToolResult:
        """support.py _visual_reply: the schema's check, each view's visual, then the look itself."""
        if not self._validators[name].is_valid(arguments):
            return answer(False, INVALID)
        assert isinstance(arguments, dict)
        try:
            for view in arguments["views"]:
                self._select(view)
        except ValueError as why:
            return answer(False, str(why))
        try:
            checked_question(arguments, MAX_INSPECTION_VIEWS if name == "inspect" else MAX_PIXEL_READOUT_VIEWS)
            if name == "inspect":
                metadata, images = self._inspected(arguments["views"])
            else:
                fields = {"color_bits": COLOR_BITS, "palette_scope": "call"}
                metadata, images = self._sampled(arguments["views"], {}, fields), []  # this call's own palette
        except Refused as why:
            return answer(False, canonical({"error": str(why)}))
        for view, selection in zip(metadata["views"], arguments["views"]):
            view["label"] = selection["label"]
        labels = [self._derived_label(view) for view in metadata["views"][: len(images)]]
        return answer(True, canonical(metadata), list(zip(labels, images)))

    inspect = functools.partialmethod(_look, "inspect")
    read_pixels = functools.partialmethod(_look, "read_pixels")

    def _check(self, selection: object, index: int, allowed: set[str], needed: set[str]) -> None:
        assert isinstance(selection, dict)  # the schema's check came first
        checked_view(selection, index, allowed | {"event", "moment", "view"}, needed)
        if "region" in selection and selection["region"] is None:
            raise Refused(f"View {index}: invalid region.")

    def _pick(self, selection: dict, index: int) -> Picked:
        visual = self._select(selection)
        region = checked_region(selection, index, visual.width, visual.height)
        address = {"event": visual.event, "moment": visual.moment, "view": visual.view}
        return Picked(address, region, region, visual.data, (visual.width, visual.height))

    def _select(self, selection: dict) -> Supplied:
        """support.py _select: the event's last moment unless one is named; the view when there are several."""
        moments = sorted({v.moment for v in self.visuals if v.event == selection["event"]})
        if not moments:
            raise ValueError("Unknown event.")
        moment = selection.get("moment", moments[-1])
        if moment not in moments:
            raise ValueError("The event has no such observation.")
        views = [v for v in self.visuals if v.event == selection["event"] and v.moment == moment]
        name = selection.get("view")
        if name is None:
            if len(views) != 1:
                raise ValueError("Specify view for a multi-view observation.")
            return views[0]
        found = next((v for v in views if v.view == name), None)
        if found is None:
            raise ValueError("The observation has no such view.")
        return found

    def _derived_label(self, view: dict) -> str:
        size = view["image_size"]
        attributes = {"kind": "derived", "event": view["event"], "moment": view["moment"], "view": view["view"]}
        attributes |= {"label": view["label"], "region": canonical(view["region"]), "resampling": "nearest"}
        return _label(attributes, size["width"], size["height"])


def checked_question(arguments: object, most: int) -> list:
    """A look's call as VISTA checks it (session.py): a question and 1..most views; its views, or Refused."""
    if (
        not isinstance(arguments, dict)
        or set(arguments) != {"question", "views"}
        or not isinstance(arguments.get("question"), str)
        or not arguments["question"].strip()
        or len(arguments["question"]) > MAX_INSPECTION_QUESTION_CHARS
        or not isinstance(arguments.get("views"), list)
        or not 1 <= len(arguments["views"]) <= most
    ):
        raise Refused("Invalid arguments.")
    return arguments["views"]


def pixel_readout(
    sampled: list[tuple[dict, list[list[Colour]]]], total: int, symbols: dict[Colour, str], fields: dict | None = None
) -> dict:
    """read_pixels' answer over its views' samples, each colour named by its symbol in `symbols`: colours not named
    yet take the next symbols in RGB order (a fresh dict: a palette of the call's own; a kept one: the game's), or
    Refused past the last symbol. `fields`: what a caller's answer says of its sampling before the palette."""
    colours = {colour for _, samples in sampled for row in samples for colour in row}
    unseen = sorted(colours - set(symbols))
    if len(symbols) + len(unseen) > len(PIXEL_READOUT_SYMBOLS):
        raise Refused("The pixel readout color limit has been reached.")
    for colour in unseen:
        symbols[colour] = PIXEL_READOUT_SYMBOLS[len(symbols)]
    palette = {s: "#{:02X}{:02X}{:02X}".format(*colour) for colour, s in symbols.items() if colour in colours}
    views = [{**meta, "samples": ["".join(symbols[c] for c in row) for row in samples]} for meta, samples in sampled]
    return {
        "visual_kind": "pixel_readout",
        "current_state_unchanged": True,
        "sampling": "equal-bin-centers",
        **(fields or {}),
        "palette": palette,
        "sample_count": total,
        "view_count": len(views),
        "views": views,
    }


def checked_view(selection: object, index: int, allowed: set[str], needed: set[str]) -> None:
    """A view's keys as VISTA checks them: a short label, the `needed` keys, no key outside `allowed`."""
    label = selection.get("label") if isinstance(selection, dict) else None
    keys = set(selection) if isinstance(selection, dict) else set()
    short = isinstance(label, str) and label.strip() and len(label) <= MAX_INSPECTION_LABEL_CHARS
    if not short or not needed <= keys or keys - allowed:
        raise Refused(f"View {index}: invalid selection.")


def checked_region(selection: dict, index: int, width: int, height: int) -> tuple[int, int, int, int]:
    """The view's region inside width x height (none given: all of it), or Refused (session.py _inspection_region)."""
    value = selection.get("region")
    if value is None:
        return 0, 0, width, height
    invalid = Refused(f"View {index}: invalid region.")
    if not isinstance(value, dict) or set(value) != {"x", "y", "width", "height"}:
        raise invalid
    x, y, w, h = (value.get(k) for k in ("x", "y", "width", "height"))
    if not (type(x) is int and type(y) is int and type(w) is int and type(h) is int):
        raise invalid
    if x < 0 or y < 0 or w < 1 or h < 1 or x + w > width or y + h > height:
        raise invalid
    return x, y, w, h


def _described(region: tuple[int, int, int, int]) -> dict:
    return dict(zip(("x", "y", "width", "height"), region))


def build_server(name: str, visuals: list[Supplied]) -> MCPServer:
    """The looks over these visuals as an MCP server called `name` (VISTA's bridge: `game`)."""
    return fixed_tools_server(name, StillLooks(visuals).tools())
