"""The options every browser game kind takes (its registry line's, so in the run's identity), checked once: the
protocol (VISTA's one continuous session, or the benchmark's official baseline), real time, the notes and the
hand-off, and what --profile vista switches (whose words the model is told, what a final reply does, whether the
steps are told, whose tools). A kind's own options extend it (AI GameStore's decisions and seed, GameWorld's
interface and steps)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from agent_eval.benchmarks.games.handoff import parse_context, parse_session_images

SWITCH = ("on", "off")
NEEDS_VISTA = "needs VISTA's protocol and --notes on (a fresh session goes on from them)"


def one_of(given: dict, key: str, allowed: tuple[str, ...], default: str) -> str:
    """The option's value, `default` when not given; ValueError naming the flag otherwise."""
    value = given.get(key) or default
    if value not in allowed:
        raise ValueError(f"--{key.replace('_', '-')} must be one of {', '.join(allowed)}, got {value!r}")
    return value


@dataclass(frozen=True)
class BrowserOptions:
    protocol: str = "vista"
    realtime: bool = field(default=False, kw_only=True)
    notes: bool = field(default=False, kw_only=True)
    handoff_tokens: int | None = field(default=None, kw_only=True)  # --context handoff:N (VISTA's protocol, notes)
    handoff_at_cli: bool = field(default=False, kw_only=True)  # --context handoff:cli: where the CLI would compact
    session_images: int | None = field(default=None, kw_only=True)  # --session-images N: hand off before the N-th
    task_prompt: str = field(default="ours", kw_only=True)  # vista: VISTA's first message and recovery words
    final_answer: str = field(default="ends", kw_only=True)  # redirect: a final reply with budget left goes on
    tell_steps: bool = field(default=True, kw_only=True)  # the action's answer says the step and the steps left
    game_tools: str = field(default="ours", kw_only=True)  # vista: VISTA's actions, looks, history and notes
    action_batches: bool = field(default=True, kw_only=True)  # off: one action per observation (games/observation)

    protocols: ClassVar[tuple[str, ...]] = ("vista", "official")  # in the order the kind's --help names them
    # the switches only VISTA's protocol turns: each one's values, ours (the default) first, then VISTA's
    vista_switches: ClassVar[dict[str, tuple[str, str]]] = {
        "task_prompt": ("ours", "vista"),
        "final_answer": ("ends", "redirect"),
        "game_tools": ("ours", "vista"),
    }

    @property
    def hands_off(self) -> bool:
        return self.handoff_tokens is not None or self.session_images is not None or self.handoff_at_cli

    @property
    def vista_words(self) -> bool:
        return self.task_prompt == "vista"

    @classmethod
    def shared(cls, given: dict) -> dict:
        """The shared options' values from the kind's options (None: the default); ValueError naming the flag."""
        protocol = one_of(given, "protocol", cls.protocols, "vista")
        for key in ("realtime", "notes", "tell_steps", "action_batches"):
            if given.get(key) is not None and given[key] not in SWITCH:
                raise ValueError(f"--{key.replace('_', '-')} must be on or off, got {given[key]!r}")
        notes = given.get("notes") == "on"
        handoff, at_cli = parse_context(given.get("context"), at_cli=True)
        if (handoff is not None or at_cli) and (protocol != "vista" or not notes):
            raise ValueError(f"--context handoff:N (or handoff:cli) {NEEDS_VISTA}")
        images = parse_session_images(given.get("session_images"))
        if images is not None and (protocol != "vista" or not notes):
            raise ValueError(f"--session-images {NEEDS_VISTA}")
        switched = {key: one_of(given, key, values, values[0]) for key, values in cls.vista_switches.items()}
        if protocol != "vista" and any(switched[key] != values[0] for key, values in cls.vista_switches.items()):
            flags = [f"--{key.replace('_', '-')} {values[1]}" for key, values in cls.vista_switches.items()]
            listed = ", ".join(flags[:-1]) + " and " + flags[-1]
            raise ValueError(f"{listed} are VISTA's protocol's (give --protocol vista)")
        return switched | {
            "protocol": protocol,
            "realtime": given.get("realtime") == "on",
            "notes": notes,
            "handoff_tokens": handoff,
            "handoff_at_cli": at_cli,
            "session_images": images,
            "tell_steps": given.get("tell_steps") != "off",
            "action_batches": given.get("action_batches") != "off",
        }
