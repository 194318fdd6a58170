"""A trivial MCP stdio server for probing and end-to-end tests of the agent CLIs.

Tools: ``echo(text)`` returns the text; ``swatch(color)`` returns an 8x8 PNG of one
colour ("red", "green", "blue" or "#rrggbb") so tests can see an image travel from an
MCP tool result back to the model. Run: ``python -m agent_eval.scripted.mcp_stub``.
Only stdlib + the ``mcp`` SDK (2.x: FastMCP was renamed MCPServer).
"""

from __future__ import annotations

import struct
import zlib

from mcp.server.mcpserver import Image, MCPServer

NAMED = {"red": (255, 0, 0), "green": (0, 160, 0), "blue": (0, 0, 255)}


def tiny_png(rgb: tuple[int, int, int], size: int = 8) -> bytes:
    """Encode a solid-colour RGB PNG with the stdlib (no Pillow needed)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" + bytes(rgb) * size
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row * size)) + chunk(b"IEND", b"")
    )


def parse_color(color: str) -> tuple[int, int, int]:
    color = color.strip().lower()
    if color in NAMED:
        return NAMED[color]
    if color.startswith("#") and len(color) == 7:
        return tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]
    raise ValueError(f"unknown colour {color!r}")


server = MCPServer("stub")


@server.tool()
def echo(text: str) -> str:
    """Return the given text unchanged."""
    return text


@server.tool()
def swatch(color: str) -> Image:
    """Return a small PNG filled with one colour (red, green, blue or #rrggbb)."""
    return Image(data=tiny_png(parse_color(color)), format="png")


def main() -> None:
    server.run("stdio")


if __name__ == "__main__":
    main()
