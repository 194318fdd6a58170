"""What each agent session of one game is told, ours or VISTA's (`--task-prompt`, vista_prompts.py): the first
message, and that of a session going on with the game after a hand-off, an early stop or a restart of the harness
(every frame shown counted like any frame the model is shown)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from agent_eval.benchmarks.arcgames.frames import grid_text
from agent_eval.benchmarks.arcgames.ladder import Ladder
from agent_eval.benchmarks.arcgames.prompt_text import drawn, notes_paragraph, rung_prompt
from agent_eval.benchmarks.arcgames.session import GameSession
from agent_eval.benchmarks.arcgames.turns import initial_metadata
from agent_eval.benchmarks.arcgames.vista_prompts import first_prompt, vista_continuation
from agent_eval.benchmarks.base import Continuation
from agent_eval.benchmarks.games.frames import FRAMES_DIR
from agent_eval.benchmarks.games.protocol import Protocol
from agent_eval.benchmarks.games.recovery import STILL_ACTIVE
from agent_eval.benchmarks.notes import Notes

EARLIER = {  # who played the game before, by the reason a session goes on (a restart of the harness: "")
    "hand-off": "an earlier session of yours played it and handed it on (its context was full)",
    "early stop": "an earlier session of yours played it and stopped before the game was over",
    "": "an earlier session played it and was interrupted (its conversation could not be continued), and the game "
    "was restored exactly as it was",
}
FIRST_FRAME = (
    "The game's first frame, before any action, is given below with the game's state; the game is ready for your "
    "first action."
)


def ours_task(template_text: str, mode: str, ladder: Ladder, protocol: Protocol, scale: int, max_actions: int) -> str:
    """The mode's prompt with the run's budgets and what the rung changes (prompt_text.py); the templates are left
    as they are, so the image rung without notes asks exactly what earlier runs asked."""
    prompt = (
        template_text.replace("{max_actions}", str(max_actions))
        .replace("{scale}", str(scale))
        .replace("{frames_dir}", FRAMES_DIR)
        .replace("{start}", FIRST_FRAME if protocol.initial_frame else "Start with RESET.")
        .strip()
    )
    shown = drawn(scale)
    if ladder.observation == "text":
        prompt = prompt.replace(
            shown, "as text: one line per row, one hexadecimal digit 0-f (a colour index) per pixel"
        )
    elif ladder.observation == "both":
        prompt = prompt.replace(shown, f"{shown}, and as text (one hexadecimal digit 0-f per pixel, a colour index)")
    if ladder.level_actions is not None:
        prompt += (
            f"\n\nEach level also has an action budget of its own ({ladder.level_actions:g} times the actions a "
            f"person needed for it); `play` says how many are left on the current level."
        )
    if ladder.notes:
        prompt += f"\n\n{notes_paragraph(ladder)}"
    return rung_prompt(prompt, ladder.tools(mode), ladder, scale, protocol.initial_frame) + "\n"


class Telling:
    def __init__(
        self,
        session: GameSession,
        notes: Notes | None,
        ladder: Ladder,
        protocol: Protocol,
        scale: int,
        max_actions: int,
        template_text: str,
        mode: str,
    ):
        self.session, self.notes, self.ladder, self.scale = session, notes, ladder, scale
        self.vista = protocol.task_prompt == "vista"
        self.template_text = template_text
        # the task, before where the game stands
        self.task = "" if self.vista else ours_task(template_text, mode, ladder, protocol, scale, max_actions)

    # -- the first message

    def first(self) -> tuple[str, list[Path]]:
        session = self.session
        shown = session.first_observation() if not session.plays else None
        frame = session.last_frame_png() if shown and self.ladder.observation != "text" else None
        if shown is not None and self.ladder.observation in ("image", "both"):
            session.observed(images=1)
        attached = [frame] if frame is not None else []
        if self.vista:
            return first_prompt(self.template_text, initial_metadata(session, self.ladder, self.scale)), attached
        return self.task + self._first_observation(shown), attached

    def _first_observation(self, shown: dict | None) -> str:
        """The game's first observation after our task, its frame as text on the text rung (an image is attached)."""
        if shown is None:
            return ""
        if self.ladder.vista:  # VISTA's own metadata of turn 0 (its frame as a grid inside it, on the text rung)
            shown = initial_metadata(self.session, self.ladder, self.scale)
        text = f"\nCurrent observation (before any action):\n{json.dumps(shown)}\n"
        if self.ladder.observation in ("text", "both") and not self.ladder.vista:
            grid = grid_text(self.session.archive.load(shown["frames"][-1]))
            self.session.observed(text_chars=len(grid))
            text += f"\nFrame {shown['frames'][-1]}:\n{grid}\n"
        return text

    # -- a session that goes on

    def going_on(self, reason: str = "harness restarted", resume: bool = False) -> Continuation:
        """What the next session is told; `resume`: the same session goes on where the CLI can continue it."""
        if self.vista:
            return vista_continuation(self._record(), self.notes, reason, self._visual(), resume)
        told = continuation(self.session, self.task, self.notes, reason, self.ladder.observation)
        if resume:
            return replace(told, note=f"{STILL_ACTIVE} {self.session.progress_words()}.", resume=True)
        return told

    def _record(self) -> dict:
        from agent_eval.benchmarks.arcgames.vista_tools import VistaGame  # (the MCP SDK: loaded by then)

        return VistaGame(self.session, self.ladder, self.scale, self.notes).record()

    def _visual(self) -> Path | None:
        if self.ladder.observation not in ("image", "both"):
            return None
        frame = self.session.last_frame_png()
        if frame is not None:
            self.session.observed(images=1)
        return frame


def continuation(
    session: GameSession,
    prompt: str,
    notes: Notes | None = None,
    reason: str = "harness restarted",
    observation: str = "image",
) -> Continuation:
    """What the next session is told of a game that goes on (the harness restarted: the call in flight is answered
    from the record, not played again; or a hand-off): where it stands, the notes, the last frame in the rung's form."""
    last = session.plays[-1] if session.plays else None
    number = session.last_frame_number()
    frame = session.last_frame_png() if number is not None and observation in ("image", "both") else None
    grid = grid_text(session.archive.load(number)) if number is not None and observation in ("text", "both") else ""
    session.observed(images=1 if frame is not None else 0, text_chars=len(grid))
    played = ""
    if last is not None:
        played = (
            f" Your last play call before the interruption was {last.action}"
            + (f" at ({last.x}, {last.y})" if last.x is not None else "")
            + f" (step {last.step}); it was taken: state {last.state}, frames {last.frames}."
        )
    shown = " Its frame is attached." if frame is not None else ""
    if grid:
        shown += f" Its frame {number} as text (one hexadecimal digit, a colour index, per pixel) is below."
    where = f"The game stands at: {session.progress_words()}."
    below = f"\n\nFrame {number}:\n{grid}" if grid else ""
    note = (
        "The evaluation harness was restarted and your session interrupted; the game was restored exactly as it "
        f"was. {where}{played}{shown} Go on playing.{below}"
    )
    earlier = next((words for start, words in EARLIER.items() if reason.startswith(start)), EARLIER[""])
    fresh = f"{prompt.rstrip()}\n\nThis game is already in progress: {earlier}. {where}{played}{shown} Go on from here."
    fresh += below
    if notes is not None:
        fresh += f"\n\nYour notes as the earlier session left them:\n\n{notes.as_prompt()}"
    images: list[Path] = [frame] if frame is not None else []
    return Continuation(note=note, prompt=fresh + "\n", images=images, reason=reason)
