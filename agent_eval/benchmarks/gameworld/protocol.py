"""How turns go, by protocol (rung.py), and what each agent session is told. The official protocol is GameWorld's
computer-use baseline (agents/harness/memory.py: two rounds kept): every decision a fresh CLI session shown the
task, the role's two preceding steps and the current screen, calling the action tool once (none: GameWorld's "No
function call parsed", a step with nothing sent); with several roles the decisions take them in turn, as VISTA's
driver does. VISTA's protocol is one continuous session, a step a call, with the notes and the hand-off at a context
size (games/handoff.py) as for the other game kinds."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from agent_eval.benchmarks.base import Continuation
from agent_eval.benchmarks.games.browser.kind import vista_recovery
from agent_eval.benchmarks.games.frames import FRAMES_DIR, frame_name
from agent_eval.benchmarks.gameworld.actions import describe_action
from agent_eval.benchmarks.gameworld.catalog import GameDef
from agent_eval.benchmarks.gameworld.records import Step
from agent_eval.benchmarks.gameworld.rung import OFFICIAL_MEMORY, Rung
from agent_eval.benchmarks.gameworld.session import TaskSession
from agent_eval.benchmarks.notes import Notes

# VISTA's words (src/vista/benchmarks/gameworld/profiles.py PromptBundle, session.py RoleSession._act), said with
# --task-prompt vista and --final-answer redirect
SCREEN_WORDS = "Game screen:\n"
NO_ACTION_WORDS = "No valid action was executed. Final game screen."
RECOVERY_WORDS = (
    "Continue this same role and task from GUIDE, WORKING, and the supplied current visual. The game has not been "
    "reset by this context handoff. Reconcile the notes with the current screen."
)
DECISION_OVER = "This decision is over: reply with <answer>DONE</answer> now; your next decision is a new turn."
HANDOFF = (
    "Bring your notes up to date now (write_note: GUIDE.md, WORKING.md), then stop and reply with "
    "<answer>HANDOFF</answer>: a fresh session goes on with this task from your notes."
)


def role_text(game: GameDef, role: int | None, rung: Rung) -> str:
    """The role(s) and controls as the catalog words them; the semantic interface lists the role's controls."""
    indices = range(len(game.roles)) if role is None else [role]
    parts = []
    for index in indices:
        spec = game.roles[index]
        head = f"Role {index} ({spec.name})" if len(game.roles) > 1 else ""
        if rung.interface == "semantic":
            controls = "\n".join(
                f"- `{c.id}`: {c.description.strip()}" + (f" (required: {', '.join(c.required)})" if c.required else "")
                for c in spec.semantic_controls
            )
            body = [spec.role_section.strip(), f"Your controls (the `control` tool's `name`):\n{controls}"]
        else:
            body = [spec.role_section.strip(), spec.controls_section.strip()]
        parts.append("\n\n".join(p for p in [head, *body] if p))
    where = (
        f"Screen coordinates are pixels of the {game.width}x{game.height} screen, x to the right and y down from "
        "its top-left corner."
    )
    return "\n\n".join(parts) + ("\n\n" + where if rung.interface == "computer-use" else "")


def protocol_text(rung: Rung, game: GameDef, max_steps: int) -> str:
    act = f"`{rung.act_tool}`"
    clock = "The game runs while you think." if rung.realtime else "The game waits while you decide."
    roles = (
        f" This game has {len(game.roles)} roles; the decisions take them in turn, each told which role it plays."
        if len(game.roles) > 1 and rung.protocol == "official"
        else f" This game has {len(game.roles)} roles: give `role` with each call."
        if len(game.roles) > 1
        else ""
    )
    if rung.protocol == "official":
        return (
            f"Each of your turns is one decision: you are shown the current screen and, from the second decision on, "
            f"your two preceding steps (the screens you decided them on, their actions and your reasons). Call {act} "
            f"exactly once with one action, saying why in its `reasoning`; then reply with <answer>DONE</answer>. "
            f"{clock} The task allows {max_steps} steps.{roles}"
        )
    return (
        f"Call {act} to take one action at a time; each call returns the screen after it (the first screen is "
        f"attached). {clock} The task allows {max_steps} steps.{roles} When {act} says the task has ended or the "
        f"budget is spent, stop and reply with <answer>DONE</answer>."
    )


def vista_objective(game: GameDef, task_prompt: str, role: int | None = None) -> str:
    """VISTA's objective for the task (computer_use.py objective): the game's rules, the task's prompt, then the
    role as "Role N: name" with its role and controls sections. VISTA gives each role a session of its own with its
    own role's text (`role`, --roles isolated); one session playing every role is told them all."""
    roles = [
        "\n".join(p for p in (f"Role {n}: {r.name}", r.role_section.strip(), r.controls_section.strip()) if p)
        for n, r in enumerate(game.roles)
        if role is None or n == role
    ]
    return "\n\n".join(p for p in (game.rules.strip(), task_prompt.strip(), *roles) if p)


def base_prompt(template_text: str, session: TaskSession, rung: Rung, role: int | None) -> str:
    task, game = session.item.task_def, session.item.game
    memory = "those this decision was shown" if rung.protocol == "official" else "every screen of the task"
    return (
        template_text.replace("{game_rules}", game.rules.strip() or "(none given)")
        .replace("{role}", role_text(game, role, rung))
        .replace("{task}", task.prompt.strip())
        .replace("{protocol}", protocol_text(rung, game, session.max_steps))
        .replace("{memory}", memory)
        .replace("{frames_dir}", FRAMES_DIR)
        .strip()
        + "\n"
    )


class Decisions:
    """The official protocol's turns: which decision and role is on, what it is shown, and the next one."""

    def __init__(self, session: TaskSession, template_text: str, rung: Rung, window: Path | None = None):
        self.session = session
        self.template = template_text
        self.rung = rung
        self.window = window  # python mode: the folder bound into the workdir, holding this decision's screens
        self.decision = max((s.decision for s in session.steps if s.decision is not None), default=0) + 1
        self.acted = False
        self._mirror()

    @property
    def role(self) -> int:
        return (self.decision - 1) % len(self.session.roles)

    def memory(self) -> list[Step]:
        """The role's preceding steps this decision is shown (GameWorld keeps two rounds)."""
        return [s for s in self.session.steps if s.role == self.role][-OFFICIAL_MEMORY:]

    def shown(self) -> list[int]:
        """The screens this decision is shown, in order: those its memory steps were decided on, then the current."""
        frames = [s.seen for s in self.memory() if s.seen is not None]
        return list(dict.fromkeys([*frames, self.session.last_frame()]))

    def _mirror(self) -> None:
        """The window made to hold exactly this decision's screens (python mode: the shell sees those it was shown,
        not the whole archive), each file complete before its name appears."""
        if self.window is None:
            return
        self.window.mkdir(parents=True, exist_ok=True)
        numbers = self.shown()
        wanted = {frame_name(n) for n in numbers}
        for present in self.window.iterdir():
            if present.name not in wanted:
                present.unlink()
        for number in numbers:
            if not (self.window / frame_name(number)).exists():
                tmp = self.window / f".{frame_name(number)}.tmp"
                shutil.copyfile(self.session.archive.path(number), tmp)
                os.replace(tmp, self.window / frame_name(number))

    def prompt(self) -> tuple[str, list[Path]]:
        """The decision's message and its images (the memory steps' screens, then the current one)."""
        text = base_prompt(self.template, self.session, self.rung, self.role).rstrip()
        frames = self.shown()
        lines = []
        for step in self.memory():
            image = f"image {frames.index(step.seen) + 1}" if step.seen in frames else "no screen"
            did = describe_action(step.action) if step.action else f"nothing was sent ({step.invalid})"
            reason = f"; your reason: {step.reasoning.strip()}" if step.reasoning and step.reasoning.strip() else ""
            lines.append(f"- step {step.role_step} ({image} is the screen you decided it on): {did}{reason}")
        if len(self.session.roles) > 1:
            text += f"\n\nThis decision plays role {self.role} ({self.session.roles[self.role].name})."
        if lines:
            text += "\n\nYour preceding steps (oldest first):\n" + "\n".join(lines)
        text += (
            f"\n\nThe current screen is image {len(frames)} (screen {frames[-1]}). This is decision {self.decision}."
        )
        return text + "\n", [self.session.archive.path(n) for n in frames]

    def continuation(self, reason: str) -> Continuation:
        text, images = self.prompt()
        note = f"The evaluation harness was restarted; the task was restored exactly as it was.\n\n{text}"
        return Continuation(note=note, prompt=text, images=images, reason=reason, fresh=True)

    def next(self, ran_out_of_context: bool) -> Continuation | None:
        """The decision's session ended: a step with nothing sent when it made no call (GameWorld's rule), then the
        next decision's session, or None when the task is over."""
        if not self.acted and not self.session.over:
            self.session.act(self.role, None, "none", decision=self.decision)
        if self.session.over:
            return None
        self.decision += 1
        self.acted = False
        self._mirror()
        return self.continuation(f"decision {self.decision} (GameWorld's protocol: a fresh turn per step)")


def vista_continuation(
    session: TaskSession,
    prompt: str,
    notes: Notes | None = None,
    reason: str = "harness restarted",
    words: bool = False,
) -> Continuation:
    """What VISTA's next session is told of a task that goes on: after a restart of the harness (the task
    replayed; the last step's result, since the call in flight is answered from the record, not taken twice), or
    after a hand-off. Where the task stands, the notes, the current screen. With VISTA's words (--task-prompt
    vista): its recovery text, the notes and the screen, never the steps."""
    kept = f"Your notes as the earlier session left them:\n\n{notes.as_prompt()}" if notes is not None else ""
    frame = session.archive.path(session.last_frame())
    if words:
        return vista_recovery(RECOVERY_WORDS, SCREEN_WORDS, kept, frame, reason)
    last = session.steps[-1] if session.steps else None
    where = f"{len(session.steps)} step(s) taken, {session.steps_left()} left"
    played = ""
    if last is not None:
        did = describe_action(last.action) if last.action else "nothing (an invalid action)"
        played = f" Your last step before the interruption was {did} (step {last.role_step}); it was taken."
    note = (
        "The evaluation harness was restarted and your session interrupted; the task was restored exactly as it "
        f"was: {where}.{played} The current screen is attached. Go on playing."
    )
    if reason.startswith("hand-off"):
        earlier = "an earlier session of yours played it and handed it on (its context was full)"
    else:
        earlier = "an earlier session played it and was interrupted, and the task was restored exactly as it was"
    fresh = (
        f"{prompt.rstrip()}\n\nThis task is already in progress: {earlier}; {where}.{played} The current screen "
        "is attached. Go on from here."
    )
    fresh += f"\n\n{kept}" if kept else ""
    return Continuation(note=note, prompt=fresh + "\n", images=[frame], reason=reason)
