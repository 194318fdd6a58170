"""AI GameStore's official baseline (lance-ying/aigamestore_harness, run_llm_eval.py): each decision a fresh CLI
session told only the game's description and controls, the scratchpad and inputs of its last reply and its last
decision's frames; the reply's `<keys>` (five segments, protocol.reply_segments) are played. The wording is ours,
the format (three tags, five lists, the scratchpad carried forward) the harness's; its first sentence is quoted
from the harness's prompts/prompt.md, as VISTA (MIT) quotes it."""

from __future__ import annotations

from pathlib import Path

from agent_eval.benchmarks.aigamestore.loader import GameItem
from agent_eval.benchmarks.aigamestore.protocol import KEYS, reply_scratchpad, reply_segments
from agent_eval.benchmarks.aigamestore.session import GameStoreSession
from agent_eval.benchmarks.base import Continuation

ROLE = "You are a professional video game player tasked to win a 2D video game."
LOOKS = (
    "Every frame of the game so far is kept and numbered: `recall` shows frames again (by number, or all of a "
    "decision's), `inspect` enlarges part of a frame with a grid, `read_pixels` reads its colours and `history` "
    "lists the decisions. They cost no game time."
)
OUTPUT = f"""**Output:**
1. A brief reasoning for your inputs (fewer than 10 sentences).
2. Exactly 5 lists of inputs, one per 0.2-second segment of the next game second, in order. A segment is ["NOOP"] \
(no input), one input like ["UP"], or several at once like ["UP", "LEFT"]. Taps ({", ".join(KEYS)}) press the key \
once at the segment's start; HOLD_ inputs (HOLD_UP, HOLD_LEFT, ...) keep it pressed for the whole segment. When \
the game has ended, the harness restarts it for you before your inputs.
3. A scratchpad: your understanding of the game, your plan and what you have observed. It is given back to you \
in the next request; nothing else of this reply is.

Format your reply exactly as follows:
<rationale>
[your reasoning]
</rationale>
<keys>
[["UP"], ["UP", "SPACE"], ["NOOP"], ["HOLD_UP"], ["DOWN"]]
</keys>
<scratchpad>
[your scratchpad]
</scratchpad>
"""


def last_scratchpad(session: GameStoreSession) -> str | None:
    return next((m.scratchpad for m in reversed(session.moves) if m.scratchpad is not None), None)


def decision_images(session: GameStoreSession) -> list[Path]:
    """The frames a decision's request attaches: the last move's (five after a play; one after the start)."""
    return session.frame_paths(session.moves[-1].frames if session.moves else [])


class OfficialTurns:
    """The official protocol's loop: each reply is played (on_reply), each decision a fresh session."""

    def __init__(self, item: GameItem, session: GameStoreSession, mode: str, notes_text=lambda: ""):
        self.item, self.session, self.mode, self.notes_text = item, session, mode, notes_text
        self.failed = False  # a session that ended without any reply (the CLI failed): the attempt ends

    def prompt(self) -> str:
        """The next decision's request: the game, the last reply's scratchpad and inputs, the frames, the format."""
        item, session, notes_text = self.item, self.session, self.notes_text()
        last = session.moves[-1] if session.moves else None
        scratchpad = last_scratchpad(session)
        parts = [
            f"{ROLE} You read the game's description and controls and give the inputs for the next second of play.",
            f"Game description:\n{item.description or '(none given)'}",
            "Game controls (as written for a person; you act through the inputs below):\n"
            + (item.controls or "(none given)"),
        ]
        if scratchpad:
            parts.append(f"<scratchpad>\n{scratchpad}\n</scratchpad>")
        if last is not None and last.kind == "play":
            parts.append(f"Previous inputs applied: {last.segments}")
            shown = (
                f"The {len(last.frames)} attached images are the frames at the end of each 0.2-second segment of "
                f"your last decision (frames {last.frames[0]}-{last.frames[-1]}); the last one is the game now, paused "
                "while you answer."
            )
        else:
            shown = "The attached image is the game now (its first frame), paused while you answer."
        parts.append(f"This is decision {session.decisions + 1} of {session.budget.decisions}. {shown}")
        if self.mode in ("image", "python"):
            parts.append(LOOKS)
        if notes_text:
            parts.append(notes_text)
        return "\n\n".join(parts) + "\n\n" + OUTPUT

    def on_reply(self, text: str | None) -> None:
        if text is None or self.session.over:
            self.failed = text is None
            return
        segments, problem = reply_segments(text)
        scratchpad = reply_scratchpad(text, last_scratchpad(self.session))
        try:
            self.session.play(segments, via="reply", problem=problem, scratchpad=scratchpad)
        except Exception:  # the game failed: the session says so in its result; the attempt ends
            self.failed = True

    def next_session(self, ran_out_of_context: bool) -> Continuation | None:
        if self.failed or self.session.over:
            return None
        return self.continuation(reason=f"decision {self.session.decisions + 1}")

    def continuation(self, reason: str = "harness restarted") -> Continuation:
        prompt = self.prompt()
        return Continuation(note=prompt, prompt=prompt, images=decision_images(self.session), reason=reason, fresh=True)
