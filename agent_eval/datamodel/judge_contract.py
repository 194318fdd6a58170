"""Model-graded scoring's contract: a judge model the harness asks when a kind's rules cannot decide.

The kinds (benchmarks/) ask through `Judge`; the engine provides the real one (engine/api_judge.py: a
direct API call from the harness with the run's credential, cached in the run folder). Every call a
grade rests on is kept on the item as a `JudgeCall`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Protocol


@dataclass
class JudgeCall:
    model: str
    prompt: str
    reply: str | None  # None: the call failed (error says why)
    usage: dict = field(default_factory=dict)  # input_tokens, output_tokens as the API reported them
    cost_usd: float | None = None  # None when the model has no price: never a made-up 0
    cached: bool = False  # answered from the run's judge cache (paid for earlier)
    error: str | None = None

    def to_json(self) -> dict:
        return asdict(self)


class Judge(Protocol):
    model: str

    def ask(self, prompt: str, max_tokens: int, attempt: int = 0) -> JudgeCall:
        """The judge's reply to one prompt; `attempt` tells repeated asks of the same prompt apart
        (each is its own cache entry, as the reference asks again after an unreadable reply)."""
        ...


class JudgeUnavailable(Exception):
    """The judge cannot be reached at all (no credential, bad model name): the run stops with this line."""
