"""A GameWorld run's switches (kind options, so in the run's identity) and the tools each offers.

- protocol: `vista` (the default, as for AI GameStore), one continuous session acting one step per call, every
  screen kept (lossless memory); or `official`, GameWorld's computer-use baseline: every decision a fresh
  single-turn request that sees the current screen and its two preceding steps (their screens, actions and
  reasons), one action, 100 steps.
- interface: `computer-use` (the `act` tool: keys, clicks, drags ... limited to the role's controls) or
  `semantic` (the `control` tool: the role's named semantic controls).
- max_steps: the step budget per role (default: the task's, 100 in every catalog task).
- realtime: off (the game waits while the model thinks, as every catalog task asks) or on (it runs meanwhile).
- notes and context: GUIDE.md / WORKING.md (benchmarks/notes.py) and, with the vista protocol, the hand-off at a
  context size (`handoff:N`), as for ARC-AGI-3 games.
- with the vista protocol, VISTA's words or ours (task_prompt: "Game screen:" first, VISTA's recovery words), what
  a final reply with steps left does (final_answer: ends the task, or VISTA's redirect: a step with nothing sent,
  answered in VISTA's words), whether act's answer says the step and the steps left (tell_steps), whose tools
  (game_tools: ours, or VISTA's inspect, read_pixels, history and note tools over the task's events), and whose
  act schema (act_schema: ours, or VISTA's, vista_act.py).

Tool modes add, as for ARC-AGI-3 games: `image` recall / inspect / read_pixels / history over the screens (in the
official protocol, the screens and steps that decision was shown), `python` a shell over them too."""

from __future__ import annotations

from dataclasses import dataclass

from agent_eval.benchmarks.games.handoff import parse_context, parse_session_images

PROTOCOLS = ("official", "vista")
TASK_PROMPTS = ("ours", "vista")
FINAL_ANSWERS = ("ends", "redirect")
GAME_TOOLS = ("ours", "vista")
ACT_SCHEMAS = ("ours", "vista")  # act's input schema: ours (every role's fields) or VISTA's (vista_act.py)
ROLES = ("shared", "isolated")  # a game of several roles: one session plays them all, or one session a role
VISTA_LOOKS = ("inspect", "read_pixels", "history")  # VISTA's task tools (benchmarks/games/vista/events.py)
VISTA_NOTES = ("read_guide", "write_guide", "read_working", "write_working")
INTERFACES = ("computer-use", "semantic")
SWITCH = ("on", "off")
MEMORY_TOOLS = ("recall", "inspect", "read_pixels", "history")
NOTE_TOOLS = ("read_notes", "write_note")
ACT = {"computer-use": "act", "semantic": "control"}
OFFICIAL_MEMORY = 2  # GameWorld's memory_rounds: the preceding two steps
NOTE_PURPOSES = {  # what each of the agent's notes is for (nothing of how to play)
    "GUIDE.md": "what the game is: its rules, goal and controls as you have found them",
    "WORKING.md": "where the task stands: what you tried, what happened and your plan",
}


def _one_of(given: dict, key: str, allowed: tuple[str, ...], default: str) -> str:
    """The option's value, `default` when not given; ValueError naming the flag otherwise."""
    value = given.get(key) or default
    if value not in allowed:
        flag = "--" + key.replace("_", "-")
        raise ValueError(f"{flag} must be one of {', '.join(allowed)}, got {value!r}")
    return value


@dataclass(frozen=True)
class Rung:
    protocol: str = "vista"
    interface: str = "computer-use"
    max_steps: int | None = None  # None: the task's own
    realtime: bool = False
    notes: bool = False
    handoff_tokens: int | None = None
    task_prompt: str = "ours"
    final_answer: str = "ends"
    tell_steps: bool = True
    game_tools: str = "ours"
    session_images: int | None = None  # --session-images N: a hand-off before the N-th image of a session
    handoff_at_cli: bool = False  # --context handoff:cli: the hand-off where the CLI itself would compact (VISTA's)
    act_schema: str = "ours"
    roles: str = "shared"

    @property
    def hands_off(self) -> bool:
        return self.handoff_tokens is not None or self.session_images is not None or self.handoff_at_cli

    @classmethod
    def from_options(cls, given: dict) -> Rung:
        """From the kind's options (None: the default); ValueError naming the flag for a bad value."""
        protocol = _one_of(given, "protocol", PROTOCOLS, "vista")
        interface = _one_of(given, "interface", INTERFACES, "computer-use")
        for flag, key in (("--realtime", "realtime"), ("--notes", "notes"), ("--tell-steps", "tell_steps")):
            if given.get(key) is not None and given[key] not in SWITCH:
                raise ValueError(f"{flag} must be on or off, got {given[key]!r}")
        steps = given.get("max_steps")
        if steps is not None and (isinstance(steps, bool) or int(steps) < 1):
            raise ValueError(f"--max-steps must be at least 1, got {steps}")
        handoff, at_cli = parse_context(given.get("context"), at_cli=True)
        if (handoff is not None or at_cli) and (protocol != "vista" or given.get("notes") != "on"):
            raise ValueError(
                "--context handoff:N (or handoff:cli) needs VISTA's protocol and --notes on (a fresh session goes on "
                "from them; the official protocol starts every decision afresh)"
            )
        images = parse_session_images(given.get("session_images"))
        if images is not None and (protocol != "vista" or given.get("notes") != "on"):
            raise ValueError(
                "--session-images needs VISTA's protocol and --notes on (a fresh session goes on from them)"
            )
        task_prompt = _one_of(given, "task_prompt", TASK_PROMPTS, "ours")
        final_answer = _one_of(given, "final_answer", FINAL_ANSWERS, "ends")
        game_tools = _one_of(given, "game_tools", GAME_TOOLS, "ours")
        act_schema = _one_of(given, "act_schema", ACT_SCHEMAS, "ours")
        roles = _one_of(given, "roles", ROLES, "shared")
        if protocol != "vista" and (task_prompt, final_answer, game_tools, act_schema, roles) != (
            "ours",
            "ends",
            "ours",
            "ours",
            "shared",
        ):
            raise ValueError(
                "--task-prompt vista, --final-answer redirect, --game-tools vista, --act-schema vista and --roles "
                "isolated are VISTA's protocol's (give --protocol vista)"
            )
        if act_schema == "vista" and interface != "computer-use":
            raise ValueError("--act-schema vista is the computer-use act tool's (give --interface computer-use)")
        if roles == "isolated" and (game_tools, act_schema, task_prompt) != ("vista", "vista", "vista"):
            raise ValueError(
                "--roles isolated is VISTA's setting of each role (its tools, act and words): give it with "
                "--game-tools vista --act-schema vista --task-prompt vista (as --profile vista does)"
            )
        return cls(
            task_prompt=task_prompt,
            final_answer=final_answer,
            tell_steps=given.get("tell_steps") != "off",
            game_tools=game_tools,
            act_schema=act_schema,
            roles=roles,
            protocol=protocol,
            interface=interface,
            max_steps=int(steps) if steps is not None else None,
            realtime=given.get("realtime") == "on",
            notes=given.get("notes") == "on",
            handoff_tokens=handoff,
            session_images=images,
            handoff_at_cli=at_cli,
        )

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
        return {
            "protocol": self.protocol,
            "interface": self.interface,
            "steps": options.get("max_steps"),
            "clock": "real time" if self.realtime else "paused while the model thinks",
            "context and notes": (
                f"handoff:{self.handoff_tokens}"
                if self.handoff_tokens
                else "handoff:cli"
                if self.handoff_at_cli
                else "native"
            )
            + (" with notes" if self.notes else ""),
            "memory tools": mode in ("image", "python"),
            "shell": mode == "python",
            "task prompt": self.task_prompt,
            "final answer": self.final_answer,
            "steps told": "on" if self.tell_steps else "off",
            "game tools": self.game_tools,
            "act schema": self.act_schema,
            "roles": self.roles,
        }
