"""One ARC-AGI-3 game in a toolkit process of its own (toolkit_process.py), running game_host.py. Offline the jail
holds the game's version folder read-only (the toolkit exec()s its file); online the game runs at the ARC API on the
run's scorecard and is never replayed (every replayed action would count again)."""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agent_eval.benchmarks.arcgames.frames import GRID_SIDE
from agent_eval.benchmarks.arcgames.toolkit_process import GameError, Online, ToolkitProcess

HOST_SCRIPT = Path(__file__).with_name("game_host.py")
ACTIONS = ("RESET", "ACTION1", "ACTION2", "ACTION3", "ACTION4", "ACTION5", "ACTION6", "ACTION7")
CLICK = "ACTION6"  # the one action with coordinates
REPLAY_S_PER_ACTION = 0.25  # a replay's time bound per action, beyond one step's (a step takes 0.07-8 ms)
ONLINE_STEP_TIMEOUT_S = 30.0  # an online step is an HTTPS round trip (the toolkit's own bound is 10 s a request)
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")  # a game id or version: one plain path component


@dataclass(frozen=True)
class StepResult:
    """Where an action left the game and its frames: 64x64 uint8 colour indices 0-15, in order (an animation gives
    several; none for an action after WIN or GAME_OVER, which the toolkit ignores and does not count). A replayed
    step carries its frames' hashes instead (frames.frame_hash)."""

    state: str  # "NOT_FINISHED" | "WIN" | "GAME_OVER" (the toolkit's names)
    levels_completed: int
    win_levels: int
    available_actions: tuple[str, ...]  # e.g. ("ACTION1", "ACTION2", "ACTION6")
    frames: list[np.ndarray] = field(default_factory=list)
    hashes: tuple[str, ...] = ()

    @classmethod
    def read(cls, ans: dict, **more) -> StepResult:
        actions = tuple(ans["available_actions"])
        return cls(ans["state"], int(ans["levels_completed"]), int(ans["win_levels"]), actions, **more)


class GameProcess(ToolkitProcess):
    """One play-through. A context manager. With `online`, made at the ARC API on its scorecard `card_id` (the play's
    id is then `guid`)."""

    def __init__(
        self,
        environments_dir: Path,
        game_id: str,
        version: str,
        *,
        step_timeout_s: float = 10.0,
        scratch: Path,
        start_timeout_s: float = 60.0,
        online: Online | None = None,
    ):
        name = f"{game_id}-{version}"
        self.step_timeout_s = max(step_timeout_s, ONLINE_STEP_TIMEOUT_S) if online else step_timeout_s
        self.last_step_s = self.host_cpu_s = 0.0
        self.online = online
        self.initial: StepResult | None = None  # what the game shows before any action (set once it is ready)
        if not (_NAME.fullmatch(game_id) and _NAME.fullmatch(version)):
            raise GameError(f"{name}: a game id and a version are plain names (letters, digits, . _ -)")
        environments_dir = Path(environments_dir).resolve()
        game_dir = environments_dir / game_id / version
        if online is None and not (game_dir / "metadata.json").is_file():
            have = ", ".join(
                sorted(f"{p.parent.parent.name}-{p.parent.name}" for p in environments_dir.glob("*/*/metadata.json"))
            )
            raise GameError(
                f"{name}: no such game or version in {environments_dir} "
                f"(no {game_id}/{version}/metadata.json; games there: {have or 'none'})"
            )
        args = ["--environments-dir", str(environments_dir), "--game", name]
        if online is not None:
            args += ["--card-id", online.card_id]
        super().__init__(
            name,
            HOST_SCRIPT,
            args,
            scratch,
            readonly=() if online else (game_dir,),
            online=online,
            start_timeout_s=start_timeout_s,
        )
        try:
            if self.ready.get("ready") != name or not isinstance(self.ready.get("initial"), dict):
                raise self._fail(f"unexpected first answer from the game host: {str(self.ready)[:200]}")
            self.initial = self._result(self.ready["initial"], "the first observation")
        except BaseException:
            self.close()
            raise
        self.guid: str | None = self.ready.get("guid")  # the play's id at the ARC API (online)

    # -- the interface

    def step(self, action: str, x: int | None = None, y: int | None = None) -> StepResult:
        """One action ("RESET", "ACTION1".."ACTION7"; x, y in 0-63 only for ACTION6) and what it returned."""
        if action not in ACTIONS:
            raise ValueError(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
        req: dict = {"op": "step", "action": action}
        if action == CLICK:
            if x is None or y is None or not (0 <= x < GRID_SIDE and 0 <= y < GRID_SIDE):
                raise ValueError(f"ACTION6 needs x and y in 0-63, not x={x!r}, y={y!r}")
            req.update(x=int(x), y=int(y))
        elif x is not None or y is not None:
            raise ValueError(f"only ACTION6 takes x and y ({action} was given x={x!r}, y={y!r})")
        ans = self._request(req, self.step_timeout_s, f"step {action}")
        self.last_step_s = float(ans.get("step_s", 0.0))  # the toolkit's own time in env.step (perf/)
        return self._result(ans, f"step {action}")

    def _result(self, ans: dict, what: str) -> StepResult:
        self.host_cpu_s = float(ans.get("cpu_s", 0.0))  # the host's CPU time so far (perf/)
        # (the host checked each frame is 64x64)
        data = np.frombuffer(base64.b64decode(ans["frames"]), dtype=np.uint8)
        if data.size and data.max() > 15:
            raise self._fail(f"{what} returned a colour index outside 0-15 ({int(data.max())})")
        return StepResult.read(ans, frames=list(data.reshape(-1, GRID_SIDE, GRID_SIDE).copy()))

    def replay(self, actions: list[tuple[str, int | None, int | None]]) -> list[StepResult]:
        """Recorded actions played again in one request (the toolkit has no save), its time bound growing with them."""
        if self.online is not None:
            raise GameError(f"{self.name}: an online game is never replayed (its actions would count again)")
        if not actions:
            return []
        timeout = self.step_timeout_s + REPLAY_S_PER_ACTION * len(actions)
        ans = self._request({"op": "replay", "actions": [list(a) for a in actions]}, timeout, "the replay")
        self.host_cpu_s = float(ans.get("cpu_s", 0.0))
        return [StepResult.read(step, hashes=tuple(step["hashes"])) for step in ans["steps"]]

    def scorecard(self) -> dict:
        """The toolkit's offline scorecard for this play-through (game_host.scorecard)."""
        return self._request({"op": "scorecard"}, self.step_timeout_s, "scorecard")["scorecard"]

    def online_result(self) -> dict:
        """Online: this play's entry on the run's scorecard as the ARC API computes it (online_host.game_result)."""
        return self._request({"op": "online_result"}, self.step_timeout_s, "the online result")["online"]
