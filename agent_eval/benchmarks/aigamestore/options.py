"""An AI GameStore run's own options (its registry line's: in the run's identity), checked: the browser kinds'
shared ones (games/browser/kind.py: protocol, real time, notes, hand-off, --profile vista's switches), then the
decisions and the page's seed."""

from __future__ import annotations

from dataclasses import dataclass

from agent_eval.benchmarks.games.browser.kind import BrowserOptions

DEFAULT_DECISIONS = 120


@dataclass(frozen=True)
class Options(BrowserOptions):
    decisions: int = DEFAULT_DECISIONS
    seed: int = 0

    @classmethod
    def from_given(cls, given: dict) -> Options:
        shared = cls.shared(given)
        decisions = int(given["decisions"]) if given.get("decisions") is not None else DEFAULT_DECISIONS
        if decisions < 1:
            raise ValueError(f"--decisions must be at least 1, got {decisions}")
        return cls(decisions=decisions, seed=int(given.get("game_seed") or 0), **shared)
