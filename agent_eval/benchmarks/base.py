"""What a benchmark is to the harness: items, what the agent may see, which tools, how to grade.

The runner, the attempt and the agent adapters only speak this interface; each benchmark kind
(static images, panoramic active observation) is one module behind it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol

from agent_eval.benchmarks.presentation import ReadingHooks
from agent_eval.datamodel.itemdir import ItemDir
from agent_eval.datamodel.ondisk import dump, split_known
from agent_eval.datamodel.records import ItemRecord
from agent_eval.datamodel.run_services import RunServices
from agent_eval.tools.toolset import ToolSet

TOOL_MODES = ("none", "image", "python")  # the ladder most kinds offer: no tools, image tools, a shell besides


class Item(Protocol):
    """What the shared code reads of any kind's item (selection, sharding, records, reading); each kind's
    own item type carries more (an image and question, a scene, a game)."""

    @property
    def id(self) -> str: ...
    @property
    def task(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def answer(self) -> object: ...


class GroupedItems:
    """A dataset whose items carry their own `task` and `category`: the names selection and --tasks offer."""

    items: list

    @property
    def tasks(self) -> list[str]:
        return sorted({item.task for item in self.items})

    @property
    def categories(self) -> list[str]:
        return sorted({item.category for item in self.items})


@dataclass
class HashedDataset(GroupedItems):
    """A loaded folder of image items (ActiveVision, the field formats): where it is, which layout it has, its
    items, each of which gives the text it is hashed by (`hashed_text`) and its images' digests."""

    root: Path
    layout: str
    items: list = field(default_factory=list)

    def content_hash(self) -> str:
        """Every item's text and truth and every image's bytes: two runs with equal hashes saw the same data."""
        digest = hashlib.sha256()
        for item in sorted(self.items, key=lambda i: i.id):
            digest.update(json.dumps(item.hashed_text()).encode())
            for image in item.image_digests():
                digest.update(image)
        return digest.hexdigest()[:16]


@dataclass
class Continuation:
    """An item that goes on from an earlier process's work (a game restored after the harness was killed):
    what its next agent session is told. `note` is the next message of a CLI session that is continued;
    `prompt` the first message of a fresh session (the task again, and where it stands); `images` are attached
    to either (the last frame seen)."""

    note: str
    prompt: str
    images: list[Path] = field(default_factory=list)
    reason: str = "harness restarted"  # why a new session: said in the item's record of its sessions
    # Within an attempt (`ItemSetup.next_session`): True continues the CLI's own session with `note` where it can
    # be (e.g. an agent that stopped early, told to go on); False, or a session that cannot be resumed, starts a
    # fresh one with `prompt`.
    resume: bool = False
    # After a restart of the harness (`ItemSetup.continuation`): True never continues the CLI's earlier session, a
    # fresh one is told `prompt` (a protocol of one request per decision, whose context holds that request alone)
    fresh: bool = False
    # An item of several contexts (a game whose roles each have a session of their own, VISTA's context_key): the
    # one this session plays; `resume` continues that context's last session. None: the item's one context.
    context: str | None = None
    system_fields: dict[str, str] | None = None  # this session's words for --system-prompt (None: the item's)
    note_images: list[Path] = field(default_factory=list)  # attached to `note` when the session is continued


@dataclass
class ItemSetup:
    prompt: str
    tools: ToolSet
    inline_images: list[Path] = field(default_factory=list)  # attached to the first message
    endpoints: list[str] = field(default_factory=list)  # extra host:port the sandbox must allow
    conversions: list[str] = field(default_factory=list)  # what was converted to reach the model, and why
    # (source outside, target in the workdir): bound read-only into the sandbox, live (it sees what the
    # harness adds to the source later); e.g. a game's frame archive in python mode
    readonly_mounts: list[tuple[Path, Path]] = field(default_factory=list)
    continuation: Continuation | None = None  # set when the item goes on from an earlier process's work
    # Called when the agent's session ends within the attempt (True: its CLI ran out of context): a Continuation
    # to go on in a fresh session (a hand-off: `prompt` and `images` are given), or None: the attempt ends.
    next_session: Callable[[bool], Continuation | None] | None = None
    on_context: Callable[[int], None] | None = None  # told the model's context (tokens) at each of its requests
    on_model_request: Callable[[], None] | None = None  # told as each model request begins (its tools' results sent)
    cli_compaction: bool = True  # False: the CLI's own context compaction is turned off (the kind hands off)
    # Set (with cli_compaction False): the kind hands off where the CLI itself would compact. The engine keeps the CLI
    # from compacting there (its PreCompact hook blocks it, or its compaction is off and its own threshold is watched
    # at the gateway) and calls this, saying how it was seen, before the answer to the CLI's next request arrives.
    on_compaction_point: Callable[[str], None] | None = None
    # Told, for each model request, how many image blocks it carries and when (time.monotonic) it began: the
    # gateway's count, read from the request body as it passes (a little after the request begins).
    on_request_images: Callable[[int, float], None] | None = None
    # Told each session's final reply as it ends, before next_session: a kind whose protocol reads the agent's
    # moves from its reply (AI GameStore's official baseline: one reply per decision, a fresh session each)
    on_reply: Callable[[str | None], None] | None = None
    max_sessions: int | None = None  # the kind's bound on sessions in one attempt (None: the engine's own)
    # Handed the item's clock of provider waits (seconds its requests were held at the gateway: rate limits, an
    # outage, a subscription's window waited out) before the agent starts: a kind's own time budget leaves them out.
    use_provider_wait: Callable[[Callable[[], float]], None] | None = None
    # The item's words a run's system prompt (--system-prompt FILE) may name as {field}: filled in for this item
    # (VISTA's AI GameStore system prompt holds its game's description and controls)
    system_fields: dict[str, str] = field(default_factory=dict)
    context: str | None = None  # the first session's context (a game's role: Continuation.context)
    # Asked as each model request begins: True when the session's turn is over (a game's one action per turn: this
    # request carries the action's result). The request is then held, never sent on, and the session's process
    # stopped (VISTA interrupts its CLI there); next_session goes on.
    turn_over: Callable[[], bool] | None = None


class ItemError(Exception):
    """This item cannot be run (e.g. its game does not start): raised by `setup()`, its message (naming the
    item and what failed) becomes the item's `benchmark_error` record, and the run goes on."""


@dataclass
class KindMetrics:
    """A benchmark kind's own grades, typed: a kind subclasses this (every field with a default) and
    stores it as the record's `metrics` object; readers get it back with `Kind.of(record)`. Unknown
    keys (a newer version's) are kept in `extra` and written back as read."""

    extra: dict = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: dict | None):
        return cls(**split_known(cls, data or {}))

    @classmethod
    def of(cls, record):
        """The metrics of an item record; every field at its default when the record has none, or when
        they do not read as this version's types (then all of them are kept in `extra`): a reader
        shows such a record as ungraded by the kind rather than failing on it."""
        try:
            return cls.from_json(record.metrics)
        except ValueError:  # pydantic's ValidationError is one
            return cls(extra=dict(record.metrics or {}))

    def to_json(self) -> dict:
        return dump(self)


@dataclass
class BenchmarkGrade:
    prediction: str
    correct: bool
    has_answer_tag: bool
    malformed: bool = False  # an answer tag whose content the benchmark cannot read
    metrics: KindMetrics | dict | None = None  # the kind's own grades (None: nothing beyond correctness)
    error: str | None = None  # the benchmark's own part failed for this item (a game crashed): benchmark_error
    ungraded: str | None = None  # why the kind gives no verdict (rules undecided, no judge): never counted wrong

    def metrics_json(self) -> dict:
        if isinstance(self.metrics, KindMetrics):
            return self.metrics.to_json()
        return dict(self.metrics or {})


class Benchmark(ABC):
    name: str
    tool_modes: tuple[str, ...] = TOOL_MODES

    @abstractmethod
    def load(self, root: Path): ...

    @abstractmethod
    def setup(
        self, item, tools: str, work: Path, home: Path, item_root: Path, template_text: str
    ) -> contextlib.AbstractContextManager[ItemSetup]:
        """Fill the workdir for one attempt and say what the agent gets; may start servers that
        live as long as the context."""

    @abstractmethod
    def grade(self, final_text: str | None, item: Item, item_dir: ItemDir) -> BenchmarkGrade:
        """Grade one attempt: from the agent's final text, and where a kind grades from what happened
        (a game's scorecard, the calls it logged), from the attempt's folder."""

    @abstractmethod
    def scorer_hash(self) -> str: ...

    def configure(self, options: dict, timeout_s: float | None = None) -> None:
        """The run's options of this kind (its registry line's `options`, e.g. --max-actions) and the run's time
        limit per item attempt (a kind whose tools can tell the agent to stop in time); ValueError for a bad
        value (said to the user as one line)."""

    def carries_on(self, item_root: Path) -> str | None:
        """What an earlier attempt that never finished (the harness was killed) left in this item's folder that
        the next attempt goes on with, in words (a game in progress); None: the attempt starts clean, the
        earlier folder moved aside. A kind whose items are short starts every attempt clean."""
        return None

    def run_scope(self, services: RunServices) -> contextlib.AbstractContextManager[None]:
        """What the kind holds for one session of a run, opened before its first item and closed when the session
        ends, Ctrl-C and SIGTERM included (e.g. arcgames' scorecard at the ARC API, online). A ConfigError said
        here stops the run before any item, in one line. Most kinds hold nothing."""
        return contextlib.nullcontext()

    def warm_up(self, tools: str) -> None:
        """Called once when a run starts: begin, in the background, whatever the items' setup will
        need and is slow to load, so that the first item does not wait for it."""

    def truth_text(self, item) -> str:
        return str(item.answer)

    # Model-graded scoring: when the kind asks a judge model (empty: it grades by rules alone). The engine
    # hands it the judge (datamodel.judge_contract.Judge) before the scorer hash is taken, which then names it.
    judge_use: str = ""
    # Without a judge, what the items it would decide become (run's warning): ungraded, unless the kind grades
    # them otherwise (BabyVision's --grade vista: the judge's grade is a second one, `correct` is VISTA's).
    without_judge: str = "those items are recorded as ungraded"
    # `agent-eval score` grades replies produced elsewhere: a kind whose grade reads the reply's text alone.
    grades_text: bool = True

    def set_judge(self, judge) -> None:
        raise NotImplementedError(f"benchmark {self.name} grades by its rules alone and asks no judge model")

    # Regrading a stored answer (`agent-eval regrade`): the item comes from the dataset, unless the
    # record alone is enough to grade it.
    needs_dataset_to_regrade: bool = True

    # Graded from what happened in the attempt's folder (a game's scorecard), so graded even when the agent
    # failed: a failure of the kind's own part then names the status (benchmark_error). Kinds that grade the
    # reply's text are not graded for a failed attempt (a judge is not paid for it).
    grades_failed_attempts: bool = False

    def regrade(
        self, answer_text: str | None, record: ItemRecord, item: Item | None, item_dir: ItemDir
    ) -> BenchmarkGrade:
        # item is None only for a kind that does not need the dataset (it overrides this)
        assert item is not None, f"{self.name}: regrading needs the dataset's item {record.id}"
        return self.grade(answer_text, item, item_dir)

    def extra_rollup(self, records: list) -> dict | None:
        """Benchmark-specific metrics for rollup.json (None: nothing beyond accuracy)."""
        return None

    def template_name(self, mode: str) -> str:
        """The prompt template a run of this tool mode is asked with (prompts/<kind>/<name>.yaml), once configured:
        the mode's own by default (a kind may offer another, e.g. a game's --task-prompt vista)."""
        return mode

    def prompts_dir(self) -> Path:
        return Path(__file__).resolve().parents[2] / "prompts" / self.name

    def bundled_samples(self) -> Path | None:
        """A dataset this kind can make without downloads (the default --data), or None."""
        return None

    def write_samples(self, out: Path, seed: int, per_task: int, difficulty: str) -> list[str]:
        """`agent-eval sample-data --kind NAME`: write a generated set to OUT; lines saying what was written."""
        raise NotImplementedError(f"benchmark {self.name} has no sample generator")

    def demo_turns(self, item: Item, tools: str) -> list[dict] | dict | None:
        """`agent-eval demo --kind NAME`: scripted turns (agent_eval/scripted's format) that play one of this
        kind's own sample items, e.g. a game's known winning sequence, or a whole scenario (its `rules`: a kind
        whose protocol starts a session per decision); None: the kind has no demo."""
        return None

    def reading(self) -> ReadingHooks:
        """How show, report and compare present this kind's runs (plain accuracy by default)."""
        return ReadingHooks()
