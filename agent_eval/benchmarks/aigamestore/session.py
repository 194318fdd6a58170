"""One item's AI GameStore game: the page (browser/PageHost, outside the sandbox), the decisions, the frame archive
and the timeline (record.py), the score kept from the model. The game's clock runs only while a move is played
(with `realtime`, a decision first lets the wall time since the last one pass). A session over a folder that holds
moves (the harness was killed) replays them, checking every frame's hash (NotReplayable when one differs)."""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from agent_eval.benchmarks.aigamestore.loader import GameItem
from agent_eval.benchmarks.aigamestore.protocol import Segment, segment_steps
from agent_eval.benchmarks.aigamestore.record import GAME_RECORD, GameEnd, Move, best_score, read_moves, read_requests
from agent_eval.benchmarks.games.folder import (
    RESULT,
    TIMELINE,
    Timeline,
    append_replayed,
    read_json,
    read_restores,
    write_json,
)
from agent_eval.benchmarks.games.frames import FRAMES_DIR, FrameArchive
from agent_eval.browser import steps as S
from agent_eval.datamodel.itemdir import now_iso

CANVAS = S.DEFAULT_CANVAS
START_MS = 500  # the start screen shown before Enter
SETTLE_MS = 1000  # after Enter: the game's first second, before the first frame (VISTA waits as long)
RESTART_KEY_MS = 400  # after R, before Enter (VISTA's)
MAX_ERRORS = 20  # at most this many of a page's errors kept per move, and while it loads
ENDED = ("GAME_OVER", "GAME_OVER_LOSE", "GAME_OVER_WIN", "ENDED", "GAME_WON", "WIN")
WON = ("GAME_OVER_WIN", "GAME_WON", "WIN")
# The game's state, read in the page: getGameState() (every public game has it), else the other places the
# official harness looks; only numbers and the phase come back (a game's whole state may hold cycles).
STATE_JS = """(() => {
  const number = (v) => (typeof v === "number" && isFinite(v) ? v : null);
  let s = null;
  try {
    if (typeof window.getGameState === "function") s = window.getGameState();
    else if (window.gameInstance && window.gameInstance.gameState) s = window.gameInstance.gameState;
    else if (window.gameState) s = window.gameState;
  } catch (e) { s = null; }
  if (!s || typeof s !== "object") return {score: null, highScore: null, gamePhase: null, level: null};
  return {score: number(s.score), highScore: number(s.highScore),
          gamePhase: typeof s.gamePhase === "string" ? s.gamePhase : null,
          level: number(s.currentLevel !== undefined ? s.currentLevel : s.level)};
})()"""


STATE = {"op": "eval", "name": "state"}  # the state read, as recorded (sent as STATE_JS: see _sent)


def _sent(steps: list[dict]) -> list[dict]:
    """The steps as the page gets them: the named read expanded to its JavaScript (kept short in the record)."""
    return [{"op": "eval", "js": STATE_JS} if step == STATE else step for step in steps]


class NotReplayable(Exception):
    """A recorded game that does not come back as it was (another game file, a frame that differs): says where."""


class PlayRefused(ValueError):
    """Nothing was played (the budget is spent, the game failed): said to the model."""


@dataclass(frozen=True)
class Budget:
    decisions: int
    seed: int = 0
    realtime: bool = False
    protocol: str = "vista"
    time_budget_s: float | None = None


def tap(key: str, then_ms: float, canvas: str | None = None) -> list[dict]:
    """A host key (Enter, R): held one frame, then `then_ms` of game time in all."""
    return S.keys_for(then_ms, taps=(key,), canvas=canvas)


class GameStoreSession:
    """`page` is an open PageHost (closed by the caller); an earlier process's moves are replayed first."""

    def __init__(self, item: GameItem, page, directory: Path, budget: Budget):
        self.item, self.page, self.budget = item, page, budget
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.archive = FrameArchive(self.directory / FRAMES_DIR)
        self.moves: list[Move] = []
        self.error: str | None = None
        self.restored: dict | None = None
        self._lock = threading.Lock()
        self._last_batch_end = time.monotonic()
        earlier = read_moves(self.directory)
        opened = self.page.open(item.page)
        self.load_errors: list[str] = list(opened.get("errors") or [])[:MAX_ERRORS]  # thrown while the page loaded
        if earlier:
            self._replay(earlier)
        else:
            self._write_record()
        self._timeline = Timeline(self.directory / TIMELINE)
        self.deadline = time.monotonic() + budget.time_budget_s if budget.time_budget_s else None
        if not self.moves:
            self._start()

    # -- what the game is at

    @property
    def decisions(self) -> int:
        return self.moves[-1].decisions if self.moves else 0

    @property
    def state(self) -> dict:
        return self.moves[-1].state if self.moves else {}

    @property
    def episode(self) -> int:
        return self.moves[-1].episode if self.moves else 1

    @property
    def ended(self) -> bool:
        return self.state.get("gamePhase") in ENDED

    @property
    def over(self) -> str | None:
        if self.error:
            return "the game failed"
        if self.decisions >= self.budget.decisions:
            return f"the run's {self.budget.decisions} game seconds (decisions) are spent"
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return "the time budget is spent"
        return None

    def raw_score(self) -> float | None:
        return best_score(self.moves)

    def frame_paths(self, numbers: list[int]) -> list[Path]:
        return [self.archive.path(n) for n in numbers]

    # -- moves

    def play(
        self, segments: tuple[Segment, ...], via: str = "tool", problem: str | None = None, scratchpad=None
    ) -> Move:
        """One decision: five 0.2 s segments, a frame after each (the official protocol restarts an ended game)."""
        with self._lock:
            self._refuse_if_over()
            restart = via == "reply" and self.ended
            batches = [self._restart_steps()] if restart else []
            # real-time mode: the wall time since the last move ended, which the game runs before this decision
            gap = float(round((time.monotonic() - self._last_batch_end) * 1000)) if self.budget.realtime else 0.0
            steps = [S.advance(gap)] if gap else []
            for segment in segments:
                steps += segment_steps(segment, CANVAS)
            batches.append([*steps, STATE])
            played = {"segments": [list(s) for s in segments], "via": via, "restarted_first": restart}
            played |= {"problem": problem, "scratchpad": scratchpad, "gap_ms": gap}
            return self._log(self._move("play", batches, self.decisions + 1, self.episode + restart, **played))

    def restart(self) -> Move:
        """VISTA's restart: R (when the game is past its start screen), Enter, its first second; costs a decision."""
        with self._lock:
            self._refuse_if_over()
            return self._entered("restart", self._restart_steps(capture=True), self.decisions + 1, self.episode + 1)

    def _start(self) -> None:
        self._entered("start", [S.advance(START_MS), *tap("Enter", SETTLE_MS, CANVAS), STATE], 0, 1)

    def _entered(self, kind: str, steps: list[dict], decisions: int, episode: int) -> Move:
        """A move that ends with Enter; when Enter did not take (still at START), once more, as VISTA does: one
        timeline line, both batches."""
        move = self._move(kind, [steps], decisions, episode)
        if move.state.get("gamePhase") == "START":
            then = self._move(kind, [[*tap("Enter", SETTLE_MS, CANVAS), STATE]], decisions, episode)
            move.batches += then.batches
            move.frames, move.hashes = move.frames + then.frames, move.hashes + then.hashes
            move.state, move.clock_ms = then.state, then.clock_ms
            move.browser_ms += then.browser_ms
            move.page_errors += then.page_errors
        return self._log(move)

    def _restart_steps(self, capture: bool = False) -> list[dict]:
        steps = [] if self.state.get("gamePhase") in (None, "START") else tap("r", RESTART_KEY_MS)
        return [*steps, *tap("Enter", SETTLE_MS, CANVAS if capture else None), STATE]

    def _refuse_if_over(self) -> None:
        if why := self.over:
            raise PlayRefused(f"No move made: {why}.")

    def _move(self, kind: str, batches: list[list[dict]], decisions: int, episode: int, **played) -> Move:
        started = time.perf_counter()
        frames: list[int] = []
        hashes: list[str] = []
        errors: list[str] = []
        state: dict = {}
        clock, browser_s = 0.0, 0.0
        try:
            for steps in batches:
                batch = self.page.run(_sent(steps))
                browser_s += batch.seconds
                errors += batch.errors
                for capture in batch.captures:
                    frames.append(self.archive.add(capture.png))
                    hashes.append(capture.hash)
                state, clock = batch.results[-1] or {}, batch.clock_ms
        except Exception as error:  # the browser's failure: the item's error, said in one line
            self.error = f"{self.item.id}: {str(error).splitlines()[0] if str(error) else type(error).__name__}"
            raise PlayRefused(f"No move made: the game failed ({self.error}).") from None
        self._last_batch_end = time.monotonic()
        made = (len(self.moves) + 1, kind, decisions, episode, batches, frames, hashes, state, clock)
        move = Move(*made, browser_ms=round(browser_s * 1000, 3), page_errors=errors[:MAX_ERRORS], **played)
        move.harness_ms = round((time.perf_counter() - started) * 1000 - move.browser_ms, 3)
        return move

    def _log(self, move: Move) -> Move:
        """Durable before the model hears of it (games/folder.py's Timeline)."""
        self.moves.append(move)
        self._timeline.append(asdict(move))
        return move

    # -- surviving the harness

    def _write_record(self) -> None:
        record = {
            "game": self.item.id,
            "page": self.item.page,
            "files_sha256": self.item.files_sha256,
            "seed": self.budget.seed,
            "protocol": self.budget.protocol,
            "realtime": self.budget.realtime,
            "human_median": self.item.human_median,
            "chromium": getattr(self.page, "chromium_version", None),
            "load_errors": self.load_errors,
            "started_at": now_iso(),
        }
        write_json(self.directory / GAME_RECORD, record)

    def _replay(self, moves: list[Move]) -> None:
        started = time.perf_counter()
        record = read_json(self.directory / GAME_RECORD) or {}  # which game the moves were played on
        if record.get("files_sha256") not in (None, self.item.files_sha256):
            raise NotReplayable(f"the game's files changed since it was started (sha256 {record['files_sha256']})")
        if record.get("seed", self.budget.seed) != self.budget.seed:
            raise NotReplayable(f"the game was started with seed {record['seed']}, this run's is {self.budget.seed}")
        for move in moves:
            try:
                again = [h for batch in self.page.replay([_sent(b) for b in move.batches]) for h in batch]
            except Exception as error:
                raise NotReplayable(f"the replay failed: {str(error).splitlines()[0]}") from None
            if again != move.hashes:
                raise NotReplayable(
                    f"the game does not replay identically: move {move.n} ({move.kind}, decision {move.decisions}) "
                    f"gave {len(again)} frame(s) that differ from the {len(move.hashes)} recorded"
                )
        self.moves = list(moves)
        self.archive.resume(max((n for m in moves for n in m.frames), default=0))
        self.restored = append_replayed(self.directory, started, moves=len(moves))

    # -- the end

    def finish(self) -> GameEnd:
        with self._lock:
            first = self.moves[0].frames if self.moves else []
            size = list(self.archive.image(first[-1]).size) if first else None
            end = GameEnd(
                game=self.item.id,
                raw_score=self.raw_score(),
                decisions=self.decisions,
                max_decisions=self.budget.decisions,
                episodes=self.episode,
                final_phase=self.state.get("gamePhase"),
                won=any(m.state.get("gamePhase") in WON for m in self.moves),
                frames=self.archive.count,
                canvas=size,
                error=self.error,
                page_errors=len(self.load_errors) + sum(len(m.page_errors) for m in self.moves),
                load_errors=self.load_errors,
                refused_requests=sum(r.get("outcome") == "refused" for r in read_requests(self.directory.parent)),
                restores=read_restores(self.directory),
                chromium=getattr(self.page, "chromium_version", None),
                protocol=self.budget.protocol,
            )
            self._timeline.close()
            write_json(self.directory / RESULT, asdict(end))
            return end
