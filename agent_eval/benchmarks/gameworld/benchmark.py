"""GameWorld: the agent plays a browser game's task through its computer-use or semantic controls, the page served
from the user's game library in a jailed headless Chromium on a clock only the harness moves (agent_eval/browser),
scored by GameWorld's own evaluator from the game's state (docs/kinds/gameworld.md)."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import Iterator

from agent_eval.benchmarks.base import Benchmark, BenchmarkGrade, Continuation, ItemError, ItemSetup
from agent_eval.benchmarks.games.final_answers import Redirect, redirect
from agent_eval.benchmarks.games.folder import GAME_DIR
from agent_eval.benchmarks.games.handoff import HandoffState, handoff_request
from agent_eval.benchmarks.games.restores import restored_or_started_over, time_budget
from agent_eval.benchmarks.games.served import frames_mirror, serve_game
from agent_eval.benchmarks.gameworld.catalog import append_url_suffix
from agent_eval.benchmarks.gameworld.gameapi import GameApiError
from agent_eval.benchmarks.gameworld.grading import rollup_records, rules_hash, task_grade
from agent_eval.benchmarks.gameworld.loader import PAGE, GameWorldDataset, TaskItem, load_gameworld
from agent_eval.benchmarks.gameworld.protocol import (
    HANDOFF,
    NO_ACTION_WORDS,
    SCREEN_WORDS,
    Decisions,
    base_prompt,
    vista_continuation,
    vista_objective,
)
from agent_eval.benchmarks.gameworld.records import in_progress
from agent_eval.benchmarks.gameworld.roles import isolated_setup, turns_for
from agent_eval.benchmarks.gameworld.rung import NOTE_PURPOSES, Rung
from agent_eval.benchmarks.gameworld.session import SEED, NotReplayable, TaskSession
from agent_eval.benchmarks.notes import Notes
from agent_eval.tools.mcp_http import load_in_background, load_sdk_module

GAME_SERVER_MODULE = "agent_eval.benchmarks.gameworld.game_server"
HOST_DIR = "page-host"  # the page host's scratch folder (outside the workdir)
WINDOW_DIR = "window"  # the official protocol's python mode: this decision's screens, bound into the workdir
DEFAULT_STEPS = 100  # GameWorld's max_steps in every catalog task


def _redirected(session, prompt: str, notes, policy: Redirect, words: bool) -> Continuation | None:
    """VISTA's answer to a final reply (RoleSession.submit): a step with nothing sent, which counts, then the same
    session told so with the screen after it; None once the task is over or the redirects are spent."""
    if redirect(session.directory, policy, len(session.steps)) is None:
        return None
    session.act(0, None, "none")
    if session.over:
        return None
    said = f"{SCREEN_WORDS}\n\n{NO_ACTION_WORDS}" if words else NO_ACTION_WORDS
    going_on = vista_continuation(session, prompt, notes, "final answer redirected", words)
    going_on.note, going_on.resume = said, True
    return going_on


class HostPage:
    """The browser host's page as the session drives it (gameapi.GamePage): a batch of steps, its results; and the
    page's uncaught errors since it was opened (those thrown while it loaded first: `opened`, what open gave)."""

    def __init__(self, host, opened: dict | None = None):
        self.host = host
        self.load_errors: list[str] = list((opened or {}).get("errors") or [])
        self.errors: list[str] = list(self.load_errors)

    def run(self, steps: list[dict]) -> list:
        batch = self.host.run(steps)
        self.errors += batch.errors
        return batch.results


class GameWorld(Benchmark):
    name = "gameworld"
    tool_modes = ("none", "image", "python")
    grades_failed_attempts = True  # the game's evaluator keeps the score whatever the agent's process did

    def __init__(self):
        self.dataset: GameWorldDataset | None = None
        self.rung = Rung()
        self.time_budget_s: float | None = None
        self.backend: str | None = None  # the run's agent CLI (VISTA offers Codex a checkpoint tool of its own)

    # -- the run's options and data

    def configure(self, options: dict, timeout_s: float | None = None) -> None:
        self.time_budget_s = time_budget(timeout_s)
        self.rung = Rung.from_options({k: v for k, v in options.items() if v is not None})

    def load(self, root: Path):
        from agent_eval.browser.host import chromium_missing
        from agent_eval.datamodel.jsonl import DataError

        missing = chromium_missing()
        if missing:
            raise DataError(missing)
        self.dataset = load_gameworld(root)
        return self.dataset

    def write_samples(self, out: Path, seed: int, per_task: int, difficulty: str) -> list[str]:
        """The project's own GameWorld-style test game and its tasks, laid out as a GameWorld checkout."""
        from agent_eval.datamodel.jsonl import DataError

        if out.exists() and any(out.iterdir()):
            raise DataError(f"{out} exists and is not empty; choose a new directory")
        samples = Path(__file__).resolve().parent / "samples"
        shutil.copytree(samples, out, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        tasks = sorted(p.stem for p in (out / "catalog" / "tasks").glob("*/*.yaml"))
        return [
            f"wrote the GameWorld-style test game 90_beacon and its tasks ({', '.join(tasks)}) to {out} "
            f"(catalog/ and games/benchmark/, as a GameWorld checkout)"
        ]

    def demo_turns(self, item, tools: str) -> list[dict] | dict | None:
        """90_01 won by a known play (demo.py). VISTA's protocol: one session, one call a turn, then DONE. The
        official one: a fresh session per decision, so a scenario whose rules pick each decision's call by the
        decision's number in its prompt."""
        from agent_eval.benchmarks.gameworld.demo import DEMO, scenario

        moves = DEMO.get((item.id, self.rung.interface))
        return None if moves is None else scenario(moves, self.rung.act_tool, self.rung.protocol)

    @contextlib.contextmanager
    def run_scope(self, services) -> Iterator[None]:
        self.backend = services.config.agent
        yield

    def template_name(self, mode: str) -> str:
        """VISTA's first message for every mode (--task-prompt vista), else the mode's own template."""
        return "vista" if self.rung.task_prompt == "vista" else mode

    def warm_up(self, tools: str) -> None:
        load_in_background(GAME_SERVER_MODULE)  # the MCP SDK

    def truth_text(self, item) -> str:
        return "success"

    def reading(self):
        from agent_eval.benchmarks.gameworld.hooks import GameWorldReading

        return GameWorldReading()

    # -- one item

    def carries_on(self, item_root: Path) -> str | None:
        return in_progress(item_root)

    def max_steps(self, item: TaskItem) -> int:
        return self.rung.max_steps or item.task_def.max_steps or DEFAULT_STEPS

    @contextlib.contextmanager
    def setup(
        self, item, tools: str, work: Path, home: Path, item_root: Path, template_text: str
    ) -> Iterator[ItemSetup]:
        server_module = load_sdk_module(GAME_SERVER_MODULE)
        rung = self.rung
        with contextlib.ExitStack() as stack:
            session = self._session(item, item_root, stack)
            stack.callback(session.finish)  # before the page closes: the last evaluation into result.json
            notes = Notes(item_root, NOTE_PURPOSES) if rung.notes else None
            mirror = frames_mirror(work, tools)
            decisions = handoff = None
            if rung.protocol == "official":
                window = item_root / GAME_DIR / WINDOW_DIR if mirror is not None else None
                decisions = Decisions(session, template_text, rung, window)
            else:
                ask = handoff_request("vista") if rung.game_tools == "vista" else HANDOFF  # VISTA's words, its tools
                handoff = (
                    HandoffState(
                        rung.handoff_tokens, at_cli=rung.handoff_at_cli, images_cap=rung.session_images, ask=ask
                    )
                    if rung.hands_off
                    else None
                )
            codex = self.backend == "codex"
            turns = turns_for(session, rung, item_root, codex) if decisions is None else None  # --roles isolated
            if turns is not None:  # each role its own notes and hand-off (roles.py)
                handoff = notes = None
            game_tools = server_module.GameTools(session, rung, decisions, handoff, notes, codex, turns)
            served = serve_game(
                stack,
                server_module.SERVER_NAME,
                rung.tools(tools, codex),
                lambda: server_module.build_server(game_tools, tools),
                tools,
            )
            source = (decisions.window if decisions is not None else session.archive.directory) if mirror else None
            readonly = [(source, mirror)] if source is not None and mirror is not None else []
            if turns is not None:
                yield isolated_setup(turns, rung, template_text.strip() + "\n", served, readonly)
                return
            yield self._item_setup(session, template_text, decisions, handoff, notes, served, readonly)

    def _item_setup(self, session, template_text, decisions, handoff, notes, served, readonly) -> ItemSetup:
        rung = self.rung
        if decisions is not None:
            prompt, images = decisions.prompt()

            def next_session(ran_out_of_context: bool) -> Continuation | None:
                return decisions.next(ran_out_of_context)

            goes_on = decisions.continuation("harness restarted") if session.steps else None
            sessions = self.max_steps(session.item) * len(session.roles) + 1
            return ItemSetup(
                prompt=prompt,
                tools=served.tools,
                inline_images=images,
                endpoints=served.endpoints,
                readonly_mounts=readonly,
                continuation=goes_on,
                next_session=next_session,
                max_sessions=sessions,
            )
        words = rung.task_prompt == "vista"
        # VISTA's first message is the screen's words alone (the screen attached); ours, the template filled in
        prompt = template_text.strip() + "\n" if words else base_prompt(template_text, session, rung, None)
        final_answers = Redirect(NO_ACTION_WORDS, session.max_steps)

        def hand_off(ran_out_of_context: bool) -> Continuation | None:
            """A hand-off (the agent was asked to stop at the threshold, or its CLI ran out of context), or a final
            reply with steps left redirected (--final-answer redirect)."""
            if handoff is not None:
                reason = handoff.next_reason(ran_out_of_context)
            else:
                reason = "hand-off: the CLI ran out of context" if ran_out_of_context else None
            if session.over:
                return None
            if reason is None:
                return _redirected(session, prompt, notes, final_answers, words) if redirects else None
            going_on = vista_continuation(session, prompt, notes, reason, words)
            if handoff is not None:
                handoff.begin()
                handoff.shown(len(going_on.images))  # the new session's count starts with its attachment
            return going_on

        redirects = rung.final_answer == "redirect"
        inline = [session.archive.path(session.last_frame())] if not session.steps else []
        if handoff is not None:
            handoff.shown(len(inline))
        return ItemSetup(
            prompt=prompt,
            tools=served.tools,
            inline_images=inline,
            endpoints=served.endpoints,
            readonly_mounts=readonly,
            continuation=vista_continuation(session, prompt, notes, words=words) if session.steps else None,
            next_session=hand_off,
            on_context=handoff.context_seen if handoff is not None else None,
            cli_compaction=rung.handoff_tokens is None and not rung.handoff_at_cli,
            on_compaction_point=handoff.compaction_point if handoff is not None and rung.handoff_at_cli else None,
            on_request_images=handoff.request_carried if handoff is not None and rung.session_images else None,
            # every redirect is a session of its own (resumed), besides the hand-offs
            max_sessions=2 * session.max_steps + 2 if redirects else None,
            system_fields={"objective": vista_objective(session.item.game, session.item.task_def.prompt)},
        )

    def _session(self, item: TaskItem, item_root: Path, stack: contextlib.ExitStack) -> TaskSession:
        """The item's task: replayed from its record when an earlier process played it (the harness was killed),
        started over when the record does not replay identically (the old folder moved aside, and said so)."""

        def opened() -> TaskSession:
            page = contextlib.ExitStack()  # this page's own: closed at once when its record does not replay
            try:
                session = self._open(item, item_root, page)
            except BaseException:
                page.close()
                raise
            stack.enter_context(page)
            return session

        return restored_or_started_over(item_root / GAME_DIR, opened, NotReplayable, key="earlier_task")

    def _open(self, item: TaskItem, item_root: Path, page: contextlib.ExitStack) -> TaskSession:
        """A page host with the task's page open (its URL suffix), and the task's session over the item's folder."""
        from agent_eval.browser.host import BrowserError, PageHost

        directory = item_root / GAME_DIR
        directory.mkdir(parents=True, exist_ok=True)
        url = append_url_suffix(PAGE, item.task_def.url_suffix)
        viewport = (item.game.width, item.game.height)
        realtime = self.rung.realtime or not item.task_def.pause_during_inference
        try:
            host = page.enter_context(
                PageHost(item.game_dir, seed=SEED, viewport=viewport, scratch=item_root / HOST_DIR,
                         request_log=directory / "requests.jsonl")
            )  # fmt: skip
            opened = host.open(url)
            steps = self.max_steps(item)
            return TaskSession(item, HostPage(host, opened), directory, steps, realtime, self.time_budget_s, url)
        except (BrowserError, GameApiError) as error:
            raise ItemError(f"{item.id} ({item.game.id}): the game did not start: {error}") from None

    def grade(self, final_text: str | None, item, item_dir=None) -> BenchmarkGrade:
        return task_grade(final_text, item, item_dir.root)

    def extra_rollup(self, records: list) -> dict | None:
        return {"gameworld": rollup_records(records)}

    def scorer_hash(self) -> str:
        return rules_hash()
