"""A GameWorld run's switches (kind options, so in the run's identity) and the tools each offers
(docs/kinds/gameworld.md says each): protocol `vista` (one continuous session, one step a call, every screen kept)
or `official` (GameWorld's computer-use baseline: every decision a fresh request shown the current screen and its
two preceding steps); interface `computer-use` (`act`) or `semantic` (`control`, the role's named controls); the
step budget per role; the clock; notes and hand-off; and VISTA's words, act schema, tools and roles as switches.
Tool modes add, as for ARC-AGI-3 games: `image` the looks over the screens (official: those the decision was
shown), `python` a shell over them too."""

from __future__ import annotations

from dataclasses import dataclass

from agent_eval.benchmarks.games.browser.kind import BrowserOptions

VISTA_LOOKS = ("inspect", "read_pixels", "history")  # VISTA's task tools (benchmarks/games/vista/events.py)
VISTA_NOTES = ("read_guide", "write_guide", "read_working", "write_working")
MEMORY_TOOLS = ("recall", "inspect", "read_pixels", "history")
NOTE_TOOLS = ("read_notes", "write_note")
ACT = {"computer-use": "act", "semantic": "control"}
OFFICIAL_MEMORY = 2  # GameWorld's memory_rounds: the preceding two steps
NOTE_PURPOSES = {  # what each of the agent's notes is for (nothing of how to play)
    "GUIDE.md": "what the game is: its rules, goal and controls as you have found them",
    "WORKING.md": "where the task stands: what you tried, what happened and your plan",
}


@dataclass(frozen=True)
class Rung(BrowserOptions):
    interface: str = "computer-use"
    max_steps: int | None = None  # None: the task's own
    act_schema: str = "ours"  # act's input schema: ours (every role's fields) or VISTA's (vista_act.py)
    roles: str = "shared"  # a game of several roles: one session plays them all, or one session a role

    vista_switches = {**BrowserOptions.vista_switches, "act_schema": ("ours", "vista"), "roles": ("shared", "isolated")}

    @classmethod
    def from_options(cls, given: dict) -> Rung:
        """From the kind's options (None: the default); ValueError naming the flag for a bad value."""
        shared = cls.shared(given)
        interface = given.get("interface") or "computer-use"
        steps = given.get("max_steps")
        if steps is not None and (isinstance(steps, bool) or int(steps) < 1):
            raise ValueError(f"--max-steps must be at least 1, got {steps}")
        if shared["act_schema"] == "vista" and interface != "computer-use":
            raise ValueError("--act-schema vista is the computer-use act tool's (give --interface computer-use)")
        if shared["roles"] == "isolated" and any(
            shared[k] != "vista" for k in ("game_tools", "act_schema", "task_prompt")
        ):
            raise ValueError(
                "--roles isolated is VISTA's setting of each role (its tools, act and words): give it with "
                "--game-tools vista --act-schema vista --task-prompt vista (as --profile vista does)"
            )
        return cls(interface=interface, max_steps=int(steps) if steps is not None else None, **shared)

    @property
    def act_tool(self) -> str:
        return ACT[self.interface]

    def tools(self, mode: str, codex: bool = False) -> tuple[str, ...]:
        """The game tools offered in a tool mode on this rung, in order (VISTA's tools: for Codex its checkpoint
        tool too, as VISTA offers it to its Codex player only)."""
        vista = self.game_tools == "vista"
        offered = [self.act_tool]
        if mode in ("image", "python"):
            offered += VISTA_LOOKS if vista else MEMORY_TOOLS
        if self.notes:
            offered += VISTA_NOTES if vista else NOTE_TOOLS
        if self.notes and vista and codex:
            offered.append("save_compact_checkpoint")
        return tuple(offered)

    def rungs(self, mode: str, options: dict) -> dict[str, object]:
        """What a run offers the agent, one entry per switch (compare pairs runs that differ in one)."""
        context = (
            f"handoff:{self.handoff_tokens}"
            if self.handoff_tokens
            else "handoff:cli"
            if self.handoff_at_cli
            else "native"
        )
        return {
            "protocol": self.protocol,
            "interface": self.interface,
            "steps": options.get("max_steps"),
            "clock": "real time" if self.realtime else "paused while the model thinks",
            "context and notes": context + (" with notes" if self.notes else ""),
            "memory tools": mode in ("image", "python"),
            "shell": mode == "python",
            "task prompt": self.task_prompt,
            "final answer": self.final_answer,
            "steps told": "on" if self.tell_steps else "off",
            "game tools": self.game_tools,
            "action batches": "on" if self.action_batches else "off",
            "act schema": self.act_schema,
            "roles": self.roles,
        }
