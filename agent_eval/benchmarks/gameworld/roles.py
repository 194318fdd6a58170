"""`--roles isolated`: a game of several roles played as VISTA plays it (joshhhhhan/VISTA, MIT; stored copy
agent-memory-atlas-archive/joshhhhhan--VISTA at c97c354: src/vista/benchmarks/gameworld/run.py play_loop,
engine.py PaperDriver, session.py RoleSession, profiles.py SessionPolicy; core/runtime.py, core/support.py);
docs/kinds/gameworld.md's table says it row by row. Each role has its own CLI session (continued at each of its
turns, `Continuation.context` "role-N"), objective, `act`, notes and events (event 0 the start screen, then the
screen each of its turns began on and its own steps). The roles take turns from role 0, one step each (an invalid
one too): the session is stopped as its action's result reaches the model (ItemSetup.turn_over). A hand-off is each
role's: its session is continued once more with VISTA's checkpoint words and the notes tools only, and its next
turn is a fresh session told VISTA's recovery words. Not the --session-images cap: VISTA's act is not capped in a
session of one role either (game_server.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agent_eval.benchmarks.base import Continuation, ItemError, ItemSetup
from agent_eval.benchmarks.games.frames import ArchivedPngs
from agent_eval.benchmarks.games.handoff import CHECKPOINT, HandoffState, handoff_request
from agent_eval.benchmarks.games.served import Served
from agent_eval.benchmarks.games.vista.events import Event
from agent_eval.benchmarks.gameworld.protocol import RECOVERY_WORDS, SCREEN_WORDS, vista_continuation, vista_objective
from agent_eval.benchmarks.gameworld.rung import NOTE_PURPOSES, Rung
from agent_eval.benchmarks.gameworld.session import TaskSession
from agent_eval.benchmarks.notes import Notes

DECISION_ENDED = "This decision has ended; no further tool was executed."  # core/runtime.py TaskRuntime.execute
CHECKPOINTING = "Only memory tools are available during checkpointing."  # core/runtime.py TaskRuntime.execute
CHECKPOINT_WORDS = "Save the compact checkpoint before continuing."  # profiles.py PromptBundle checkpoint


def context(role: int) -> str:
    return f"role-{role}"


class RoleTurns:
    """Whose turn it is and whether its action is taken; each role's notes and events."""

    def __init__(self, session: TaskSession, item_root: Path, rung: Rung, codex: bool):
        self.session = session
        self.checkpoint_words = CHECKPOINT_WORDS if codex else CHECKPOINT  # VISTA's, by backend
        self.roles = len(session.roles)
        self.playing = len(session.steps) % self.roles  # every turn is one step (a restored task: the next role)
        self.acted = False
        self.notes = [Notes(item_root / context(k), NOTE_PURPOSES) if rung.notes else None for k in range(self.roles)]
        self.listeners: list[Callable[[int], None]] = []  # told each new turn's role (the tools it serves)
        self.handoffs: list[HandoffState] | None = None  # each role's (--context handoff:N, handoff:cli)
        if rung.handoff_tokens is not None or rung.handoff_at_cli:
            ask = handoff_request("vista")
            self.handoffs = [
                HandoffState(rung.handoff_tokens, at_cli=rung.handoff_at_cli, ask=ask) for _ in range(self.roles)
            ]
        self.checkpointing = False  # the playing role's session is saving its notes
        self.fresh = [False] * self.roles  # the role's next turn is a fresh session (it saved its checkpoint)

    def handoff(self) -> HandoffState | None:
        """The playing role's (the engine's reports of the context go to it)."""
        return self.handoffs[self.playing] if self.handoffs is not None else None

    def turn_over(self) -> bool:
        """Asked as each model request begins: the turn's action is in it (the task going on)."""
        return self.acted and self.session.over is None

    def begin(self) -> int:
        """The next turn: the role after the last step's."""
        self.playing, self.acted = len(self.session.steps) % self.roles, False
        for listener in self.listeners:
            listener(self.playing)
        return self.playing


class RoleEvents:
    """One role's events as VISTA's TaskContext records them (an event never changes once made)."""

    def __init__(self, session: TaskSession, role: int, turns: RoleTurns, step_event: Callable[..., Event]):
        self.session, self.role, self.turns = session, role, turns
        self.step_event = step_event  # a step as VISTA's event (game_server.step_event)

    def screen(self, frame: int) -> ArchivedPngs:
        """One archived screen, read when it is looked at."""
        return ArchivedPngs(self.session.archive, (frame,))

    def __call__(self) -> list[Event]:
        session, steps = self.session, list(self.session.steps)
        events = [Event(None, session.item.task_def.prompt, True, self.screen(session.start_frame))]
        seen = session.start_frame
        for number, step in enumerate(steps, 1):
            if step.role != self.role:
                continue
            if step.seen is not None and step.seen != seen:  # its turn began on another role's screen
                events.append(Event(None, "", True, self.screen(step.seen)))
            events.append(self.step_event(step, number == len(steps) and session.over is not None, session.archive))
            seen = step.frame
        if self.turns.playing == self.role and not self.turns.acted and session.last_frame() != seen:
            events.append(Event(None, "", True, self.screen(session.last_frame())))
        return events


def next_turn(turns: RoleTurns, redirects: bool):
    """ItemSetup.next_session under isolated roles: the session that just ended was the playing role's turn (or its
    checkpoint)."""

    def go_on(ran_out_of_context: bool) -> Continuation | None:
        session = turns.session
        if session.over:
            return None
        role, handoff = turns.playing, turns.handoff()
        if turns.checkpointing:  # its notes saved: its next turn is a fresh session's
            turns.checkpointing, turns.fresh[role] = False, True
        elif ran_out_of_context:  # the same role goes on in a fresh session, told VISTA's recovery words
            return recovered(turns, role, "hand-off: the CLI ran out of context")
        elif not turns.acted:  # a final reply: a step with nothing sent (VISTA), or the task's end (ours)
            if not redirects:
                return None
            session.act(role, None, "none")
            if session.over:
                return None
        if handoff is not None and handoff.stop_now() is not None:  # its context passed the point this turn
            turns.checkpointing, turns.acted = True, False
            going_on = turn_of(turns, role, turns.checkpoint_words)
            going_on.images = going_on.note_images = []
            going_on.reason = f"checkpoint of role {role}: {handoff.reason}"
            return going_on
        role = turns.begin()
        if turns.fresh[role]:
            turns.fresh[role] = False
            assert turns.handoffs is not None
            reason = turns.handoffs[role].next_reason(False) or "hand-off"
            turns.handoffs[role].begin()
            return recovered(turns, role, f"{reason} (role {role})")
        return turn_of(turns, role, SCREEN_WORDS)

    return go_on


def as_role(turns: RoleTurns, role: int, going_on: Continuation) -> Continuation:
    """A continuation in the role's own context, with its own objective."""
    item = turns.session.item
    going_on.context = context(role)
    going_on.system_fields = {"objective": vista_objective(item.game, item.task_def.prompt, role)}
    return going_on


def recovered(turns: RoleTurns, role: int, reason: str) -> Continuation:
    """A fresh session of the role, told VISTA's recovery words, its notes and the current screen."""
    return as_role(turns, role, vista_continuation(turns.session, "", turns.notes[role], reason, words=True))


def turn_of(turns: RoleTurns, role: int, words: str) -> Continuation:
    """A role's turn: its session continued with the words and the current screen."""
    screen = [turns.session.archive.path(turns.session.last_frame())]
    going_on = Continuation(note=words, prompt=words, images=screen, reason=f"turn of role {role}", resume=True)
    going_on.note_images = screen
    return as_role(turns, role, going_on)


def turns_for(session: TaskSession, rung: Rung, item_root: Path, codex: bool = False) -> RoleTurns | None:
    """The turns of a game of several roles under --roles isolated; None otherwise (ItemError where VISTA's act, one
    role's, would have to serve several)."""
    if len(session.roles) == 1:
        return None
    if rung.roles != "isolated":
        if rung.act_schema == "vista":
            raise ItemError(
                f"{session.item.id}: this game has {len(session.roles)} roles and VISTA's act is one role's: give "
                "--roles isolated (each role its own session, as VISTA plays it) or --act-schema ours"
            )
        return None
    return RoleTurns(session, item_root, rung, codex)


def isolated_setup(turns: RoleTurns, rung: Rung, first_words: str, served: Served, readonly: list) -> ItemSetup:
    """The item's sessions under isolated roles: the playing role's first, then one a turn (next_turn)."""
    session, playing = turns.session, turns.playing
    restored = None
    if session.steps:  # the harness restarted: the role on turn goes on, told VISTA's recovery words
        restored = turn_of(turns, playing, f"{RECOVERY_WORDS}\n\n{SCREEN_WORDS}")
        restored.images = restored.note_images

    def playing_handoff(report: str) -> Callable:
        """An engine report of the context, for the playing role's hand-off."""
        return lambda *given: getattr(turns.handoff(), report)(*given) if turns.handoff() is not None else None

    hands_off = turns.handoffs is not None
    return ItemSetup(
        prompt=first_words,
        tools=served.tools,
        inline_images=[session.archive.path(session.last_frame())] if not session.steps else [],
        endpoints=served.endpoints,
        readonly_mounts=readonly,
        continuation=restored,
        next_session=next_turn(turns, rung.final_answer == "redirect"),
        max_sessions=2 * session.max_steps * turns.roles + 2,  # a turn a step, each redirect a turn of its own
        system_fields={"objective": vista_objective(session.item.game, session.item.task_def.prompt, playing)},
        context=context(playing),
        turn_over=turns.turn_over,
        on_context=playing_handoff("context_seen") if hands_off else None,
        cli_compaction=not hands_off,
        on_compaction_point=playing_handoff("compaction_point") if hands_off and rung.handoff_at_cli else None,
    )
