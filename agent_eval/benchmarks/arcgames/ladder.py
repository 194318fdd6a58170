"""VISTA's ladder on ARC-AGI-3, as switches of a games run (each a kind option, so in the run's identity):
(i) observations as images or as text grids, (ii) action limits (per game, and per level as a multiple of its
human baseline), (iii) the context policy (`--context` native, handoff:N or handoff:cli, games/handoff.py; and
`--session-images N`), (iv) notes, (v) memory of every frame with inspection, (vi) exact pixel readout.
`tools()` is the exact tool set a rung offers. Beside the rungs, VISTA's way or ours (defaults ours): `--game-tools`,
`--frame-grid`, `--coordinates`, `--working-scope` and the notes' sizes."""

from __future__ import annotations

from dataclasses import dataclass

from agent_eval.benchmarks.games.handoff import CLI_POINT, parse_context, parse_session_images

VISTA_NOTE_TOOLS = ("read_guide", "write_guide", "read_working", "write_working")
# Each tool style's tools by rung: memory (v: every frame kept, looked at again as the model directs), pixel readout
# (vi), notes (iv); VISTA's are arc3/claude/tools.py build_tools's, offered in its order
RUNG_TOOLS = {
    "ours": (("recall", "inspect"), ("read_pixels",), ("read_notes", "write_note")),
    "vista": (("inspect", "history"), ("read_pixels",), VISTA_NOTE_TOOLS),
}
VISTA_ORDER = ("play", "inspect", "read_pixels", "history", *VISTA_NOTE_TOOLS)
NOTES_SWITCHES = (
    ("--working-scope", "working_scope"),
    ("--guide-chars", "guide_chars"),
    ("--working-chars", "working_chars"),
)
UNSET = {"working_scope": "game"}  # the value that changes nothing
OURS_NOTE_CHARS = 20_000  # each note, with our tools (as before the sizes were switches)
VISTA_NOTE_CHARS = {"GUIDE.md": 64 * 1024, "WORKING.md": 16 * 1024}  # VISTA's core/tools.py MAX_*_CHARS
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
    game_tools: str = "ours"  # whose tool semantics: ours (play, recall, inspect, read_pixels) or VISTA's
    frame_grid: bool = False  # frames drawn with VISTA's grid lines
    coordinates: str = "grid"  # ACTION6 and regions in game pixels or in pixels of the image as shown
    working_scope: str = "game"  # level: WORKING.md archived and cleared at each level boundary (VISTA)
    guide_chars: int | None = None  # GUIDE.md's size limit; None: the tool style's (note_limits())
    working_chars: int | None = None
    handoff_at_cli: bool = False  # --context handoff:cli: the hand-off at the CLI's own compaction point
    session_images: int | None = None  # --session-images N: a hand-off before the N-th image of a session

    @classmethod
    def from_options(cls, given: dict) -> "Ladder":
        for flag, key in (("--guide-chars", "guide_chars"), ("--working-chars", "working_chars")):
            if given.get(key) is not None and int(given[key]) < 1:
                raise ValueError(f"{flag} must be at least 1 (characters), got {given[key]}")
        notes_only = [f for f, k in NOTES_SWITCHES if given.get(k) not in (None, UNSET.get(k))]
        if notes_only and given.get("notes") != "on":
            raise ValueError(f"{' and '.join(notes_only)} change(s) the notes: give --notes on too")
        level = given.get("level_actions")
        if level is not None and float(level) <= 0:
            raise ValueError(f"--level-actions must be more than 0 (a multiple of each level's baseline), got {level}")
        handoff, at_cli = parse_context(given.get("context"), at_cli=True)
        return cls(
            handoff_tokens=handoff,
            handoff_at_cli=at_cli,
            session_images=parse_session_images(given.get("session_images")),
            observation=given.get("observation") or "image",
            pixel_readout=given.get("pixel_readout") != "off",
            notes=given.get("notes") == "on",
            level_actions=float(level) if level is not None else None,
            game_tools=given.get("game_tools") or "ours",
            frame_grid=given.get("frame_grid") == "on",
            coordinates=given.get("coordinates") or "grid",
            working_scope=given.get("working_scope") or "game",
            guide_chars=int(given["guide_chars"]) if given.get("guide_chars") is not None else None,
            working_chars=int(given["working_chars"]) if given.get("working_chars") is not None else None,
        )

    @property
    def vista(self) -> bool:
        return self.game_tools == "vista"

    def note_limits(self) -> dict[str, int]:
        base = VISTA_NOTE_CHARS if self.vista else {name: OURS_NOTE_CHARS for name in VISTA_NOTE_CHARS}
        given = {"GUIDE.md": self.guide_chars, "WORKING.md": self.working_chars}
        return {name: given[name] or base[name] for name in base}

    @property
    def context(self) -> str:
        if self.handoff_at_cli:
            return CLI_POINT
        return f"handoff:{self.handoff_tokens}" if self.handoff_tokens else "native"

    @property
    def hands_off(self) -> bool:
        """The CLI's own compaction never runs: the agent hands its game on to a fresh session instead."""
        return self.handoff_at_cli or self.handoff_tokens is not None

    def tools(self, mode: str) -> tuple[str, ...]:
        memory, pixels, notes = RUNG_TOOLS[self.game_tools]
        offered = ["play"]
        if mode in ("image", "python"):
            offered += memory
            if self.pixel_readout:
                offered += pixels
        if self.notes:
            offered += notes
        if self.vista:
            offered.sort(key=VISTA_ORDER.index)
        return tuple(offered)

    def rungs(self, mode: str, options: dict) -> dict[str, object]:
        """What a run offers the agent, one entry per rung of the ladder (compare pairs runs that differ in one)."""
        tools = self.tools(mode)
        memory, pixels, _ = RUNG_TOOLS[self.game_tools]
        return {
            "observation (i)": self.observation,
            "limits (ii)": (options.get("max_actions"), options.get("max_hours"), self.level_actions),
            # VISTA's rung (iv) is notes with a hand-off before a fresh context: one step from (iii)'s native context
            "context and notes (iii, iv)": self.context
            + (f", at most {self.session_images - 1} images a session" if self.session_images else "")
            + (f" with notes{self._notes_words()}" if self.notes else ""),
            "memory and inspection (v)": all(t in tools for t in memory),
            "pixel readout (vi)": all(t in tools for t in pixels),
            "shell": mode == "python",
            # beside the rungs: whose tools, how frames are drawn and addressed, the notes' scope and sizes
            "tool style": self.game_tools,
            "frames (scale, grid lines, coordinates)": (
                options.get("frame_scale") or 4,
                "grid lines" if self.frame_grid else "plain",
                self.coordinates,
            ),
        }

    def _notes_words(self) -> str:
        """The notes' own switches, when set (a run with notes and none of them reads as before)."""
        words = ["WORKING.md per level"] if self.working_scope == "level" else []
        if self.guide_chars is not None or self.working_chars is not None:
            words.append("sizes " + "/".join(str(n) for n in self.note_limits().values()))
        return f" ({', '.join(words)})" if words else ""
