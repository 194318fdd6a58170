"""What the game kinds share of a game that survives the harness (benchmarks/aigamestore, benchmarks/gameworld;
arcgames keeps its own copies for now): the log of restores in the game's folder, an abandoned game moved aside,
and how long play may take actions within the run's time limit."""

from __future__ import annotations

from pathlib import Path

from agent_eval.datamodel.jsonl import append_line, log_lines

RESTORES = "restores.jsonl"


def append_restore(directory: Path, entry: dict) -> None:
    """One restore of the game (replayed, or started over and why), in its folder's log."""
    append_line(Path(directory) / RESTORES, entry)


def read_restores(directory: Path) -> list[dict]:
    return log_lines(Path(directory) / RESTORES)


def move_aside(directory: Path) -> Path:
    """An abandoned game's folder, kept beside the new one (game.abandoned-1, -2, ...)."""
    number = 1
    while (target := directory.with_name(f"{directory.name}.abandoned-{number}")).exists():
        number += 1
    directory.rename(target)
    return target


def time_budget(timeout_s: float | None) -> float | None:
    """How long moves are taken: the run's --timeout less a tenth of it (5 s to 2 min), the time the agent needs to
    reply once told to stop, so a game near the limit is graded, not killed."""
    if not timeout_s:
        return None
    margin = min(120.0, max(5.0, timeout_s / 10))
    return max(timeout_s - margin, timeout_s / 2)
