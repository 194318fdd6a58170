"""What a browser game kind does alike as a Benchmark (BrowserKind), VISTA's continuous session above all: a hand-off
or a final reply with budget left (--final-answer redirect) goes on with the same game. A kind adds its page, its
session, its official protocol and its words. The options every browser kind takes (BrowserOptions: its registry
line's, so in the run's identity) are checked once here; a kind's own options extend them."""

from __future__ import annotations

import contextlib
import importlib
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Iterator, Protocol

from agent_eval.benchmarks.base import Benchmark, Continuation, ItemSetup
from agent_eval.benchmarks.games.folder import GAME_DIR, restored_or_started_over, time_budget
from agent_eval.benchmarks.games.handoff import HandoffState, parse_context, parse_session_images
from agent_eval.benchmarks.games.protocol import ObservationGate
from agent_eval.benchmarks.games.served import Served, frames_mirror
from agent_eval.datamodel.itemdir import now_iso
from agent_eval.datamodel.jsonl import append_line, log_lines
from agent_eval.tools.mcp_http import load_in_background

REDIRECTS = "redirects.jsonl"  # one line a redirected final reply, so the count survives a restart of the harness
NEEDS_VISTA = "needs VISTA's protocol and --notes on (a fresh session goes on from them)"


@dataclass(frozen=True)
class BrowserOptions:
    protocol: str = "vista"
    realtime: bool = field(default=False, kw_only=True)
    notes: bool = field(default=False, kw_only=True)
    handoff_tokens: int | None = field(default=None, kw_only=True)  # --context handoff:N (VISTA's protocol, notes)
    handoff_at_cli: bool = field(default=False, kw_only=True)  # --context handoff:cli: where the CLI would compact
    session_images: int | None = field(default=None, kw_only=True)  # --session-images N: hand off before the N-th
    task_prompt: str = field(default="ours", kw_only=True)  # vista: VISTA's first message and recovery words
    final_answer: str = field(default="ends", kw_only=True)  # redirect: a final reply with budget left goes on
    tell_steps: bool = field(default=True, kw_only=True)  # the action's answer says the step and the steps left
    game_tools: str = field(default="ours", kw_only=True)  # vista: VISTA's actions, looks, history and notes
    action_batches: bool = field(default=True, kw_only=True)  # off: one action per observation (games/observation)

    # the switches only VISTA's protocol turns: each one's values, ours (the default) first, then VISTA's
    vista_switches: ClassVar[dict[str, tuple[str, str]]] = {
        "task_prompt": ("ours", "vista"),
        "final_answer": ("ends", "redirect"),
        "game_tools": ("ours", "vista"),
    }

    @property
    def hands_off(self) -> bool:
        return self.handoff_tokens is not None or self.session_images is not None or self.handoff_at_cli

    @property
    def vista_words(self) -> bool:
        return self.task_prompt == "vista"

    @classmethod
    def shared(cls, given: dict) -> dict:
        """The shared options' values from the kind's options (None: the default); ValueError naming the flag."""
        protocol = given.get("protocol") or "vista"
        notes = given.get("notes") == "on"
        handoff, at_cli = parse_context(given.get("context"), at_cli=True)
        if (handoff is not None or at_cli) and (protocol != "vista" or not notes):
            raise ValueError(f"--context handoff:N (or handoff:cli) {NEEDS_VISTA}")
        images = parse_session_images(given.get("session_images"))
        if images is not None and (protocol != "vista" or not notes):
            raise ValueError(f"--session-images {NEEDS_VISTA}")
        switched = {key: given.get(key) or values[0] for key, values in cls.vista_switches.items()}
        if protocol != "vista" and any(switched[key] != values[0] for key, values in cls.vista_switches.items()):
            flags = [f"--{key.replace('_', '-')} {values[1]}" for key, values in cls.vista_switches.items()]
            listed = ", ".join(flags[:-1]) + " and " + flags[-1]
            raise ValueError(f"{listed} are VISTA's protocol's (give --protocol vista)")
        return switched | {
            "protocol": protocol,
            "realtime": given.get("realtime") == "on",
            "notes": notes,
            "handoff_tokens": handoff,
            "handoff_at_cli": at_cli,
            "session_images": images,
            "tell_steps": given.get("tell_steps") != "off",
            "action_batches": given.get("action_batches") != "off",
        }


class LiveGame(Protocol):
    """What the continuous session reads of a kind's game session."""

    directory: Path

    @property
    def over(self) -> str | None: ...  # why no more actions are taken, or None

    def finish(self) -> object: ...  # the game's end, written into its folder


@dataclass(frozen=True)
class Redirect:
    """A final reply that is not a game action (--final-answer redirect): answered in the kind's words (VISTA's) in
    the same session, at most `limit` times a game (VISTA's `final_answers` budget: the game's decisions)."""

    words: str
    limit: int
    used: Callable[[], int]  # the actions used so far (recorded with each redirect)
    step: Callable[[], None] | None = None  # what a redirected reply takes (GameWorld's: a step with nothing sent)


def vista_recovery(recovery: str, screen: str, notes_text: str, image: Path, reason: str) -> Continuation:
    """VISTA's words to a session that goes on with a game (--task-prompt vista); never the steps."""
    fresh = f"{recovery}\n\n{screen}" + (f"\n{notes_text}\n" if notes_text else "")
    return Continuation(note=recovery, prompt=fresh, images=[image], reason=reason)


class BrowserKind(Benchmark):
    grades_failed_attempts = True  # the game keeps the score whatever the agent's process did
    server_module: str  # the kind's `game` server, loaded in the background (the MCP SDK is slow to import)
    samples: Path  # the project's own test games (sample-data)
    truth: str  # what an item's answer is called ("score", "success")
    hooks: str  # "module:Class": the kind's reading hooks, imported when a run is first read
    options: BrowserOptions
    parse_options: Callable[[dict], BrowserOptions]  # the kind's options, checked (a staticmethod)
    load_dataset: Callable[[Path], object]
    not_replayable: type[Exception]  # what the kind's session raises for a record that does not replay
    earlier_key = "earlier_game"  # the restore log's name for the folder a start over moved aside

    def __init__(self):
        self.dataset = None
        self.time_budget_s: float | None = None
        self.backend: str | None = None  # the run's agent CLI (VISTA offers Codex a checkpoint tool of its own)

    def samples_written(self, out: Path) -> list[str]:
        """What sample-data says it wrote."""
        raise NotImplementedError

    def truth_text(self, item) -> str:
        return self.truth

    def reading(self):
        module, _, name = self.hooks.partition(":")
        return getattr(importlib.import_module(module), name)()

    def configure(self, options: dict, timeout_s: float | None = None) -> None:
        self.time_budget_s = time_budget(timeout_s)
        self.options = self.parse_options({k: v for k, v in options.items() if v is not None})

    def load(self, root: Path):
        from agent_eval.browser.host import chromium_missing
        from agent_eval.datamodel.jsonl import DataError

        missing = chromium_missing()
        if missing:
            raise DataError(missing)
        self.dataset = self.load_dataset(root)
        return self.dataset

    def write_samples(self, out: Path, seed: int, per_task: int, difficulty: str) -> list[str]:
        from agent_eval.datamodel.jsonl import DataError

        if out.exists() and any(out.iterdir()):
            raise DataError(f"{out} exists and is not empty; choose a new directory")
        shutil.copytree(self.samples, out, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        return self.samples_written(out)

    @contextlib.contextmanager
    def run_scope(self, services) -> Iterator[None]:
        self.backend = services.config.agent
        yield

    def template_name(self, mode: str) -> str:
        """VISTA's first message for every mode (--task-prompt vista), else the mode's own template."""
        return "vista" if self.options.vista_words else mode

    def warm_up(self, tools: str) -> None:
        load_in_background(self.server_module)

    @contextlib.contextmanager
    def setup(
        self, item, tools: str, work: Path, home: Path, item_root: Path, template_text: str
    ) -> Iterator[ItemSetup]:
        """The item's game on a page host of its own, replayed from its record or started over
        (games/folder.restored_or_started_over); its end written before the page closes."""
        directory = item_root / GAME_DIR

        def opened() -> LiveGame:
            directory.mkdir(parents=True, exist_ok=True)
            with contextlib.ExitStack() as page:  # closed at once when the game does not start or replay
                session = self.start_game(item, item_root, directory, page)
                stack.enter_context(page.pop_all())
            return session

        with contextlib.ExitStack() as stack:
            session = restored_or_started_over(directory, opened, self.not_replayable, key=self.earlier_key)
            stack.callback(session.finish)
            yield self.item_setup(item, session, tools, frames_mirror(work, tools), item_root, template_text, stack)

    def start_game(self, item, item_root: Path, directory: Path, page: contextlib.ExitStack) -> LiveGame:
        """The kind's game session in `directory` on a page host entered into `page` (ItemError when the game does
        not start)."""
        raise NotImplementedError

    def item_setup(
        self, item, session, tools: str, mirror: Path | None, item_root: Path, template_text: str, stack
    ) -> ItemSetup:
        """The item's turns over its game (`stack`: what closes with the item, the game's server)."""
        raise NotImplementedError

    def handoff_state(self, ask: str) -> HandoffState | None:
        """The session's way to its hand-off, when the run hands off (`ask`: what the agent is asked to do)."""
        o = self.options
        if not o.hands_off:
            return None
        return HandoffState(o.handoff_tokens, at_cli=o.handoff_at_cli, images_cap=o.session_images, ask=ask)

    def gate(self) -> ObservationGate:
        """One action per observation (--action-batches off) for one item's actions."""
        return ObservationGate(not self.options.action_batches)

    def continuous(
        self,
        session: LiveGame,
        prompt: str,
        served: Served,
        readonly: list,
        handoff: HandoffState | None,
        gate: ObservationGate,
        goes_on: Callable[[str], Continuation],
        redirected: Redirect,
        inline: list[Path],
        restored: bool,
        system_fields: dict[str, str],
    ) -> ItemSetup:
        """VISTA's protocol as one item's ItemSetup. `goes_on(reason)`: what a session that goes on with the game is
        told; `inline`: the images of the first message."""
        o = self.options
        redirects = o.final_answer == "redirect"

        def redirect_reply() -> Continuation | None:
            count = len(log_lines(session.directory / REDIRECTS))
            if count >= redirected.limit:
                return None
            entry = {"at": now_iso(), "decisions_used": redirected.used(), "n": count + 1}
            append_line(session.directory / REDIRECTS, entry)
            if redirected.step is not None:
                redirected.step()
                if session.over:
                    return None
            going_on = goes_on("final answer redirected")
            going_on.note, going_on.resume = redirected.words, True
            return going_on

        def next_session(ran_out_of_context: bool) -> Continuation | None:
            """A hand-off, or a final reply redirected (--final-answer redirect): the game goes on; None once over."""
            if handoff is not None:
                reason = handoff.next_reason(ran_out_of_context)
            else:
                reason = "hand-off: the CLI ran out of context" if ran_out_of_context else None
            if session.over:
                return None
            if reason is None:
                return redirect_reply() if redirects else None
            going_on = goes_on(reason)
            if handoff is not None:
                handoff.begin()
                handoff.shown(len(going_on.images))  # the new session's count starts with its attachment
            return going_on

        if handoff is not None:
            handoff.shown(len(inline))
        return ItemSetup(
            prompt=prompt,
            tools=served.tools,
            inline_images=inline,
            endpoints=served.endpoints,
            readonly_mounts=readonly,
            continuation=goes_on("harness restarted") if restored else None,
            next_session=next_session,
            on_model_request=gate.model_asked,
            on_context=handoff.context_seen if handoff is not None else None,
            cli_compaction=o.handoff_tokens is None and not o.handoff_at_cli,
            on_compaction_point=handoff.compaction_point if handoff is not None and o.handoff_at_cli else None,
            on_request_images=handoff.request_carried if handoff is not None and o.session_images else None,
            # every redirect is a session of its own (resumed), besides the hand-offs
            max_sessions=2 * redirected.limit + 2 if redirects else None,
            system_fields=system_fields,
        )
