"""Stable colour -> symbol assignment for read_pixels, one palette per item session."""

from __future__ import annotations

import string

from agent_eval.tools.imagetools.errors import ToolInputError

# Letters first (easy to tell apart in a grid), then digits, then punctuation that needs no
# escaping in JSON and is not whitespace. 82 symbols.
ALPHABET = string.ascii_uppercase + string.ascii_lowercase + string.digits + "!#$%&*+-./:;<=>?@^_~"


def hex_colour(pixel) -> str:
    """'#RRGGBB', or '#RRGGBBAA' when the pixel is not fully opaque."""
    r, g, b = (int(v) for v in pixel[:3])
    if len(pixel) > 3 and int(pixel[3]) != 255:
        return f"#{r:02X}{g:02X}{b:02X}{int(pixel[3]):02X}"
    return f"#{r:02X}{g:02X}{b:02X}"


class Palette:
    """Symbols are handed out in the order colours are first seen and never change."""

    def __init__(self, symbols: dict[str, str] | None = None):
        self.symbols: dict[str, str] = dict(symbols or {})  # symbol -> colour
        self._by_colour = {colour: sym for sym, colour in self.symbols.items()}

    def assign(self, colours: list[str]) -> dict[str, str]:
        """Symbols for `colours`; all-or-nothing, so a refused call leaves the palette unchanged."""
        new = list(dict.fromkeys(c for c in colours if c not in self._by_colour))
        if len(self.symbols) + len(new) > len(ALPHABET):
            seen = len(set(colours))
            raise ToolInputError(
                f"too many distinct colours: these samples hold {seen} colours, {len(new)} of them new, "
                f"and this session's palette already uses {len(self.symbols)} of its {len(ALPHABET)} symbols. "
                "Sample a smaller region or fewer rows/columns, or use inspect to look at the image instead "
                "(read_pixels suits flat-colour images such as diagrams and grids, not photographs)."
            )
        for colour in new:
            sym = ALPHABET[len(self.symbols)]
            self.symbols[sym] = colour
            self._by_colour[colour] = sym
        return {c: self._by_colour[c] for c in colours}

    def to_json(self) -> dict:
        return {"alphabet": ALPHABET, "symbols": self.symbols}

    @classmethod
    def from_json(cls, data: dict) -> "Palette":
        return cls(data.get("symbols", {}))
