"""What the next agent session is told of a game that goes on, after a hand-off (handoff.py) or a restart of the
harness: where the game stands, the notes, and the last frame in the rung's form (an image, its colour indices as
text, or both), counted like any frame the model is shown."""

from __future__ import annotations

from pathlib import Path

from agent_eval.benchmarks.arcgames.frames import grid_text
from agent_eval.benchmarks.arcgames.session import GameSession
from agent_eval.benchmarks.base import Continuation
from agent_eval.benchmarks.notes import Notes


def continuation(
    session: GameSession,
    prompt: str,
    notes: Notes | None = None,
    reason: str = "harness restarted",
    observation: str = "image",
) -> Continuation:
    """What the next session is told of a game that goes on: after a restart of the harness (the game restored;
    the last play's result, as the call in flight when the harness stopped is answered from the record, not
    played again), or after a hand-off (the context was full). Where the game stands, the notes, and the last
    frame as the rung shows frames (`observation`: attached as an image, given as text, or both); what it shows is
    counted in the session's observations, as the tools' frames are."""
    last = session.last_play()
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
    if reason.startswith("hand-off"):
        earlier = "an earlier session of yours played it and handed it on (its context was full)"
    else:
        earlier = (
            "an earlier session played it and was interrupted (its conversation could not be continued), and the "
            "game was restored exactly as it was"
        )
    fresh = f"{prompt.rstrip()}\n\nThis game is already in progress: {earlier}. {where}{played}{shown} Go on from here."
    fresh += below
    if notes is not None:
        fresh += f"\n\nYour notes as the earlier session left them:\n\n{notes.as_prompt()}"
    images: list[Path] = [frame] if frame is not None else []
    return Continuation(note=note, prompt=fresh + "\n", images=images, reason=reason)
