"""The `observe` tool: an MCP server over streamable HTTP on loopback, one per item (docs/kinds/activeobs.md).

The panorama never enters the sandbox: this server runs in the harness process, mounted on its MCP host
(agent_eval/tools/mcp_http.py), renders views from the scene on request, and is reachable from the item's sandbox
only because its own path is allowlisted there. Every call is logged to `<log_dir>/observations.jsonl` (errors
included) and each returned view kept as `<log_dir>/NNN-f<frame>-a<angle>.png`.
"""

from __future__ import annotations

import contextlib
import json
import math
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from agent_eval.benchmarks.activeobs.geometry import view_span, wrap_angle
from agent_eval.benchmarks.activeobs.render import png_bytes, render_view
from agent_eval.benchmarks.activeobs.scene import Scene, load_scene
from agent_eval.benchmarks.activeobs.worldmodel import loggable, stamp
from agent_eval.datamodel.jsonl import append_line
from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.mcp_server import fixed_tools_server, plain_tool
from agent_eval.tools.imagetools.workspace import Workspace
from agent_eval.tools.mcp_http import McpHost, Mount

SERVER_NAME = "observe"
TOOL_NAME = "observe"
TOOL_NAMES = (TOOL_NAME,)
LOG_FILE = "observations.jsonl"

DESCRIPTION = """Look at the 360° panoramic video: returns one {s.height}x{s.height} view of frame `frame_index`, \
centred on the horizontal angle `angle_deg`, plus its metadata as JSON.

The panorama is {s.width}x{s.height} pixels at {s.fps:g} frames per second; frames are 0..{last}{note}. \
Angle 0° is the panorama's left edge and angles grow to the right up to 360°, where the strip wraps \
around to 0° (any finite angle is accepted and wrapped). One view spans {fov:.1f}° of the circle. \
Metadata: frame_index, time_s, angle_deg (wrapped), and the view's columns in the panorama \
(x_start, x_end, wraps_seam). Evidence boxes refer to a view by its frame and angle, with \
coordinates in that view normalised to 0-1000."""
FRAME_HELP = "Frame index, 0-based."
ANGLE_HELP = "Centre of the view in degrees (0-360, wraps)."
SEQUENCE_HELP = "Which sequence to look at: one of {names}."


class ObservationLog:
    """Numbered, thread-safe record of the views served (tool calls run in worker threads)."""

    def __init__(self, directory: Path, views_dir: Path | None = None):
        self.directory, self.views_dir = directory, views_dir
        for folder in (directory, views_dir):
            if folder is not None:
                folder.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / LOG_FILE
        self.started = time.monotonic()
        self.entries: list[dict] = []
        self._lock = threading.Lock()

    def add(self, entry: dict, png: bytes | None = None) -> dict:
        with self._lock:
            number = len(self.entries) + 1
            entry = {"n": number, **stamp(self.started), **entry}
            if png is not None:
                name = f"{number:03d}-f{entry['frame_index']:04d}-a{entry['angle_deg']:05.1f}.png"
                (self.directory / name).write_bytes(png)
                entry["image"] = name
                if self.views_dir is not None:  # a copy the agent's shell and image tools can open
                    # never through a link the agent made there (we run outside its sandbox)
                    with contextlib.suppress(ToolInputError):
                        saved = Workspace(self.views_dir.parent).create_file(self.views_dir.name, name, png)
                        if saved:
                            entry["saved_as"] = saved
            append_line(self.path, entry)
            self.entries.append(entry)
            return entry


def observe(scene: Scene, frame_index: int, angle_deg: float) -> tuple[dict, bytes]:
    """The view and its metadata; ValueError with a message meant for the model."""
    if isinstance(frame_index, bool) or not isinstance(frame_index, int):
        raise ValueError(f"frame_index must be an integer, got {frame_index!r}")
    if not 0 <= frame_index < scene.n_frames:
        raise ValueError(
            f"frame_index {frame_index} is out of range: this video has frames 0..{scene.n_frames - 1} "
            f"({scene.fps:g} fps, {scene.n_frames / scene.fps:.1f} s)"
        )
    if isinstance(angle_deg, bool) or not isinstance(angle_deg, (int, float)) or not math.isfinite(angle_deg):
        raise ValueError(f"angle_deg must be a finite number of degrees, got {angle_deg!r}")
    angle = round(wrap_angle(float(angle_deg)), 3)
    span = view_span(angle, scene.width, scene.height)
    meta = {
        "sequence": scene.sequence,
        "frame_index": frame_index,
        "time_s": round(scene.time_of(frame_index), 3),
        "angle_deg": angle,
        "view_size": [scene.height, scene.height],
        "panorama_size": [scene.width, scene.height],
        **span.describe(),
    }
    return meta, png_bytes(render_view(scene, frame_index, angle))


def build_server(scenes: dict[str, Scene], log: ObservationLog) -> MCPServer:
    names = sorted(scenes)
    first = scenes[names[0]]

    def serve(sequence: str | None, frame_index: int, angle_deg: float) -> list:
        request = {"frame_index": frame_index, "angle_deg": loggable(angle_deg)}
        if len(names) > 1:
            request["sequence"] = sequence
        try:
            if sequence not in scenes:
                raise ValueError(f"unknown sequence {sequence!r}; use one of {', '.join(names)}")
            meta, png = observe(scenes[sequence], frame_index, angle_deg)
        except ValueError as error:
            log.add({"ok": False, "request": request, "error": str(error)})
            raise ToolError(str(error)) from None
        entry = log.add({"ok": True, "request": request, **meta}, png)
        shown = {**meta, "observation": entry["n"]}
        if "saved_as" in entry:
            shown["saved_as"] = entry["saved_as"]
        return [json.dumps(shown), Image(data=png, format="png")]

    tool: Callable[..., list]
    if len(names) == 1:

        def one_sequence(
            frame_index: Annotated[int, Field(description=FRAME_HELP)],
            angle_deg: Annotated[float, Field(description=ANGLE_HELP)],
        ) -> list:
            return serve(names[0], frame_index, angle_deg)

        tool, note = one_sequence, ""
    else:

        def any_sequence(
            sequence: str,
            frame_index: Annotated[int, Field(description=FRAME_HELP)],
            angle_deg: Annotated[float, Field(description=ANGLE_HELP)],
        ) -> list:
            return serve(sequence, frame_index, angle_deg)

        tool = any_sequence

        # The description depends on this item's sequences: set as an object, not a string
        # annotation (those are evaluated in module scope, where `names` does not exist).
        any_sequence.__annotations__["sequence"] = Annotated[
            str, Field(description=SEQUENCE_HELP.format(names=", ".join(names)))
        ]
        note = f" in each sequence ({', '.join(names)}; frame counts may differ)"
    description = DESCRIPTION.format(s=first, last=first.n_frames - 1, note=note, fov=360 * first.height / first.width)
    if log.views_dir is not None:
        description += (
            f" Each view is also saved as a PNG in your working directory, at the path given as "
            f"`saved_as` (e.g. {log.views_dir.name}/001-f0010-a090.0.png)."
        )
    return fixed_tools_server(SERVER_NAME, [plain_tool(tool, TOOL_NAME, description)])


class ObservationServer:
    """The observe server of one item (a context manager). `scenes`: one scene file, or several (then the tool takes
    a `sequence` argument); `log_dir` gets the log and every view (outside the sandbox, beside the transcript);
    `views_dir`, directly inside the agent's workdir (tool mode python), a copy of each view its shell or image tools
    can open (`saved_as` in the metadata); a fixed `port` gets a host of its own (a manual server)."""

    def __init__(
        self, scenes: Path | str | list[Path | str], log_dir: Path, port: int = 0, views_dir: Path | None = None
    ):
        paths = [scenes] if isinstance(scenes, (str, Path)) else list(scenes)
        self.scenes = {scene.sequence: scene for scene in map(load_scene, paths)}
        self.log = ObservationLog(log_dir, views_dir)
        self._requested_port = port
        self._stack = contextlib.ExitStack()
        self._mount: Mount | None = None

    @property
    def port(self) -> int | None:
        return self._mount.host.port if self._mount else None

    @property
    def url(self) -> str:
        assert self._mount is not None, "not started"
        return self._mount.url  # once started: the host says where it listens

    @property
    def endpoint(self) -> str:
        """What the item's sandbox must allow: this server's path on the host, nothing else."""
        assert self._mount is not None, "not started"
        return self._mount.endpoint

    def start(self) -> "ObservationServer":
        host = McpHost.shared()
        if self._requested_port:
            host = McpHost("127.0.0.1", self._requested_port).start()
            self._stack.callback(host.stop)
        self._mount = self._stack.enter_context(host.mount(lambda: build_server(self.scenes, self.log), SERVER_NAME))
        return self

    def stop(self) -> None:
        self._stack.close()

    def __enter__(self) -> "ObservationServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    """Serve scenes until Ctrl-C, for manual checks (docs/kinds/activeobs.md)."""
    import argparse

    parser = argparse.ArgumentParser(description="Serve the observe tool over streamable HTTP on loopback.")
    parser.add_argument("scene", nargs="+", type=Path)
    parser.add_argument("--log-dir", type=Path, required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    with ObservationServer(args.scene, args.log_dir, port=args.port) as server:
        print(server.url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
