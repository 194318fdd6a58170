"""Image formats both model APIs (Anthropic Messages, OpenAI Responses) accept, and the lossless
conversion of the others. Measured here: a BMP inline reaches Codex as no image at all and a TIFF
reaches neither CLI, while JPEG (CMYK too), WebP, GIF, RGBA and 16-bit PNG arrive."""

from __future__ import annotations

from pathlib import Path

API_FORMATS = {"PNG", "JPEG", "GIF", "WEBP"}
# Pixel modes a PNG holds as they are; others are widened first (CMYK: to RGB, the one lossy case, said so).
PNG_MODES = {"1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16"}


def image_format(path: Path) -> str | None:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as img:
            return img.format
    except (OSError, UnidentifiedImageError, ValueError):
        return None


def convert_to_png(source: Path, target: Path, kind: str | None) -> str:
    """Write `source` as a PNG at `target`; returns the note for the record."""
    from PIL import Image

    with Image.open(source) as img:
        img.load()
        mode = img.mode
        png: Image.Image = img
        if mode not in PNG_MODES:
            png = img.convert("RGBA" if "A" in mode else ("I" if mode.startswith("I") or mode == "F" else "RGB"))
        png.save(target, format="PNG")
    how = "lossless" if mode in PNG_MODES else f"pixel mode {mode} -> {png.mode}"
    return f"{source.name}: {kind or 'unknown format'} is not accepted by the model APIs; sent as PNG ({how})"
