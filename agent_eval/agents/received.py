"""Which images reached the model, at what size, from what the CLI itself logged.

The parsers save every image the CLI logged as sent (tool results in the event stream, the first
message's attachments in Claude's session file or Codex's rollout) under `seen/`. This module pairs
each with the file it came from, so a record can say "received 2000×1467 of 3000×2200".
"""

from __future__ import annotations

from pathlib import Path

from agent_eval.datamodel.transcript import ReceivedImage, Transcript
from agent_eval.tools.imagetools.workspace import Workspace

# Tools that show a file to the model, and the argument naming it.
FILE_VIEWERS = {"Read": "file_path", "view_image": "path"}


def image_size(path: Path) -> list[int] | None:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as img:
            return [img.width, img.height]
    except (OSError, UnidentifiedImageError, ValueError):
        return None


def _relative(path: Path, item_dir: Path) -> str:
    try:
        return path.resolve().relative_to(item_dir.resolve()).as_posix()
    except ValueError:
        return str(path)


def _viewed_file(arguments: dict, work: Workspace) -> Path | None:
    """The workdir file a viewer showed. Opened only through the Workspace: the agent may have made
    any name in its workdir a link to a file outside the sandbox, which the harness must not open."""
    for key in ("file_path", "path"):
        value = (arguments or {}).get(key)
        if isinstance(value, str) and value:
            path = Path(value)
            path = path if path.is_absolute() else work.root / path
            return path if work.image_size(path) else None
    return None


def received_images(
    transcript: Transcript, item_dir: Path, inline_seen: list[str], inline_sources: list[Path]
) -> list[ReceivedImage]:
    """Inline attachments (paired with the files given to the CLI, in order), then every image in a
    tool result: a file viewer's source is the file it opened, an MCP view's the k-th saved view."""
    images = []
    for index, seen in enumerate(inline_seen):
        source = inline_sources[index] if index < len(inline_sources) else None
        images.append(
            ReceivedImage(
                "inline",
                seen,
                image_size(item_dir / seen),
                _relative(source, item_dir) if source else None,
                image_size(source) if source else None,
            )
        )
    calls = {step.call_id: step for step in transcript.steps if step.kind == "tool_call"}
    work = Workspace(item_dir / "work")
    saved_views = [work.root / rel for rel in work.view_files()]
    tool_images = 0
    for step in transcript.steps:
        if step.kind != "tool_result" or not step.images:
            continue
        call = calls.get(step.call_id)
        viewed = (call.input or {}) if call is not None and call.tool in FILE_VIEWERS else None
        for seen in step.images:
            if viewed is not None:
                source = _viewed_file(viewed, work)
                via = "file_view"
            else:
                source = saved_views[tool_images] if tool_images < len(saved_views) else None
                tool_images += 1
                via = "tool"
            images.append(
                ReceivedImage(
                    via,
                    seen,
                    image_size(item_dir / seen),
                    _relative(source, item_dir) if source else None,
                    work.image_size(source) if source else None,
                )
            )
    return images


def describe(image: ReceivedImage | dict) -> str:
    """`model received 2000×1467 of 3000×2200 (reduced by the CLI)`, for show and the report."""
    if isinstance(image, dict):
        image = ReceivedImage(**image)
    if not image.size:
        return "model received an image of unknown size"
    got = f"{image.size[0]}×{image.size[1]}"
    if image.source_size and image.reduced:
        return f"model received {got} of {image.source_size[0]}×{image.source_size[1]} (reduced by the CLI)"
    return f"model received {got}" + (" (whole)" if image.source_size else "")
