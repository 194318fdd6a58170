"""The passive baseline (tool mode `none`): a fixed sample of whole panorama frames, attached inline to the first
message. Same frames for every model and run: the centres of `count` equal slices of the video."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from agent_eval.benchmarks.activeobs.render import render_panorama
from agent_eval.benchmarks.activeobs.scene import Scene

DEFAULT_COUNT = 8


@dataclass(frozen=True)
class PassiveFrame:
    frame: int
    time_s: float
    path: Path
    caption: str


def sample_frames(n_frames: int, count: int = DEFAULT_COUNT) -> list[int]:
    """`count` frames at the centres of equal slices (fewer when the video is shorter)."""
    count = max(1, min(count, n_frames))
    return sorted({int((index + 0.5) * n_frames / count) for index in range(count)})


def write_passive_sample(
    scene: Scene, out_dir: Path, count: int = DEFAULT_COUNT, width: int | None = None
) -> list[PassiveFrame]:
    """Render the sampled frames as PNGs into out_dir (keep it out of the agent's reach in mode none: the private home
    is fine). width=None keeps the panorama's full resolution; a smaller width scales the strip down (the caption then
    states the scale)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    frames = []
    for number, frame in enumerate(sample_frames(scene.n_frames, count), start=1):
        image = render_panorama(scene, frame)
        if width and width != scene.width:
            image = image.resize((width, round(scene.height * width / scene.width)), Image.Resampling.LANCZOS)
        path = out_dir / f"panorama-{number:02d}-f{frame:04d}.png"
        image.save(path, format="PNG", compress_level=6)
        shown = image.width
        caption = (
            f"Image {number}: frame {frame} (t = {scene.time_of(frame):.2f} s), the whole 360° panorama "
            f"({shown}x{image.height} px); x = 0 is 0°, x = {shown} is 360°"
            + (f" (scaled from {scene.width} px wide)" if shown != scene.width else "")
            + "."
        )
        frames.append(PassiveFrame(frame, round(scene.time_of(frame), 3), path, caption))
    return frames


def passive_preamble(frames: list[PassiveFrame], scene: Scene) -> str:
    """Text for the prompt: which image is which frame."""
    lines = [
        f"You are given {len(frames)} frames of a {scene.n_frames / scene.fps:.1f}-second 360° panoramic video "
        f"({scene.n_frames} frames at {scene.fps:g} fps), in this order:"
    ]
    lines += [f"- {frame.caption}" for frame in frames]
    return "\n".join(lines)
