"""Typed result records. One JSON object per line in `<run>/<task>/items.jsonl`.

Validated with pydantic when built (a status outside `Status` is refused, numbers and strings are
checked), read leniently: the benchmark's own no-tool records and records from older or newer
versions load, and keys this version does not know are kept (`extra`) and written back as read.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal, get_args

from pydantic.dataclasses import dataclass

from agent_eval.datamodel.ondisk import dump, known_fields, split_known

SCHEMA_VERSION = 1

Status = Literal[
    "ok",
    "no_answer",
    "timeout",
    "agent_error",
    "auth_error",
    "rate_limited",
    "sandbox_error",
    "request_error",  # the API refused the request (400/404/422): the configuration's fault
    "image_dropped",  # the mode sends the image, but none reached the model
    "benchmark_error",  # the benchmark's own part failed for this item (e.g. its game crashed)
    "budget_exceeded",  # stopped by the user's own spend cap (at the gateway): neither graded nor wrong
    "upstream_error",  # the provider failed it (5xx, overloaded, cut streams), as the gateway saw: rerun on resume
    "ungraded",  # answered, but the kind's rules cannot decide and no judge model was asked: never wrong
    "tool_surface_error",  # the CLI reported tools, permission mode or version other than the run's: stopped at start
]
STATUSES: tuple[str, ...] = get_args(Status)
# Final statuses: the item was answered and is not run again on resume (an ungraded one is graded again
# by `regrade --judge-model`, from its stored answer).
GRADED_STATUSES = ("ok", "no_answer", "ungraded")
# Not run to its end, by the user's choice: left out of accuracy (neither right nor wrong), counted
# apart, and run again on resume (with a higher cap).
STOPPED_STATUSES = ("budget_exceeded",)
# Harness failures: counted as wrong, shown apart, and run again on resume.
FAILURE_STATUSES = tuple(s for s in STATUSES if s not in GRADED_STATUSES and s not in STOPPED_STATUSES)
# Failures that are the run's configuration's, not the item's: the run stops after the first.
RUN_STOPPING_STATUSES = ("auth_error", "request_error", "tool_surface_error")


@dataclass
class Usage:
    input_tokens: int | None = None
    cached_input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None


@dataclass
class ItemRecord:
    id: str
    task: str
    category: str
    ground_truth: str
    status: Status
    prediction: str | None = ""  # None: a kind that grades without one (active observation's no-answer)
    correct: bool = False
    answer_text: str | None = None
    error: str | None = None
    elapsed_s: float | None = None  # the agent's time: wall time less provider_wait_s
    provider_wait_s: float | None = None  # held at the gateway for the provider: rate limits, retries, pauses
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None  # None when unknown: never a made-up 0
    num_turns: int | None = None
    tool_calls: int = 0
    usage_by_model: dict[str, Any] = field(default_factory=dict)  # model -> its tokens and cost (side calls included)
    images: list[dict[str, Any]] = field(default_factory=list)  # every image the model received: via, size, source size
    image_conversions: list[str] = field(default_factory=list)  # formats the APIs refuse, converted losslessly
    transcript: str | None = None  # path of the item's raw transcript, relative to the run dir
    repeat: int = 0
    attempts: int = 1
    retries: list[dict[str, Any]] = field(default_factory=list)  # one entry per retried attempt: status, error, wait
    api_retries: list[Any] = field(default_factory=list)  # HTTP statuses the CLI itself retried on (last attempt)
    # The agent's sessions on the item (more than 1: it went on after a restart of the harness, a hand-off or a
    # silent session), the hand-offs among them, the compactions the CLI made of its own context, the silent ones.
    sessions: int = 1
    handoffs: int = 0
    compactions: int = 0
    silent_restarts: int = 0  # sessions stopped by the silent-session lease (--silent-minutes) and gone on from
    metrics: dict[str, Any] = field(default_factory=dict)  # benchmark-specific grades (e.g. evidence, combined)
    started_at: str | None = None
    finished_at: str | None = None
    gateway: dict[str, Any] | None = None  # what reached the model API per the gateway, and where the CLI disagrees
    schema_version: int = SCHEMA_VERSION
    extra: dict[str, Any] = field(default_factory=dict, repr=False)  # keys this version does not know, kept as read

    @property
    def key(self) -> tuple[str, int]:
        return (self.id, self.repeat)

    @property
    def is_final(self) -> bool:
        return self.status in GRADED_STATUSES

    def to_json(self) -> dict[str, Any]:
        return dump(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ItemRecord":
        """Read our own records (any version) and the benchmark's no-tool records (id, task, correct, ...)."""
        values = split_known(cls, data)
        values.setdefault("category", data.get("category", ""))
        truth = data.get("ground_truth", data.get("answer", ""))
        values["ground_truth"] = "" if truth is None else str(truth)
        values.setdefault("status", "ok")
        values["usage"] = Usage(**known_fields(Usage, data.get("usage") or {}))
        values["correct"] = bool(values.get("correct", False))
        return cls(**values)
