"""How AI GameStore runs read: show, report and compare reach this kind only through these hooks."""

from __future__ import annotations

from agent_eval.benchmarks.presentation import ReadingHooks


class GameStoreReading(ReadingHooks):
    group_column = "game"
    accuracy_name = "games at or above the human median"
