"""VISTA's ladder on ARC-AGI-3, as switches of a games run (each a kind option, so in the run's identity):
(i) observations as images or as text grids, (ii) action limits (per game, and per level as a multiple of its
human baseline), (iv) notes, (v) memory of every frame with inspection, (vi) exact pixel readout. Rung (iii),
the context policy (`--context`): `native`, the CLI compacts its own context, or `handoff:N`, the CLI's compaction
off and, once the model's context reaches N tokens, the agent asked to bring its notes up to date and stop, and
a fresh session given them (rung iv's hand-off), or `handoff:cli`, the same hand-off at the CLI's own compaction
point (the CLI's compaction blocked there: context_policy.py); and `--session-images N`, a hand-off before the N-th
image of one session (VISTA's 600). `tools()` is the exact tool set a rung offers."""

from __future__ import annotations

from dataclasses import dataclass

OBSERVATIONS = ("image", "text", "both")
SWITCH = ("on", "off")
MEMORY_TOOLS = ("recall", "inspect")  # rung (v): every frame kept, looked at again as the model directs
PIXEL_TOOLS = ("read_pixels",)  # rung (vi)
NOTE_TOOLS = ("read_notes", "write_note")  # rung (iv)
CLI_POINT = "handoff:cli"  # --context: the hand-off where the CLI itself would compact
NOTE_PURPOSES = {  # what each of the agent's notes is for, on a game (nothing of how to play)
    "GUIDE.md": "what the game is: its rules, goal and controls as you have found them; kept across levels",
    "WORKING.md": "the current level: its state, what you tried and your plan",
}


@dataclass(frozen=True)
class Ladder:
    observation: str = "image"  # what play returns: the frame drawn, its colour indices as text, or both
    pixel_readout: bool = True  # read_pixels offered beside recall and inspect (modes image and python)
    notes: bool = False  # GUIDE.md and WORKING.md through read_notes / write_note, in every mode
    level_actions: float | None = None  # each level bounded at ceil(baseline x this) actions; None: no bound
    handoff_tokens: int | None = None  # --context handoff:N; None: native (the CLI compacts on its own)
    handoff_at_cli: bool = False  # --context handoff:cli: the hand-off at the CLI's own compaction point
    session_images: int | None = None  # --session-images N: a hand-off before the N-th image of a session

    @classmethod
    def from_options(cls, given: dict) -> "Ladder":
        """From the kind's options (None: the default); ValueError naming the flag for a bad value."""
        observation = given.get("observation") or "image"
        if observation not in OBSERVATIONS:
            raise ValueError(f"--observation must be one of {', '.join(OBSERVATIONS)}, got {observation!r}")
        for flag, key in (("--pixel-readout", "pixel_readout"), ("--notes", "notes")):
            if given.get(key) is not None and given[key] not in SWITCH:
                raise ValueError(f"{flag} must be on or off, got {given[key]!r}")
        level = given.get("level_actions")
        if level is not None and float(level) <= 0:
            raise ValueError(f"--level-actions must be more than 0 (a multiple of each level's baseline), got {level}")
        context = str(given.get("context") or "native")
        handoff = None
        if context not in ("native", CLI_POINT):
            kind, _, tokens = context.partition(":")
            if kind != "handoff" or not tokens.isdigit() or int(tokens) < 1000:
                raise ValueError(
                    f"--context must be native, {CLI_POINT} or handoff:TOKENS (at least 1000), got {context!r}"
                )
            handoff = int(tokens)
        images = given.get("session_images")
        if images is not None and int(images) < 2:
            raise ValueError(f"--session-images must be at least 2 (the hand-off's frame is one), got {images}")
        return cls(
            handoff_tokens=handoff,
            handoff_at_cli=context == CLI_POINT,
            session_images=int(images) if images is not None else None,
            observation=observation,
            pixel_readout=given.get("pixel_readout") != "off",
            notes=given.get("notes") == "on",
            level_actions=float(level) if level is not None else None,
        )

    @property
    def context(self) -> str:
        """The --context policy as given: native, handoff:cli or handoff:N."""
        if self.handoff_at_cli:
            return CLI_POINT
        return f"handoff:{self.handoff_tokens}" if self.handoff_tokens else "native"

    @property
    def hands_off(self) -> bool:
        """The CLI's own compaction never runs: the agent hands its game on to a fresh session instead."""
        return self.handoff_at_cli or self.handoff_tokens is not None

    def tools(self, mode: str) -> tuple[str, ...]:
        """The game tools offered in a tool mode on this rung, in order."""
        offered = ["play"]
        if mode in ("image", "python"):
            offered += MEMORY_TOOLS
            if self.pixel_readout:
                offered += PIXEL_TOOLS
        if self.notes:
            offered += NOTE_TOOLS
        return tuple(offered)

    def rungs(self, mode: str, options: dict) -> dict[str, object]:
        """What a run offers the agent, one entry per rung of the ladder (compare pairs runs that differ in
        one): the observation form, the limits, the context policy, the notes, the memory and inspection tools,
        the pixel readout, the shell."""
        tools = self.tools(mode)
        return {
            "observation (i)": self.observation,
            "limits (ii)": (options.get("max_actions"), options.get("max_hours"), self.level_actions),
            # VISTA's rung (iv) is notes with a hand-off before a fresh context: one step from (iii)'s native context
            "context and notes (iii, iv)": self.context
            + (f", at most {self.session_images - 1} images a session" if self.session_images else "")
            + (" with notes" if self.notes else ""),
            "memory and inspection (v)": all(t in tools for t in MEMORY_TOOLS),
            "pixel readout (vi)": all(t in tools for t in PIXEL_TOOLS),
            "shell": mode == "python",
        }
