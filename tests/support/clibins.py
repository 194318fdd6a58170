"""The pinned agent CLIs in node_modules/.bin, for tests that start them directly."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "node_modules" / ".bin"


def need(binary: str) -> Path:
    path = BIN / binary
    if not path.exists():
        pytest.skip(f"{path} not installed (make setup)")
    return path
