"""GameWorld: the agent plays a browser game's task through its computer-use or semantic controls, the page served
from the user's game library in a jailed headless Chromium on a clock only the harness moves (agent_eval/browser),
scored by GameWorld's own evaluator from the game's state (docs/kinds/gameworld.md)."""

from __future__ import annotations

import contextlib
from pathlib import Path

from agent_eval.benchmarks.base import BenchmarkGrade, ItemError, ItemSetup
from agent_eval.benchmarks.games.browser.kind import BrowserKind, Redirect
from agent_eval.benchmarks.games.folder import GAME_DIR
from agent_eval.benchmarks.games.handoff import handoff_request
from agent_eval.benchmarks.games.served import SERVER_NAME, serve_game
from agent_eval.benchmarks.gameworld.catalog import append_url_suffix
from agent_eval.benchmarks.gameworld.gameapi import GameApiError
from agent_eval.benchmarks.gameworld.grading import rollup_records, rules_hash, task_grade
from agent_eval.benchmarks.gameworld.loader import PAGE, TaskItem, load_gameworld
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
from agent_eval.benchmarks.gameworld.session import SEED, HostPage, NotReplayable, TaskSession
from agent_eval.benchmarks.notes import Notes
from agent_eval.tools.mcp_http import load_sdk_module

HOST_DIR = "page-host"  # the page host's scratch folder (outside the workdir)
WINDOW_DIR = "window"  # the official protocol's python mode: this decision's screens, bound into the workdir
DEFAULT_STEPS = 100  # GameWorld's max_steps in every catalog task


def _no_action(session: TaskSession) -> None:
    session.act(0, None, "none")


class GameWorld(BrowserKind):
    name = "gameworld"
    server_module = "agent_eval.benchmarks.gameworld.game_server"
    samples = Path(__file__).resolve().parent / "samples"
    options: Rung = Rung()
    parse_options = staticmethod(Rung.from_options)
    load_dataset = staticmethod(load_gameworld)
    carries_on = staticmethod(in_progress)
    not_replayable, earlier_key = NotReplayable, "earlier_task"
    truth, hooks = "success", "agent_eval.benchmarks.gameworld.hooks:GameWorldReading"

    def samples_written(self, out: Path) -> list[str]:
        """The project's own GameWorld-style test game and its tasks, laid out as a GameWorld checkout."""
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

        moves = DEMO.get((item.id, self.options.interface))
        return None if moves is None else scenario(moves, self.options.act_tool, self.options.protocol)

    # -- one item

    def max_steps(self, item: TaskItem) -> int:
        return self.options.max_steps or item.task_def.rules.max_steps or DEFAULT_STEPS

    def item_setup(
        self, item, session: TaskSession, tools: str, mirror: Path | None, item_root: Path, template_text, stack
    ) -> ItemSetup:
        server_module = load_sdk_module(self.server_module)
        rung = self.options
        notes = Notes(item_root, NOTE_PURPOSES) if rung.notes else None
        decisions = handoff = None
        if rung.protocol == "official":
            window = item_root / GAME_DIR / WINDOW_DIR if mirror is not None else None
            decisions = Decisions(session, template_text, rung, window)
        else:  # VISTA's words with its tools
            handoff = self.handoff_state(handoff_request("vista") if rung.game_tools == "vista" else HANDOFF)
        gate = self.gate()  # (isolated roles: a turn is one action already)
        codex = self.backend == "codex"
        turns = turns_for(session, rung, item_root, codex) if decisions is None else None  # --roles isolated
        if turns is not None:  # each role its own notes and hand-off (roles.py)
            handoff = notes = None
        game_tools = server_module.GameTools(
            session, rung, decisions, handoff, notes, codex, turns, gate if turns is None else None
        )
        names = rung.tools(tools, codex)
        served = serve_game(stack, SERVER_NAME, names, lambda: server_module.build_server(game_tools, tools), tools)
        source = (decisions.window if decisions is not None else session.archive.directory) if mirror else None
        readonly = [(source, mirror)] if source is not None and mirror is not None else []
        if turns is not None:
            return isolated_setup(turns, rung, template_text.strip() + "\n", served, readonly)
        if decisions is not None:
            prompt, images = decisions.prompt()
            return ItemSetup(
                prompt=prompt,
                tools=served.tools,
                inline_images=images,
                endpoints=served.endpoints,
                readonly_mounts=readonly,
                continuation=decisions.continuation("harness restarted") if session.steps else None,
                next_session=decisions.next,
                max_sessions=self.max_steps(session.item) * len(session.roles) + 1,
            )
        words = rung.vista_words
        # VISTA's first message is the screen's words alone (the screen attached); ours, the template filled in
        prompt = template_text.strip() + "\n" if words else base_prompt(template_text, session, rung, None)
        said = f"{SCREEN_WORDS}\n\n{NO_ACTION_WORDS}" if words else NO_ACTION_WORDS
        return self.continuous(
            session,
            prompt,
            served,
            readonly,
            handoff,
            gate,
            goes_on=lambda reason: vista_continuation(session, prompt, notes, reason, words),
            # VISTA's answer to a final reply (RoleSession.submit): a step with nothing sent, which counts
            redirected=Redirect(said, session.max_steps, lambda: len(session.steps), lambda: _no_action(session)),
            inline=[session.archive.path(session.last_frame())] if not session.steps else [],
            restored=bool(session.steps),
            system_fields={"objective": vista_objective(item.game, item.task_def.prompt)},
        )

    def start_game(self, item: TaskItem, item_root: Path, directory: Path, page: contextlib.ExitStack) -> TaskSession:
        """The item's task on a page host with its page open (its URL suffix)."""
        from agent_eval.browser.host import BrowserError, PageHost

        url = append_url_suffix(PAGE, item.task_def.url_suffix)
        viewport = (item.game.width, item.game.height)
        realtime = self.options.realtime or not item.task_def.pause_during_inference
        try:
            host = page.enter_context(
                PageHost(item.game_dir, seed=SEED, viewport=viewport, scratch=item_root / HOST_DIR,
                         request_log=directory / "requests.jsonl")
            )  # fmt: skip
            steps, budget = self.max_steps(item), self.time_budget_s
            return TaskSession(item, HostPage(host, host.open(url)), directory, steps, realtime, budget, url)
        except (BrowserError, GameApiError) as error:
            raise ItemError(f"{item.id} ({item.game.id}): the game did not start: {error}") from None

    def grade(self, final_text: str | None, item, item_dir=None) -> BenchmarkGrade:
        return task_grade(final_text, item, item_dir.root)

    def extra_rollup(self, records: list) -> dict | None:
        return {"gameworld": rollup_records(records)}

    def scorer_hash(self) -> str:
        return rules_hash()
