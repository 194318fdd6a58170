"""What a benchmark is to the harness: items, what the agent may see, which tools, how to grade.

The runner, the attempt and the agent adapters only speak this interface; each benchmark kind
(static images, panoramic active observation) is one module behind it.
"""
from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class McpServer:
    """A tool server one agent session may use: stdio (`command`) inside the sandbox, or HTTP
    (`url`) served from outside it (then its host:port is allowlisted for that item only)."""
    name: str
    tools: tuple[str, ...]
    command: tuple[str, ...] | None = None
    url: str | None = None


@dataclass(frozen=True)
class ToolSet:
    """What the agent may call, in CLI-neutral terms; each adapter maps it onto its own switches."""
    shell: bool = False
    view_file: bool = False
    mcp: tuple[McpServer, ...] = ()


@dataclass
class ItemSetup:
    prompt: str
    tools: ToolSet
    inline_images: list[Path] = field(default_factory=list)  # attached to the first message
    endpoints: list[str] = field(default_factory=list)        # extra host:port the sandbox must allow
    conversions: list[str] = field(default_factory=list)      # what was converted to reach the model, and why


@dataclass
class BenchmarkGrade:
    prediction: str
    correct: bool
    has_answer_tag: bool
    malformed: bool = False          # an answer tag whose content the benchmark cannot read
    metrics: dict = field(default_factory=dict)


class Benchmark(ABC):
    name: str
    tool_modes: tuple[str, ...]

    @abstractmethod
    def load(self, root: Path): ...

    @abstractmethod
    def setup(self, item, tools: str, work: Path, home: Path, item_root: Path,
              template_text: str) -> contextlib.AbstractContextManager[ItemSetup]:
        """Fill the workdir for one attempt and say what the agent gets; may start servers that
        live as long as the context."""

    @abstractmethod
    def grade(self, final_text: str | None, item) -> BenchmarkGrade: ...

    @abstractmethod
    def scorer_hash(self) -> str: ...

    def warm_up(self, tools: str) -> None:
        """Called once when a run starts: begin, in the background, whatever the items' setup will
        need and is slow to load, so that the first item does not wait for it."""

    def truth_text(self, item) -> str:
        return str(item.answer)

    # Regrading a stored answer (`agent-eval regrade`): the item comes from the dataset, unless the
    # record alone is enough to grade it.
    needs_dataset_to_regrade: bool = True

    def regrade(self, answer_text: str | None, record, item) -> BenchmarkGrade:
        return self.grade(answer_text, item)

    def extra_rollup(self, records: list) -> dict | None:
        """Benchmark-specific metrics for rollup.json (None: nothing beyond accuracy)."""
        return None

    def prompts_dir(self) -> Path:
        return Path(__file__).resolve().parents[2] / "prompts" / self.name
