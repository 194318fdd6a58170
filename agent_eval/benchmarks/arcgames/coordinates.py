"""The coordinate system of ACTION6 and of every region a game tool takes (`--coordinates`):

    grid      game pixels, 0-63 (ours, and the toolkit's own ACTION6 data)
    display   pixels of the image as shown, 0 to 64 x scale - 1 (VISTA's): a click maps to the game pixel under it
              as VISTA maps it (arc3/claude/controller.py, validate_tool_action: min(63, x * 64 // size))

A region is (x, y, width, height) in the run's system; the tools turn it into the game pixels it touches."""

from __future__ import annotations

from dataclasses import dataclass

from agent_eval.benchmarks.arcgames.frames import GRID_SIDE


@dataclass(frozen=True)
class Coordinates:
    system: str = "grid"
    scale: int = 4  # the frame's scale: a game pixel is scale x scale pixels of the image as shown

    @property
    def display(self) -> bool:
        return self.system == "display"

    @property
    def size(self) -> int:
        return self.display_side if self.display else GRID_SIDE

    @property
    def display_side(self) -> int:
        return GRID_SIDE * self.scale

    def words(self) -> str:
        if self.display:
            side = self.display_side
            return f"pixels of the image as shown (0-{side - 1}, the {side}x{side} image)"
        return f"game pixels (0-{GRID_SIDE - 1}, the {GRID_SIDE}x{GRID_SIDE} game grid)"

    def to_grid(self, x: int, y: int) -> tuple[int, int]:
        """A point (checked to be in 0..size-1) as the game pixel it falls on."""
        if not self.display:
            return x, y
        side = self.display_side
        return min(GRID_SIDE - 1, x * GRID_SIDE // side), min(GRID_SIDE - 1, y * GRID_SIDE // side)

    def region_in_grid(self, x: int, y: int, width: int, height: int) -> tuple[int, int, int, int]:
        """A region (in this system) as the game pixels it touches."""
        if not self.display:
            return x, y, width, height
        left, top = self.to_grid(x, y)
        right, bottom = self.to_grid(x + width - 1, y + height - 1)
        return left, top, right - left + 1, bottom - top + 1
