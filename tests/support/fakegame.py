"""A stand-in for game_process.GameProcess in unit tests of the pure parts (the e2e tests use the real one):
a 64x64 board, ACTION1 moves a dot right, reaching x=3 completes a level (2 levels), ACTION2 loses,
ACTION5 plays a 3-frame animation, ACTION6 paints the clicked pixel."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class StepResult:
    state: str
    levels_completed: int
    win_levels: int
    available_actions: tuple[str, ...]
    frames: list


class GameError(Exception):
    pass


class FakeGame:
    def __init__(self, *args, fail_on: str | None = None, drift: int = 0, **kwargs):
        self.levels, self.x, self.state, self.fail_on = 0, 0, "NOT_FINISHED", fail_on
        self.drift = drift  # > 0: a game that is not deterministic (each instance paints this pixel differently)
        self.board = np.zeros((64, 64), dtype=np.uint8)
        self.steps: list = []
        self.initial = StepResult("NOT_FINISHED", 0, 2, ("ACTION1", "ACTION2", "ACTION5", "ACTION6"), [self._frame()])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _frame(self):
        frame = self.board.copy()
        frame[0, self.x] = 9
        frame[63, 63] = self.drift % 16
        return frame

    def step(self, action, x=None, y=None):
        self.steps.append((action, x, y))
        if action == self.fail_on:
            raise GameError(f"fake: step {action} failed")
        frames = None
        if action == "RESET":
            self.x, self.state = 0, "NOT_FINISHED"
        elif action == "ACTION1":
            self.x += 1
            if self.x == 3:
                self.levels, self.x = self.levels + 1, 0
                if self.levels == 2:
                    self.state = "WIN"
        elif action == "ACTION2":
            self.state = "GAME_OVER"
        elif action == "ACTION5":
            frames = [self._frame() + i for i in range(3)]
        elif action == "ACTION6":
            self.board[y, x] = 8
        return StepResult(
            self.state, self.levels, 2, ("ACTION1", "ACTION2", "ACTION5", "ACTION6"), frames or [self._frame()]
        )

    def replay(self, actions):
        """GameProcess.replay's answer: every action played again, frames as hashes."""
        from agent_eval.benchmarks.arcgames.frames import frame_hash
        from agent_eval.benchmarks.arcgames.game_process import StepResult

        out = []
        for action, x, y in actions:
            r = self.step(action, x, y)
            hashes = tuple(map(frame_hash, r.frames))
            out.append(StepResult(r.state, r.levels_completed, r.win_levels, r.available_actions, hashes=hashes))
        return out

    def scorecard(self):
        return {
            "score": 50.0 * self.levels,
            "levels_completed": self.levels,
            "actions": len(self.steps),
            "resets": sum(a == "RESET" for a, _, _ in self.steps),
            "completed": self.state == "WIN",
            "level_scores": [100.0] * self.levels,
            "level_actions": [3] * self.levels,
            "level_baseline_actions": [3, 3],
        }

    def close(self):
        pass
