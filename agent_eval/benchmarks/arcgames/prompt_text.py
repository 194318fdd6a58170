"""What the prompt says of the game's tools, rendering and coordinates: never a tool the rung does not offer. The
templates (prompts/arcgames/<mode>.yaml) are written for the default rung, where a prompt is the template as it is;
each switch replaces the one passage it changes, found by the exact text the templates hold (a test checks it)."""

from __future__ import annotations

from agent_eval.benchmarks.arcgames.coordinates import Coordinates
from agent_eval.benchmarks.arcgames.ladder import NOTE_PURPOSES, Ladder
from agent_eval.benchmarks.notes import describe

LOOKING_START = "Every frame you are shown is kept and numbered:"
LOOKING_END = "These cost no actions."
CLICK = "ACTION6 is a click at x, y)"
OURS = {
    "recall": "`recall` shows earlier frames again (by number, or all the frames of a step)",
    "inspect": "`inspect` enlarges part of a frame with a coordinate grid",
    "read_pixels": "`read_pixels` gives the exact colour indices (0-15) of a region",
}
VISTA = {
    "inspect": "`inspect` shows the frames of any turn again, whole or a region of one enlarged, several labelled "
    "views in one call with the question they should answer",
    "read_pixels": "`read_pixels` samples the colours of the image as shown, in rows and columns over regions you "
    "choose",
    "history": "`history` gives the exact record of your actions and their results by turn, and your attempts at "
    "the current level",
}
VISTA_LOOKING = "Every frame you are shown is kept, by turn (turn N is the result of your N-th action{first}):"


def drawn(scale: int) -> str:
    return f"each game pixel drawn as a {scale}x{scale} square"


def _listed(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f", and {parts[-1]}"


def looking(offered: tuple[str, ...], ladder: Ladder, first_turn: bool) -> str:
    sentences = VISTA if ladder.vista else OURS
    parts = [sentences[name] for name in sentences if name in offered]
    if ladder.vista:
        start = VISTA_LOOKING.format(first=", turn 0 the game before your first action" if first_turn else "")
        return f"{start} {'; '.join(parts)}. {LOOKING_END}"
    return f"{LOOKING_START} {_listed(parts)}. {LOOKING_END}"


def notes_paragraph(ladder: Ladder) -> str:
    kinds = describe(NOTE_PURPOSES)
    if ladder.vista:
        tools = "read with `read_guide` and `read_working`, each replaced whole with `write_guide` and `write_working`"
    else:
        tools = "read with `read_notes` and replaced with `write_note`"
    scoped = (
        " WORKING.md is archived and emptied each time you complete a level." if ladder.working_scope == "level" else ""
    )
    return (
        f"You keep two notes, {tools}: {kinds}. They outlast this conversation: a later session of yours is given "
        f"them, and nothing else you wrote.{scoped}"
    )


def rung_prompt(prompt: str, offered: tuple[str, ...], ladder: Ladder, scale: int, first_turn: bool = False) -> str:
    start = prompt.find(LOOKING_START)
    if start >= 0:
        end = prompt.index(LOOKING_END, start) + len(LOOKING_END)
        if ladder.vista or not all(name in offered for name in OURS):
            prompt = prompt[:start] + looking(offered, ladder, first_turn) + prompt[end:]
    coordinates = Coordinates(ladder.coordinates, scale)
    if coordinates.display:
        prompt = prompt.replace(CLICK, f"{CLICK[:-1]} in {coordinates.words()})")
    if ladder.frame_grid:
        prompt = prompt.replace(
            drawn(scale), f"{drawn(scale)} with grid lines (the first row and column of each square darkened)"
        )
    return prompt
