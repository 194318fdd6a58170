"""Typed result records. One JSON object per line in `<run>/<task>/items.jsonl`."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

SCHEMA_VERSION = 1

# Final statuses: the item was graded and is not run again on resume.
GRADED_STATUSES = ("ok", "no_answer")
# Harness failures: counted as wrong, shown apart, and run again on resume.
FAILURE_STATUSES = ("timeout", "agent_error", "auth_error", "rate_limited", "sandbox_error",
                    "request_error",   # the API refused the request (400/404/422): the configuration's fault
                    "image_dropped")   # the mode sends the image, but none reached the model
# Failures that are the run's configuration's, not the item's: the run stops after the first.
RUN_STOPPING_STATUSES = ("auth_error", "request_error")
STATUSES = GRADED_STATUSES + FAILURE_STATUSES


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
    status: str
    prediction: str = ""
    correct: bool = False
    answer_text: str | None = None
    error: str | None = None
    elapsed_s: float | None = None
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None  # None when unknown: never a made-up 0
    num_turns: int | None = None
    tool_calls: int = 0
    usage_by_model: dict = field(default_factory=dict)  # model -> its tokens and cost (side calls included)
    images: list[dict] = field(default_factory=list)    # every image the model received: via, size, source size
    image_conversions: list[str] = field(default_factory=list)  # formats the APIs refuse, converted losslessly
    transcript: str | None = None  # path of the item's raw transcript, relative to the run dir
    repeat: int = 0
    attempts: int = 1
    retries: list[dict] = field(default_factory=list)  # one entry per retried attempt: status, error, wait
    api_retries: list = field(default_factory=list)     # HTTP statuses the CLI itself retried on (last attempt)
    metrics: dict = field(default_factory=dict)         # benchmark-specific grades (e.g. evidence, combined)
    started_at: str | None = None
    finished_at: str | None = None
    gateway: dict | None = None   # what reached the model API per the gateway, and where the CLI disagrees
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")

    @property
    def key(self) -> tuple[str, int]:
        return (self.id, self.repeat)

    @property
    def is_final(self) -> bool:
        return self.status in GRADED_STATUSES

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "ItemRecord":
        """Read our own records and the benchmark's no-tool records (id, task, correct, ...)."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values.setdefault("category", data.get("category", ""))
        values.setdefault("ground_truth", str(data.get("ground_truth", data.get("answer", ""))))
        values.setdefault("status", "ok")
        values["usage"] = Usage(**{k: v for k, v in (data.get("usage") or {}).items()
                                   if k in {f.name for f in fields(Usage)}})
        values["correct"] = bool(values.get("correct", False))
        return cls(**values)
