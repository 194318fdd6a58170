"""The `game` MCP server of an AI GameStore item, served from the harness process (the page and its frames stay
outside the sandbox); the score is never said. Ours: `play` and `restart`, from mode image up the looks and
`history`, the notes when kept (the official protocol's moves come from the agent's reply: it gets the looks and
notes only). VISTA's (`--game-tools vista`): its `play` and `restart` in its words (src/vista/benchmarks/aigamestore/
profiles.py action_specs, session.py _play, _restart, _reply; MIT), then its task tools over the game's events:
event 0 the start screen, one event a decision; no decision count is said, only that the game seconds are spent."""

from __future__ import annotations

import json
from typing import Annotated

from jsonschema import Draft202012Validator
from mcp.server.mcpserver import Image, MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from agent_eval.benchmarks.aigamestore.protocol import INPUTS, SEGMENTS, BadSegments, checked_segments
from agent_eval.benchmarks.aigamestore.session import ENDED, GameStoreSession, PlayRefused
from agent_eval.benchmarks.games.browser import vista_play
from agent_eval.benchmarks.games.frames import ArchivedPngs
from agent_eval.benchmarks.games.handoff import HandoffState, within_image_cap
from agent_eval.benchmarks.games.protocol import UNSEEN, ObservationGate
from agent_eval.benchmarks.games.tools import (
    MAX_RECALL,
    FrameLooks,
    Functions,
    inspect_text,
    look_functions,
    note_tools,
    read_pixels_text,
    recalled,
    refusing,
    served,
)
from agent_eval.benchmarks.games.vista.events import Event
from agent_eval.benchmarks.games.vista.mcp import ACTS, answer, schema_object, vista_tool
from agent_eval.benchmarks.notes import Notes

PLAY_TOOLS = ("play", "restart")
LOOK_TOOLS = ("recall", "inspect", "read_pixels", "history")
NOTE_TOOLS = ("read_notes", "write_note")
STOP = "Stop now: reply with <answer>DONE</answer>."
REFUSED = (PlayRefused, BadSegments)

PLAY = f"""Play exactly one second of the game. `segments`: exactly {SEGMENTS} lists, in time order, each the \
inputs of one 0.2-second segment. A tap (UP, DOWN, LEFT, RIGHT, SPACE, Z, SHIFT, W, A, S, D) presses the key at \
the segment's start; a HOLD_ input (HOLD_UP, ...) keeps it pressed for the whole segment; ["NOOP"] is a segment \
without input. NOOP beside other inputs is ignored; a key both tapped and held is held. The game is frozen \
between your calls: it runs for exactly this second, then pauses, and you get the frame at the end of each \
segment (five images). Costs one decision."""
RESTART = """Restart the game from its start screen; returns its first frame. Costs one decision. Use it after a \
game over or to abandon an attempt."""
RECALL = f"""Look again at archived frames: give `frames` (their numbers, at most {MAX_RECALL}) or `decision` (all \
the frames of the n-th decision)."""
HISTORY = """The decisions so far, most recent last: each one's inputs, its episode (restarts start a new one) \
and the numbers of its frames."""

# VISTA's words: profiles.py PAPER_ROLE and objective(), event 0's result, as VISTA records the task's initial input
OBJECTIVE = (
    "You are a professional video game player tasked to win a 2D video game. You will read the description of the "
    "game and controls and provide an output for the next 5 actions, each covering 0.2 seconds of play. You are "
    "scored on the highest score reached at any point in the run, and you may restart as many times as you want, so "
    "keep playing until the run's game seconds are spent."
)
TAPS = ", ".join(sorted(a for a in INPUTS if a != "NOOP" and not a.startswith("HOLD_")))
HOLDS = ", ".join(sorted(a for a in INPUTS if a.startswith("HOLD_")))
VISTA_PLAY = (
    f"Play exactly one game second of this real-time game. Provide `segments`: exactly {SEGMENTS} chronological "
    "0.2-second segments, each a non-empty array of simultaneous inputs. Tap inputs press and release the named key "
    f"once at the start of the segment ({TAPS}); HOLD_ inputs keep the key pressed for the whole segment ({HOLDS}); "
    '["NOOP"] is a segment with no input. NOOP beside other inputs is ignored, and a key both tapped and held in one '
    "segment is held. The game is frozen between decisions: it runs for exactly the one second you specify, then "
    "pauses and returns the resulting frames. Input on an ended game does nothing; use restart instead."
)
VISTA_RESTART = (
    "Restart the game from its start screen and pause it at its first frame. Costs one game second. Use it after a "
    "game over or to abandon the current attempt; the run continues until its game seconds are spent."
)
PLAY_SCHEMA = schema_object(
    {
        "segments": {
            "type": "array",
            "minItems": SEGMENTS,
            "maxItems": SEGMENTS,
            "description": f"Exactly {SEGMENTS} segments in time order, each covering 0.2 seconds.",
            "items": {
                "type": "array",
                "minItems": 1,
                "description": "Simultaneous inputs for one segment; at least one entry. A repeated input counts once.",
                "items": {"type": "string", "enum": sorted(INPUTS)},
            },
        }
    },
    ["segments"],
)
PLAYED = "The game ran for one game second and is paused."
RESTARTED = "The game restarted and is paused at its first frame."
ENDED_WORDS, SPENT = " The game has ended.", " The run's game seconds are spent."
AFTER_THE_END = "Call restart to begin a new attempt."


def move_json(session: GameStoreSession, move, handoff: HandoffState | None = None, tell_steps: bool = True) -> dict:
    """What the model is told of a move: never the score (it reads the game's own display); the decision and the
    decisions left unless the run keeps them from it (--tell-steps off, VISTA's host_action_count false)."""
    shown: dict = {}
    if tell_steps:
        shown = {"decision": move.decisions, "decisions_left": max(0, session.budget.decisions - move.decisions)}
    shown |= {"episode": move.episode, "frames": move.frames}
    if session.ended:
        shown["note"] = "the game has ended: call restart to begin a new attempt (it costs a decision)"
    if session.over:
        shown["stop"] = f"{session.over}. {STOP}"
    elif handoff is not None and (due := handoff.stop_now()):
        shown["stop"] = due
    return shown


def tool_functions(
    session: GameStoreSession,
    notes: Notes | None = None,
    handoff: HandoffState | None = None,
    tell_steps: bool = True,
    gate: ObservationGate | None = None,
) -> Functions:
    looks = FrameLooks(session.archive)

    def moved(count: int, make_move, shown: slice) -> list:
        """A move and its frames[shown] (`count` images), unless the agent must hand off or has not seen the last."""

        def move():
            if handoff is not None and handoff.told:
                raise PlayRefused(f"No move made: {handoff.ask}")
            if gate is not None and (blind := gate.refuses()):
                raise PlayRefused(blind)
            made = make_move()
            if gate is not None:
                gate.acted(True)  # its frames are on their way to the model
            return made

        def act() -> list:
            made = refusing(REFUSED, move)
            pngs = [Image(data=session.archive.png(n), format="png") for n in made.frames[shown]]
            return [json.dumps(move_json(session, made, handoff, tell_steps)), *pngs]

        return within_image_cap(handoff, count, act)

    def play(
        segments: Annotated[
            list[list[str]],
            Field(
                description=f"Exactly {SEGMENTS} segments, each a non-empty list of inputs from: {', '.join(INPUTS)}."
            ),
        ],
    ) -> list:
        return moved(SEGMENTS, lambda: session.play(checked_segments(segments)), slice(None))  # a frame a segment

    def restart() -> list:
        return moved(1, session.restart, slice(-1, None))

    def recall(
        frames: Annotated[list[int] | None, Field(description="Frame numbers.")] = None,
        decision: Annotated[int | None, Field(description="A decision's number: all its frames.")] = None,
    ) -> list:
        def look():
            if (frames is None) == (decision is None):
                raise PlayRefused("give either `frames` or `decision`")
            if frames is not None:
                return recalled(looks, list(frames))
            chosen = [m for m in session.moves if m.kind != "start" and m.decisions == decision]
            if not chosen:
                raise PlayRefused(f"no decision {decision!r}: decisions so far are 1-{session.decisions}")
            return recalled(looks, list(chosen[-1].frames))

        return within_image_cap(handoff, len(frames or []) or 1, lambda: refusing(REFUSED, look))

    def history(last: Annotated[int, Field(description="How many of the latest moves, 1-200.")] = 20) -> str:
        lines = []
        for move in session.moves[-max(1, min(200, int(last))) :]:
            what = json.dumps(move.segments) if move.kind == "play" else move.kind
            frames = f"{move.frames[0]}-{move.frames[-1]}" if len(move.frames) > 1 else ",".join(map(str, move.frames))
            lines.append(f"decision {move.decisions} · episode {move.episode} · {what} · frames {frames or '-'}")
        return "\n".join(lines) or "no move yet"

    inspect, read_pixels = look_functions(looks, handoff, REFUSED, "frame")
    return {
        "play": (play, PLAY),
        "restart": (restart, RESTART),
        "recall": (recall, RECALL),
        "inspect": (inspect, inspect_text("frame")),
        "read_pixels": (read_pixels, read_pixels_text("frame", "game")),
        "history": (history, HISTORY),
        **note_tools(notes, lambda: {"actions_used": session.decisions}),
    }


def offered(protocol: str, mode: str, notes: bool) -> tuple[str, ...]:
    """The game tools a protocol offers in a tool mode."""
    plays = PLAY_TOOLS if protocol == "vista" else ()
    return (*plays, *(LOOK_TOOLS if mode in ("image", "python") else ()), *(NOTE_TOOLS if notes else ()))


# -- VISTA's tools (--game-tools vista)


def vista_event(session: GameStoreSession, number: int) -> Event:
    """The game's n-th event as VISTA records it, from the moves (so a restored game has the same)."""
    move = session.moves[number]
    frames = ArchivedPngs(session.archive, move.frames)  # read when looked at, not copied
    if move.kind == "start":
        return Event(None, OBJECTIVE, True, frames)
    arguments = {"segments": move.segments} if move.kind == "play" else {}
    return Event({"name": move.kind, "arguments": arguments}, vista_words(session, move)[0], True, frames)


def vista_words(session: GameStoreSession, move) -> tuple[str, str]:
    """(the event's words, the guidance after them) of a decision (session.py _play, _restart, _reply)."""
    event, guidance = (PLAYED if move.kind == "play" else RESTARTED), ""
    if move.kind == "play" and move.state.get("gamePhase") in ENDED:
        event, guidance = event + ENDED_WORDS, AFTER_THE_END
    if move.decisions >= session.budget.decisions:
        event, guidance = event + SPENT, ""
    return event, guidance


def vista_offered(mode: str, notes: bool, codex: bool = False) -> tuple[str, ...]:
    return vista_play.offered(PLAY_TOOLS, mode, notes, codex)


def vista_server(
    session: GameStoreSession,
    names: tuple[str, ...],
    notes: Notes | None = None,
    handoff: HandoffState | None = None,
    gate: ObservationGate | None = None,
) -> MCPServer:
    events = vista_play.vista_events(lambda n: vista_event(session, n), lambda: len(session.moves), notes, handoff)
    valid = Draft202012Validator(PLAY_SCHEMA)

    def decided(images: int, make_move) -> CallToolResult:
        def act() -> tuple[str, bool] | CallToolResult:
            if session.over:
                return answer(False, "The run has ended.")
            if handoff is not None and handoff.told:
                return answer(False, f"No game action was executed: {handoff.ask}")
            if gate is not None and gate.refuses():
                return answer(False, UNSEEN)
            try:
                event, guidance = vista_words(session, make_move())
            except REFUSED as why:
                return answer(False, str(why))
            if gate is not None:
                gate.acted(True)
            return event + (" " + guidance if guidance else ""), True

        return vista_play.acted(events, handoff, images, act)

    def play(arguments: dict) -> CallToolResult:
        if not valid.is_valid(arguments):
            return answer(False, "Invalid tool arguments.")
        return decided(SEGMENTS, lambda: session.play(checked_segments(arguments["segments"])))

    def restart(arguments: dict) -> CallToolResult:
        return answer(False, "Invalid tool arguments.") if arguments else decided(1, session.restart)

    own = {
        "play": vista_tool("play", VISTA_PLAY, PLAY_SCHEMA, ACTS, play),
        "restart": vista_tool("restart", VISTA_RESTART, schema_object({}), ACTS, restart),
    }
    return served({}, names, own | vista_play.task_tools(events, names, handoff))
