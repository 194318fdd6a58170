"""AI GameStore: the agent plays a browser game one game second at a time; the page runs in headless Chromium
outside the sandbox (agent_eval/browser), paused while the model thinks; the score is the game's own, normalised
against the published human median (docs/kinds/aigamestore.md)."""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from pathlib import Path

from agent_eval.benchmarks.aigamestore.loader import load_games
from agent_eval.benchmarks.aigamestore.measures import GameStoreMetrics, graded_games, normalized, rules_hash, summary
from agent_eval.benchmarks.aigamestore.record import REQUESTS, in_progress, read_end, read_requests
from agent_eval.benchmarks.aigamestore.session import Budget, GameStoreSession, NotReplayable, PlayRefused
from agent_eval.benchmarks.answers import extract_answer
from agent_eval.benchmarks.base import BenchmarkGrade, Continuation, ItemError, ItemSetup
from agent_eval.benchmarks.games.browser.kind import BrowserKind, BrowserOptions, Redirect, vista_recovery
from agent_eval.benchmarks.games.folder import read_timeline
from agent_eval.benchmarks.games.frames import FRAMES_DIR
from agent_eval.benchmarks.games.handoff import handoff_request
from agent_eval.benchmarks.games.served import SERVER_NAME, serve_game
from agent_eval.benchmarks.notes import Notes, describe, read_history
from agent_eval.tools.mcp_http import load_sdk_module

KEYS_TAG = re.compile(r"<keys>.*?</keys>", re.DOTALL)  # the official protocol's reply ends as asked with its keys
VISTA_NOTE_LIMITS = {"GUIDE.md": 64 * 1024, "WORKING.md": 16 * 1024}  # VISTA's core/tools.py MAX_GUIDE/WORKING_CHARS
SAMPLES = Path(__file__).with_name("samples")
BROWSER_DIR = "browser"  # the page host's scratch (its stderr) in the item's folder
NOTE_PURPOSES = {
    "GUIDE.md": "what the game is: its rules, goal and controls as you have found them",
    "WORKING.md": "the current attempt: where you are, what you tried and your plan",
}
# VISTA's words (src/vista/benchmarks/aigamestore/session.py SCREEN_PROMPT and submit(); profiles.py PromptBundle's
# recovery), said with --task-prompt vista and --final-answer redirect
SCREEN_WORDS = "Game screen (paused):\n"
REDIRECT_WORDS = "No game action was executed. Continue with the play or restart tool."
RECOVERY_WORDS = (
    "Continue this same game from GUIDE, WORKING, and the supplied current visual. The game has not been restarted "
    "or advanced by this context handoff. Reconcile the notes with the current screen."
)
DEMO_SEGMENTS = [  # the demo's sequence (a scripted model cannot see the game: the score means nothing)
    [["HOLD_LEFT"], ["HOLD_LEFT"], ["NOOP"], ["RIGHT"], ["HOLD_RIGHT"]],
    [["HOLD_RIGHT"], ["HOLD_RIGHT"], ["SPACE"], ["NOOP"], ["HOLD_LEFT"]],
    [["LEFT", "SPACE"], ["NOOP"], ["HOLD_RIGHT"], ["HOLD_RIGHT"], ["NOOP"]],
]


DEFAULT_DECISIONS = 120
# what a record's metrics take as the game's result.json says it
AS_ENDED = "game raw_score decisions max_decisions episodes won final_phase frames protocol page_errors".split()


@dataclass(frozen=True)
class Options(BrowserOptions):
    """The run's own options (its registry line's: in the run's identity): the browser kinds' shared ones, then the
    decisions and the page's seed."""

    decisions: int = DEFAULT_DECISIONS
    seed: int = 0

    @classmethod
    def from_given(cls, given: dict) -> Options:
        shared = cls.shared(given)
        decisions = int(given["decisions"]) if given.get("decisions") is not None else DEFAULT_DECISIONS
        if decisions < 1:
            raise ValueError(f"--decisions must be at least 1, got {decisions}")
        return cls(decisions=decisions, seed=int(given.get("game_seed") or 0), **shared)


class AiGameStore(BrowserKind):
    name = "aigamestore"
    server_module = "agent_eval.benchmarks.aigamestore.game_server"
    samples = SAMPLES
    options: Options = Options()
    parse_options = staticmethod(Options.from_given)
    load_dataset = staticmethod(load_games)
    carries_on = staticmethod(in_progress)
    not_replayable = NotReplayable
    truth, hooks = "score", "agent_eval.benchmarks.aigamestore.hooks:GameStoreReading"

    def samples_written(self, out: Path) -> list[str]:
        games = sorted(p.parent.name for p in (out / "games").glob("*/index.html"))
        return [f"wrote {len(games)} AI GameStore-style test games ({', '.join(games)}) to {out}/games/<game>/"]

    def demo_turns(self, item, tools: str) -> list[dict] | None:
        if self.options.protocol != "vista":
            return None
        calls = [{"call": "play", "input": {"segments": segments}} for segments in DEMO_SEGMENTS]
        return calls + [{"final": "I played my seconds. <answer>DONE</answer>"}]

    # -- one item

    def item_setup(
        self,
        item,
        session: GameStoreSession,
        tools: str,
        mirror: Path | None,
        item_root: Path,
        template_text: str,
        stack,
    ) -> ItemSetup:
        from agent_eval.benchmarks.aigamestore.official import OfficialTurns, decision_images

        server = load_sdk_module(self.server_module)
        options = self.options
        vista_tools = options.game_tools == "vista"
        notes = Notes(item_root, NOTE_PURPOSES, VISTA_NOTE_LIMITS if vista_tools else None) if options.notes else None
        handoff, gate = self.handoff_state(handoff_request(options.game_tools)), self.gate()
        if vista_tools:  # VISTA's play, restart and task tools in our tools' place
            names = server.vista_offered(tools, options.notes, codex=self.backend == "codex")
            build = lambda: server.vista_server(session, names, notes, handoff, gate)  # noqa: E731
        else:
            names = server.offered(options.protocol, tools, options.notes)
            functions = lambda: server.tool_functions(session, notes, handoff, options.tell_steps, gate)  # noqa: E731
            build = lambda: server.served(functions(), names)  # noqa: E731
        served = serve_game(stack, SERVER_NAME, names, build, tools)
        readonly = [(session.archive.directory, mirror)] if mirror is not None else []
        notes_text = (lambda: _notes_text(notes)) if notes is not None else (lambda: "")
        if options.protocol == "official":
            turns = OfficialTurns(item, session, tools, notes_text)
            return ItemSetup(
                prompt=turns.prompt(),
                tools=served.tools,
                inline_images=decision_images(session),
                endpoints=served.endpoints,
                readonly_mounts=readonly,
                continuation=turns.continuation() if session.decisions else None,
                next_session=turns.next_session,
                on_reply=turns.on_reply,
                max_sessions=options.decisions + 1,
            )
        prompt = self._prompt(item, template_text, tools)
        words = options.vista_words
        # a redirected final reply: VISTA's step message (its screen's words, then the redirect) with its words
        redirect_words = f"{SCREEN_WORDS}\n\n{REDIRECT_WORDS}" if words else REDIRECT_WORDS
        return self.continuous(
            session,
            prompt,
            served,
            readonly,
            handoff,
            gate,
            goes_on=lambda reason: _continuation(session, prompt, notes, reason, words),
            redirected=Redirect(redirect_words, options.decisions, lambda: session.decisions),
            inline=decision_images(session)[-1:],
            restored=bool(session.decisions),
            # what a system prompt may name (VISTA's names these: prompts/aigamestore/vista-system.md)
            system_fields={
                "description": (item.description or "").strip() or "(none given)",
                "controls": (item.controls or "").strip() or "(none given)",
                "decisions": str(options.decisions),
            },
        )

    def _prompt(self, item, template_text: str, tools: str) -> str:
        if self.options.vista_words:  # VISTA's first message: the screen's words alone (the image follows)
            return template_text.strip() + "\n"
        prompt = (
            template_text.replace("{decisions}", str(self.options.decisions))
            .replace("{description}", item.description or "(none given)")
            .replace("{controls}", item.controls or "(none given)")
            .replace("{frames_dir}", FRAMES_DIR)
            .strip()
        )
        if self.options.realtime:
            prompt += (
                "\n\nThis game does not wait for you: it keeps running while you think, and each `play` first lets "
                "the time you took pass in the game."
            )
            prompt = prompt.replace("The game is frozen while you think", "The game runs on while you think")
        if self.options.notes:
            prompt += (
                f"\n\nYou keep two notes, read with `read_notes` and replaced with `write_note`: "
                f"{describe(NOTE_PURPOSES)}. They outlast this conversation."
            )
        return prompt + "\n"

    def start_game(self, item, item_root: Path, directory: Path, page: contextlib.ExitStack) -> GameStoreSession:
        from agent_eval.browser.host import BrowserError, PageHost

        options = self.options
        budget = Budget(options.decisions, options.seed, options.realtime, options.protocol, self.time_budget_s)
        try:
            host = page.enter_context(
                PageHost(
                    item.site, seed=options.seed, scratch=item_root / BROWSER_DIR, request_log=directory / REQUESTS
                )
            )
        except BrowserError as error:
            raise ItemError(f"{item.id}: the browser did not start: {error}") from None
        try:
            return GameStoreSession(item, host, directory, budget)
        except (BrowserError, PlayRefused) as error:
            raise ItemError(f"{item.id}: the game did not start: {error}") from None

    def grade(self, final_text: str | None, item, item_dir=None) -> BenchmarkGrade:
        """From the game, not from the text: the metrics are the game as played (game/result.json) with its
        normalised score, `correct` a normalised score of 100 (the human median) or more. The final text only says
        whether the agent ended as asked (<answer> in VISTA's protocol, <keys> in the official one)."""
        _, has_tag = extract_answer(final_text)
        has_tag = has_tag or bool(KEYS_TAG.search(final_text or ""))
        item_root = item_dir.root
        end = read_end(item_root)
        if end is None:
            error = f"{item.id}: the game left no result (game/result.json is missing)"
            return BenchmarkGrade(prediction="", correct=False, has_answer_tag=has_tag, error=error)
        timeline = read_timeline(item_root) or []
        metrics = GameStoreMetrics(
            **{name: getattr(end, name) for name in AS_ENDED},
            human_median=item.human_median,
            median_source=item.median_source,
            replies_without_keys=sum(bool(m.get("problem")) for m in timeline),
            refused_requests=sum(r.get("outcome") == "refused" for r in read_requests(item_root)),
            restores=sum(r.get("outcome") == "replayed" for r in end.restores),
            started_over=[r.get("why", "") for r in end.restores if r.get("outcome") == "started over"],
            notes_written=len(read_history(item_root)),
            canvas=list(end.canvas or []),
        )
        if end.raw_score is not None and item.human_median:
            metrics.normalized = normalized(end.raw_score, item.human_median)
        score = "no score read" if metrics.raw_score is None else f"raw {metrics.raw_score:g}"
        norm = f", normalised {metrics.normalized:.1f}" if metrics.normalized is not None else ""
        return BenchmarkGrade(
            prediction=f"{score}{norm} in {metrics.decisions}/{metrics.max_decisions} decisions, "
            f"{metrics.episodes} episode(s)",
            correct=(metrics.normalized or 0) >= 100,
            has_answer_tag=has_tag,
            metrics=metrics,
            error=end.error,
        )

    def scorer_hash(self) -> str:
        return rules_hash()

    def extra_rollup(self, records: list) -> dict | None:
        return {"aigamestore": summary(graded_games(records))}


def _notes_text(notes: Notes) -> str:
    return f"Your notes (read_notes / write_note; {notes.describe()}):\n\n{notes.as_prompt()}"


def _continuation(
    session: GameStoreSession,
    prompt: str,
    notes: Notes | None,
    reason: str = "harness restarted",
    words: bool = False,
) -> Continuation:
    """VISTA's protocol going on in another session (after a restart of the harness or a hand-off): where the game
    stands, the notes, the last frame; with VISTA's words, its recovery text and never the decisions."""
    last = session.moves[-1]
    if words:
        notes_text = _notes_text(notes) if notes is not None else ""
        return vista_recovery(RECOVERY_WORDS, SCREEN_WORDS, notes_text, session.archive.path(last.frames[-1]), reason)
    where = (
        f"The game stands at decision {session.decisions} of {session.budget.decisions} (episode {session.episode}); "
        f"its last frames are attached (frames {last.frames[0]}-{last.frames[-1]})."
        if last.frames
        else f"The game stands at decision {session.decisions} of {session.budget.decisions}."
    )
    note = f"The evaluation harness was restarted; the game was restored exactly as it was. {where} Go on playing."
    earlier = "handed it on (its context was full)" if reason.startswith("hand-off") else "was interrupted"
    fresh = (
        f"{prompt.rstrip()}\n\nThis game is already in progress: an earlier session of yours played it and "
        f"{earlier}. {where} Go on."
    )
    if notes is not None:
        fresh += f"\n\n{_notes_text(notes)}"
    return Continuation(note=note, prompt=fresh + "\n", images=session.frame_paths(last.frames[-1:]), reason=reason)
