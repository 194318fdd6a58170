"""One GameWorld task as its tools see it (docs/kinds/gameworld.md): the page on the harness's clock, the step budget,
GameWorld's evaluator after each step of the first role (as GameWorld evaluates its first agent), the reset after a
failed terminal, the screen archive and the timeline (records.py). The MCP tools call it from worker threads: one
lock. An invalid action sends nothing but counts, as in GameWorld; real-time play runs the game for the wall time
the model took, recorded, so a replay runs it for the same.

A task survives the harness: over a folder whose timeline holds steps, the page is opened again (same seed, same
start) and every step replayed, each screen checked against its recorded hash; one that differs raises
NotReplayable and the caller starts the task over."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, replace
from pathlib import Path

from agent_eval.benchmarks.games.folder import RESULT, TIMELINE, Timeline, append_replayed, read_restores, write_json
from agent_eval.benchmarks.games.frames import FRAMES_DIR, FrameArchive
from agent_eval.benchmarks.gameworld import gameapi
from agent_eval.benchmarks.gameworld.actions import InvalidAction, check_action, compile_action, semantic_action
from agent_eval.benchmarks.gameworld.evaluator import TaskEvaluator
from agent_eval.benchmarks.gameworld.gameapi import GameApiError
from agent_eval.benchmarks.gameworld.loader import TaskItem
from agent_eval.benchmarks.gameworld.records import TASK_RECORD, Step, TaskEnd, read_record, read_steps
from agent_eval.benchmarks.gameworld.vista_act import refuse_opposing
from agent_eval.datamodel.itemdir import now_iso
from agent_eval.datamodel.ondisk import dump

SEED = 42  # GameWorld's BrowserConfig default seed
LOOP_GAP_MS = 50.0  # GameWorld's coordinator: `await asyncio.sleep(0.05)` between steps, the game running
MAX_REALTIME_GAP_MS = 60_000.0  # real-time play: the game runs at most this long between two steps
STOP = "Stop now: reply with <answer>DONE</answer>."
MAX_LOAD_ERRORS = 20  # the page's errors while it loaded, kept in result.json (all of them counted)
EVALUATION_KEYS = ("status", "stop_reason", "should_stop", "should_reset", "summary")


class StepRefused(ValueError):
    """A call the model can fix at no cost (a role that does not exist): no step was taken."""


class NotReplayable(Exception):
    """A recorded task that cannot be restored as it was (another game folder, or a screen that differs)."""


class HostPage:
    """The browser host's page as the session drives it (gameapi.GamePage): a batch of steps, its results; the game
    time run on it; and the page's uncaught errors since it was opened (those thrown while it loaded first: `opened`,
    what open gave)."""

    def __init__(self, host, opened: dict | None = None):
        self.host = host
        self.ms = 0.0
        self.load_errors: list[str] = list((opened or {}).get("errors") or [])
        self.errors: list[str] = list(self.load_errors)

    def run(self, steps: list[dict]) -> list:
        batch = self.host.run(steps)
        self.errors += batch.errors
        self.ms += sum(float(step["ms"]) for step in steps if step["op"] == "advance")
        return batch.results


class TaskSession:
    def __init__(
        self,
        item: TaskItem,
        page: HostPage,
        directory: Path,
        max_steps: int,
        realtime: bool = False,
        time_budget_s: float | None = None,
        url: str = "",
    ):
        self.item = item
        self.roles = item.game.roles
        self.page = page
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.archive = FrameArchive(self.directory / FRAMES_DIR)
        self.max_steps = max_steps
        self.realtime = realtime
        self.url = url
        self.evaluator = TaskEvaluator(replace(item.task_def.rules, max_steps=max_steps))
        self.steps: list[Step] = []
        self.role_steps = [0] * len(self.roles)
        self.resets = 0
        self.error: str | None = None
        self.reset_failed: str | None = None
        self.start_frame = 0
        self.restored: dict | None = None  # how the task was replayed (restores.jsonl's line)
        self._lock = threading.Lock()
        earlier = read_steps(self.directory)
        if earlier:
            self._restore(earlier)
        else:
            self._begin()
        self.deadline = time.monotonic() + time_budget_s if time_budget_s else None
        self._timeline = Timeline(self.directory / TIMELINE)
        self._last_screen_at = time.monotonic()

    # -- the start, and a start again after a restart of the harness

    def _open(self) -> str:
        """The page made ready as GameWorld makes it; the start screen archived; its hash."""
        try:
            gameapi.start(self.page)
        except GameApiError as error:
            raise GameApiError(f"{self.item.game.id}: {error}") from None
        shot = self.page.run([{"op": "screenshot"}])[0]
        if not self.archive.count:
            self.start_frame = self.archive.add(shot.png)
        return shot.hash

    def _begin(self) -> None:
        start_hash = self._open()
        record = {
            "task": self.item.id,
            "game": self.item.game.id,
            "game_files_sha256": self.item.files_sha256,
            "catalog_sha256": self.item.catalog_sha256,
            "url": self.url,
            "seed": SEED,
            "viewport": [self.item.game.width, self.item.game.height],
            "max_steps": self.max_steps,
            "start_frame": self.start_frame,
            "start_hash": start_hash,
            "states_kept": True,  # every step keeps the state its verdict rests on (recheck.py)
            "started_at": now_iso(),
        }
        write_json(self.directory / TASK_RECORD, record)

    def _restore(self, steps: list[Step]) -> None:
        """The task made again from its record: the page opened afresh and every step replayed, screen by screen."""
        started = time.perf_counter()
        record = read_record(self.directory) or {}
        for key, now in (("game_files_sha256", self.item.files_sha256), ("catalog_sha256", self.item.catalog_sha256)):
            if record.get(key) not in (None, now):
                raise NotReplayable(f"the task's files changed since it was started ({key} {record[key]} → {now})")
        self.archive.resume(int(record.get("start_frame") or 1))
        self.start_frame = int(record.get("start_frame") or 1)
        start_hash = self._open()
        if record.get("start_hash") not in (None, start_hash):
            raise NotReplayable(
                f"the start screen differs from the recorded one ({start_hash}, recorded {record['start_hash']})"
            )
        for step in steps:
            again, _ = self._run(step.role, step.action, step.realtime_ms)
            recorded = {k: (step.evaluation or {}).get(k) for k in ("status", "stop_reason")}
            replayed = {k: (again["evaluation"] or {}).get(k) for k in ("status", "stop_reason")}
            state, kept = (json.dumps(s, sort_keys=True) for s in (again["state"], step.state))  # NaN equals NaN
            checks = {
                "its screen differs": again["frame_hash"] != step.frame_hash,
                "its screen before the reset differs": again["reset_frame_hash"] != step.reset_frame_hash,
                f"the evaluator said {replayed}, recorded {recorded}": recorded != replayed,
                "the game's state differs": record.get("states_kept") and state != kept,
            }
            differs = [words for words, differ in checks.items() if differ]
            if differs:
                raise NotReplayable(f"the task does not replay identically: step {step.step}: {'; '.join(differs)}")
            self._count(step)
        self.archive.resume(max([self.start_frame] + [s.frame for s in steps] + [s.reset_frame or 0 for s in steps]))
        self.restored = append_replayed(self.directory, started, steps=len(steps))

    def _count(self, step: Step) -> None:
        self.steps.append(step)
        self.role_steps[step.role] = step.role_step
        if step.reset_frame is not None and not step.reset_failed:
            self.resets += 1
        self.reset_failed = step.reset_failed or self.reset_failed

    # -- one step

    def _run(self, role: int, action: dict | None, realtime_ms: float) -> tuple[dict, bytes]:
        """A step's effect on the game (the same live and on a replay), in one round trip to the page: the inputs,
        the state read, GameWorld's 50 ms between steps and the screen after; then the evaluator for the first role
        and the reset it asks for (the screen taken is then the failed episode's last, and the page is reset, made
        ready and given its 50 ms again before the screen the next decision sees). (The Step's fields it sets, the
        screen after as PNG.)"""
        began = time.perf_counter()
        steps = [{"op": "advance", "ms": realtime_ms}] if realtime_ms > 0 else []
        steps += gameapi.host_steps(compile_action(action)) if action is not None else []
        steps += [{"op": "eval", "js": gameapi.GET_STATE}, {"op": "advance", "ms": LOOP_GAP_MS}, {"op": "screenshot"}]
        results = self.page.run(steps)
        state, png, digest = gameapi.as_state(results[-3]), results[-1].png, results[-1].hash
        browser = time.perf_counter() - began
        out: dict = {"evaluation": None, "reset_frame": None, "reset_frame_hash": None, "reset_failed": None}
        out["state"] = state
        if role == 0:
            result = self.evaluator.after_step(state)
            metrics = result.metrics
            out["evaluation"] = {key: getattr(result, key) for key in EVALUATION_KEYS} | {"progress": result.progress}
            out["evaluation"] |= {"score": metrics.get("score_current"), "best": metrics.get("score_best")}
            if result.should_reset:
                out["reset_frame"], out["reset_frame_hash"] = self.archive.add(png), digest
                began = time.perf_counter()
                try:
                    gameapi.reset(self.page)
                    self.evaluator.reset_done()
                except GameApiError as error:  # GameWorld: "auto-reset failed; stopping run"
                    out["reset_failed"] = str(error)
                shot = self.page.run([{"op": "advance", "ms": LOOP_GAP_MS}, {"op": "screenshot"}])[-1]
                png, digest = shot.png, shot.hash
                browser += time.perf_counter() - began
        out["frame"], out["frame_hash"] = self.archive.add(png), digest
        out["browser_ms"] = round(browser * 1000, 3)
        return out, png

    def act(
        self, role: int, given: dict | None, interface: str, reasoning: str | None = None, decision: int | None = None
    ) -> tuple[dict, bytes | None]:
        """One step: (what the model reads, the screen after as PNG). interface: computer_use, vista (VISTA's act:
        computer use without opposing key pairs), semantic, or none (a decision that made no call: GameWorld's "No
        function call parsed", a step with nothing sent)."""
        if not 0 <= role < len(self.roles):
            names = ", ".join(f"{n} ({r.name})" for n, r in enumerate(self.roles))
            raise StepRefused(f"no role {role}; this game's roles: {names}")
        with self._lock:
            if self.over:
                return self.status(stopped=True), None
            if self.role_steps[role] >= self.max_steps:  # a later role's own budget (the first role's ends the task)
                left = f"role {role} ({self.roles[role].name}) has used its {self.max_steps} steps"
                return {"steps_left": 0, "stop": f"No step taken: {left}; the other roles play on."}, None
            started = time.perf_counter()
            action, invalid, kind = None, None, None
            try:
                if interface == "none":
                    raise InvalidAction("no action was called in this decision", "no_function_call")
                given_action = dict(given or {})
                if interface == "semantic":
                    given_action = semantic_action(given_action.pop("control", None), given_action, self.roles[role])
                if interface == "vista":
                    refuse_opposing(given_action)
                action = check_action(given_action, self.roles[role], self.item.game)
            except InvalidAction as why:
                invalid, kind = str(why), why.kind
            gap = min(MAX_REALTIME_GAP_MS, (time.monotonic() - self._last_screen_at) * 1000) if self.realtime else 0.0
            try:
                out, png = self._run(role, action, round(gap, 3))
            except Exception as error:  # the page or its host failed: the item's error
                self.error = f"{self.item.game.id}: the page failed at step {len(self.steps) + 1}: {_first_line(error)}"
                return self.status(stopped=True), None
            self._last_screen_at = time.monotonic()
            step = Step(
                step=len(self.steps) + 1,
                role=role,
                role_step=self.role_steps[role] + 1,
                interface=interface,
                given=given,
                action=action,
                game_ms=round(self.page.ms, 3),
                seen=self.last_frame(),
                invalid=invalid,
                invalid_kind=kind,
                reasoning=reasoning,
                realtime_ms=round(gap, 3),
                decision=decision,
                **out,
            )
            step.harness_ms = round((time.perf_counter() - started) * 1000 - step.browser_ms, 3)
            # durable before the step is answered: a harness killed after this line replays it, never takes it twice
            self._count(step)
            self._timeline.append(asdict(step))
            return self.status(step), png

    # -- where the task stands

    @property
    def over(self) -> str | None:
        """Why no more steps are taken, or None. Never says how the task went (the score stays hidden)."""
        if self.error:
            return "the game failed"
        if self.reset_failed:
            return "the task has ended"
        last = self.evaluator.last
        if last is not None and last.should_stop:
            return "the task has ended"
        if self.role_steps[0] >= self.max_steps:
            return f"the step budget ({self.max_steps}) is spent"
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return "the time budget is spent"
        return None

    def steps_left(self, role: int = 0) -> int:
        return max(0, self.max_steps - self.role_steps[role])

    def status(self, step: Step | None = None, stopped: bool = False) -> dict:
        """What the model reads after a step: where it stands, never the score."""
        shown: dict = {}
        if step is not None:
            shown = {"step": step.role_step, "frame": step.frame}
            if len(self.roles) > 1:
                shown["role"] = self.roles[step.role].name
            if step.invalid:
                shown["invalid"] = f"nothing was sent to the game: {step.invalid} (the step counts all the same)"
            if step.reset_frame is not None and not step.reset_failed:
                shown["reset"] = (
                    f"the game ended and was started again; frame {step.reset_frame} is its last screen before that"
                )
        shown["steps_left"] = self.steps_left(step.role if step is not None else 0)
        if self.deadline is not None:
            shown["seconds_left"] = max(0, int(self.deadline - time.monotonic()))
        if self.over:
            shown["stop"] = f"{'No step taken: ' if stopped else ''}{self.over}. {STOP}"
        return shown

    def last_frame(self) -> int:
        return self.steps[-1].frame if self.steps else self.start_frame

    def frames_of_step(self, number: int) -> list[int]:
        if not 1 <= number <= len(self.steps):
            raise StepRefused(
                f"no step {number}: steps so far are 1-{len(self.steps)}" if self.steps else "no step yet"
            )
        step = self.steps[number - 1]
        return [n for n in (step.reset_frame, step.frame) if n is not None]

    # -- the end

    def finish(self) -> TaskEnd:
        """The last evaluation into result.json (what GameWorld's suite reads), once, as the item ends."""
        with self._lock:
            last = self.evaluator.last
            end = TaskEnd(
                task=self.item.id,
                game=self.item.game.id,
                steps=len(self.steps),
                role_steps=list(self.role_steps),
                max_steps=self.max_steps,
                resets=self.resets,
                frames=self.archive.count,
                invalid_steps=sum(1 for s in self.steps if s.invalid),
                error=self.error,
                page_errors=len(self.page.errors),
                load_errors=self.page.load_errors[:MAX_LOAD_ERRORS],
                game_s=round(self.page.ms / 1000, 3),
                restores=read_restores(self.directory),
            )
            if last is not None:
                end.status, end.progress, end.stop_reason = last.status, last.progress, last.stop_reason
                end.summary, end.metrics = last.summary, dict(last.metrics)
            self._timeline.close()
            write_json(self.directory / RESULT, dump(end))
            return end


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
