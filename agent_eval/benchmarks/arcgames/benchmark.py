"""ARC-AGI-3 games: the agent plays a game it is told nothing about through the `game` tool, served from
outside the sandbox for its item only; the game's own toolkit keeps the score
(agent_eval/benchmarks/arcgames, docs/kinds/arcgames.md)."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import Any, Iterator

from agent_eval.analysis.measures import GRADED
from agent_eval.benchmarks.arcgames.frames import MAX_SCALE, MIN_SCALE
from agent_eval.benchmarks.arcgames.game_record import in_progress
from agent_eval.benchmarks.arcgames.grading import grade_game, prediction_text, rollup_games, rules_hash
from agent_eval.benchmarks.arcgames.ladder import NOTE_PURPOSES, Ladder
from agent_eval.benchmarks.arcgames.loader import GamesDataset, load_games
from agent_eval.benchmarks.arcgames.metrics import GameMetrics
from agent_eval.benchmarks.arcgames.session import GameSession, NotReplayable
from agent_eval.benchmarks.arcgames.telling import Telling, ours_task
from agent_eval.benchmarks.arcgames.vista_prompts import TEMPLATE as VISTA_TEMPLATE
from agent_eval.benchmarks.base import Benchmark, BenchmarkGrade, Continuation, ItemError, ItemSetup
from agent_eval.benchmarks.games.folder import GAME_DIR, restored_or_started_over, time_budget
from agent_eval.benchmarks.games.protocol import Protocol
from agent_eval.benchmarks.games.recovery import after_the_stop
from agent_eval.benchmarks.games.served import frames_mirror, serve_game
from agent_eval.benchmarks.notes import Notes
from agent_eval.datamodel.run_services import RunServices
from agent_eval.tools.mcp_http import load_in_background, load_sdk_module

GAME_SERVER_MODULE = "agent_eval.benchmarks.arcgames.game_server"
DEFAULT_MAX_ACTIONS = 200
DEFAULT_FRAME_SCALE = 4
PROCESS_DIR = "game-process"  # the game process's own scratch directory (outside the workdir)


class ArcGames(Benchmark):
    name = "arcgames"

    def __init__(self):
        self.dataset: GamesDataset | None = None
        self.max_actions = DEFAULT_MAX_ACTIONS
        self.frame_scale = DEFAULT_FRAME_SCALE
        self.time_budget_s: float | None = None
        self.max_hours: float | None = None
        self.ladder = Ladder()
        self.protocol = Protocol()
        self.arc_mode = "offline"  # --arc-mode: online and competition play at the ARC API on one scorecard
        self.online_play = None  # while a run's scope holds its scorecard (toolkit_process.Online)

    # -- the run's options and data

    def configure(self, options: dict, timeout_s: float | None = None) -> None:
        # play stops taking actions a margin before the run's time limit, so the agent can still say DONE
        self.time_budget_s = time_budget(timeout_s)
        given = {k: v for k, v in options.items() if v is not None}
        self.max_actions = int(given.get("max_actions", DEFAULT_MAX_ACTIONS))
        self.frame_scale = int(given.get("frame_scale", DEFAULT_FRAME_SCALE))
        self.ladder = Ladder.from_options(given)
        self.protocol = Protocol.from_options(given)
        self.max_hours = float(given["max_hours"]) if given.get("max_hours") else None
        self.arc_mode = str(given.get("arc_mode") or "offline")
        if self.max_hours is not None and self.max_hours <= 0:
            raise ValueError(f"--max-hours must be more than 0, got {self.max_hours:g}")
        if self.max_actions < 1:
            raise ValueError(f"--max-actions must be at least 1, got {self.max_actions}")
        if not MIN_SCALE <= self.frame_scale <= MAX_SCALE:
            raise ValueError(f"--frame-scale must be {MIN_SCALE}-{MAX_SCALE}, got {self.frame_scale}")

    def load(self, root: Path):
        from agent_eval.benchmarks.arcgames.toolkit_process import TOOLKIT_MISSING, toolkit_python

        if toolkit_python() is None:
            from agent_eval.datamodel.jsonl import DataError

            raise DataError(TOOLKIT_MISSING)
        self.dataset = load_games(root)
        return self.dataset

    def write_samples(self, out: Path, seed: int, per_task: int, difficulty: str) -> list[str]:
        """The project's own games (games/, on ARCEngine), copied as the toolkit lays games out."""
        from agent_eval.benchmarks.arcgames.games import GAMES_DIR
        from agent_eval.datamodel.jsonl import DataError

        if out.exists() and any(out.iterdir()):
            raise DataError(f"{out} exists and is not empty; choose a new directory")
        written = []
        for metadata in sorted(GAMES_DIR.glob("*/*/metadata.json")):
            game_dir = metadata.parent
            target = out / game_dir.parent.name / game_dir.name
            shutil.copytree(game_dir, target, ignore=shutil.ignore_patterns("__pycache__"))
            written.append(f"{game_dir.parent.name}@{game_dir.name}")
        return [f"wrote {len(written)} ARC-AGI-3 games ({', '.join(written)}) to {out}/<game>/<version>/"]

    def demo_turns(self, item, tools: str) -> list[dict] | None:
        """The project's own game's shortest winning sequence (games.WINNING), one play call a turn, then DONE."""
        from agent_eval.benchmarks.arcgames.games import WINNING

        actions = WINNING.get(f"{item.id}-{item.version}")
        if actions is None:
            return None
        calls = [
            {"call": "play", "input": {"action": a[0], "x": a[1], "y": a[2]} if isinstance(a, tuple) else {"action": a}}
            for a in actions
        ]
        return calls + [{"final": "I won the game. <answer>DONE</answer>"}]

    @contextlib.contextmanager
    def run_scope(self, services: RunServices) -> Iterator[None]:
        """Online and competition modes: the run's scorecard at the ARC API, open while the session runs."""
        if self.arc_mode == "offline" or not services.items:  # (nothing to play: no card is opened)
            yield
            return
        from agent_eval.benchmarks.arcgames.online import RunCard
        from agent_eval.benchmarks.arcgames.toolkit_process import Online

        access = Online.from_environ(self.arc_mode, services.environ)
        games = [f"{item.id}-{item.version}" for item in services.items]
        with RunCard(access, services, games) as card:
            self.online_play = card.play
            try:
                yield
            finally:
                self.online_play = None

    def warm_up(self, tools: str) -> None:
        load_in_background(GAME_SERVER_MODULE)  # the MCP SDK

    def truth_text(self, item) -> str:
        return "win"

    def reading(self):
        from agent_eval.benchmarks.arcgames.hooks import GameReading

        return GameReading()

    # -- one item

    def carries_on(self, item_root: Path) -> str | None:
        return in_progress(item_root)

    @contextlib.contextmanager
    def setup(
        self, item, tools: str, work: Path, home: Path, item_root: Path, template_text: str
    ) -> Iterator[ItemSetup]:
        server_module = load_sdk_module(GAME_SERVER_MODULE)
        scratch = item_root / PROCESS_DIR
        scratch.mkdir(parents=True, exist_ok=True)
        with contextlib.ExitStack() as stack:
            session = self._session(item, item_root, scratch, stack)
            notes = Notes(item_root, NOTE_PURPOSES, self.ladder.note_limits()) if self.ladder.notes else None
            mirror = frames_mirror(work, tools)  # the archive, read-only in the workdir as it grows
            stack.callback(session.finish)  # before the game process closes: its scorecard
            served = serve_game(
                stack,
                server_module.SERVER_NAME,
                self.ladder.tools(tools),
                lambda: server_module.build_server(session, tools, self.frame_scale, self.ladder, notes),
                tools,
            )
            toolset = served.tools
            telling = Telling(
                session, notes, self.ladder, self.protocol, self.frame_scale, self.max_actions, template_text, tools
            )
            prompt, attached = telling.first()
            readonly = [(session.archive.directory, mirror)] if mirror is not None else []

            def next_session(ran_out_of_context: bool) -> Continuation | None:
                """The agent's session ended within the attempt: a hand-off (it was asked to stop at the threshold,
                or its CLI ran out of context), or an early stop with the game live (continued, VISTA's way)."""
                if session.over:
                    return None
                if (reason := session.handoff.next_reason(ran_out_of_context)) is not None:
                    session.begin_session()
                    return telling.going_on(reason)
                if self.protocol.early_stop != "continue":
                    return None  # graded as it stands (the record says it stopped early)
                return after_the_stop(session, item_root, self.protocol.recoveries, telling.going_on)

            yield ItemSetup(
                prompt=prompt,
                tools=toolset,
                inline_images=attached,
                endpoints=served.endpoints,
                readonly_mounts=readonly,
                continuation=telling.going_on() if session.plays else None,
                next_session=next_session,
                on_context=session.handoff.context_seen,  # (the hand-off is thread-safe)
                on_model_request=session.gate.model_asked,
                cli_compaction=not self.ladder.hands_off,
                on_compaction_point=session.handoff.compaction_point if self.ladder.handoff_at_cli else None,
                on_request_images=session.handoff.request_carried if self.ladder.session_images else None,
                use_provider_wait=session.leave_out_waits,
            )

    def task_prompt(self, template_text: str, mode: str) -> str:
        """The task as this run asks it in a tool mode, with our template (telling.ours_task)."""
        return ours_task(template_text, mode, self.ladder, self.protocol, self.frame_scale, self.max_actions)

    def template_name(self, mode: str) -> str:
        """VISTA's first message for every mode (--task-prompt vista), else the mode's own template."""
        return VISTA_TEMPLATE if self.protocol.task_prompt == "vista" else mode

    def _session(self, item, item_root: Path, scratch: Path, stack: contextlib.ExitStack) -> GameSession:
        """The item's game: restored from its record when an earlier process played it (the harness was killed),
        started over when the record does not replay identically (the old game moved aside, and said so)."""
        from agent_eval.benchmarks.arcgames.game_process import GameError, GameProcess

        dataset = self.dataset
        assert dataset is not None, "load() first"

        directory = item_root / GAME_DIR
        online_plays = iter([self.online_play, None])  # a game started over is always made offline

        def opened() -> GameSession:
            online_play = next(online_plays)
            try:
                if online_play is None:
                    game: Any = stack.enter_context(GameProcess(dataset.root, item.id, item.version, scratch=scratch))
                else:  # on the run's card; never replayed
                    from agent_eval.benchmarks.arcgames.online import start_online

                    game = start_online(item, dataset.root, directory, scratch, online_play, stack)
            except GameError as error:
                raise ItemError(f"the game did not start: {error}") from None  # GameError names the game
            try:
                return GameSession(
                    item,
                    game,
                    directory,
                    self.max_actions,
                    self.frame_scale,
                    self.time_budget_s,
                    self.max_hours,
                    ladder=self.ladder,
                    initial_frame=self.protocol.initial_frame,
                    one_action_per_observation=not self.protocol.action_batches,
                )
            except NotReplayable:
                game.close()
                raise

        return restored_or_started_over(directory, opened, NotReplayable)

    grades_failed_attempts = True  # the game keeps the score whatever the agent's process did

    def grade(self, final_text: str | None, item, item_dir=None) -> BenchmarkGrade:
        metrics, error, has_tag = grade_game(final_text, item, item_dir.root)
        if metrics is None:
            return BenchmarkGrade(prediction="", correct=False, has_answer_tag=has_tag, error=error)
        return BenchmarkGrade(
            prediction=prediction_text(metrics),
            correct=metrics.won,
            has_answer_tag=has_tag,
            metrics=metrics,
            error=error,
        )

    def scorer_hash(self) -> str:
        return rules_hash()

    def extra_rollup(self, records: list) -> dict | None:
        graded = [GameMetrics.of(r) for r in records if r.status in GRADED]
        return {"arcgames": rollup_games(graded)}
