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
TASK_PROMPTS = ("ours", "vista")
FINAL_ANSWERS = ("ends", "redirect")
GAME_TOOLS = ("ours", "vista")
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

    protocols: ClassVar[tuple[str, ...]] = ("vista", "official")  # in the order the kind's --help names them

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
        for key in ("realtime", "notes", "tell_steps"):
            if given.get(key) is not None and given[key] not in SWITCH:
                raise ValueError(f"--{key.replace('_', '-')} must be on or off, got {given[key]!r}")
        notes = given.get("notes") == "on"
        handoff, at_cli = parse_context(given.get("context"), at_cli=True)
        if (handoff is not None or at_cli) and (protocol != "vista" or not notes):
            raise ValueError(f"--context handoff:N (or handoff:cli) {NEEDS_VISTA}")
        images = parse_session_images(given.get("session_images"))
        if images is not None and (protocol != "vista" or not notes):
            raise ValueError(f"--session-images {NEEDS_VISTA}")
        switched = {
            "task_prompt": one_of(given, "task_prompt", TASK_PROMPTS, "ours"),
            "final_answer": one_of(given, "final_answer", FINAL_ANSWERS, "ends"),
            "game_tools": one_of(given, "game_tools", GAME_TOOLS, "ours"),
        }
        if protocol != "vista" and tuple(switched.values()) != ("ours", "ends", "ours"):
            raise ValueError(
                "--task-prompt vista, --final-answer redirect and --game-tools vista are VISTA's protocol's (give "
                "--protocol vista)"
            )
        return switched | {
            "protocol": protocol,
            "realtime": given.get("realtime") == "on",
            "notes": notes,
            "handoff_tokens": handoff,
            "handoff_at_cli": at_cli,
            "session_images": images,
            "tell_steps": given.get("tell_steps") != "off",
        }
