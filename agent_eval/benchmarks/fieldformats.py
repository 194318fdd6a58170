"""What the field's formats (VLMEvalKit TSV, BabyVision) share as kinds: one or several images per item placed
as ActiveVision places its one, the benchmark's own prompt text kept byte for byte, a judge for
model-graded scoring, and the grade's metrics with every judge call on the item."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from agent_eval.benchmarks.base import Benchmark, HashedDataset, ItemSetup, KindMetrics
from agent_eval.benchmarks.shared import IMAGE_TOOLS_MODULE, image_toolset, place_image
from agent_eval.datamodel.jsonl import DataError
from agent_eval.datamodel.judge_contract import Judge
from agent_eval.tools.mcp_http import load_in_background
from agent_eval.tools.toolset import ToolSet


@dataclass(frozen=True)
class ImageSource:
    """One image of an item: base64 text (a TSV cell) or a file."""

    name: str  # the neutral stem it is placed under ("image", "image_1", ...)
    data: str | None = None
    path: Path | None = None

    def digest(self) -> bytes:
        raw = self.path.read_bytes() if self.path is not None else (self.data or "").encode()
        return hashlib.sha256(raw).digest()

    def place(self, folder: Path, conversions: list[str]) -> Path:
        source = self.path
        if source is None:  # decoded beside the target, then placed like a file (format kept or converted)
            source = folder / f".{self.name}-decoded"  # no suffix: the format read from the bytes names it
            source.write_bytes(base64.b64decode(self.data or ""))
        try:
            return place_image(source, folder / self.name, conversions)
        finally:
            if self.path is None:
                source.unlink(missing_ok=True)


@dataclass
class FieldDataset(HashedDataset):
    """A loaded TSV or BabyVision folder: its askable items, and one line per row left out."""

    problems: list[str] = field(default_factory=list)

    def read(self, source: Path, rows: Iterable[tuple[str, dict]], make: Callable, id_name: str, unit: str):
        """Each (where, row) made an item by `make` (a ValueError: why it cannot be asked) and kept unless its id
        repeats an earlier one's, one problem line per row left out; a DataError when no row can be asked."""
        seen: set[str] = set()
        for where, row in rows:
            try:
                item = make(row)
            except ValueError as error:
                self.problems.append(f"{where}: {error}; the {unit} is left out")
                continue
            if item.id in seen:
                self.problems.append(
                    f"{where}: {id_name} {item.id} repeats an earlier {unit}'s; the {unit} is left out"
                )
                continue
            seen.add(item.id)
            self.items.append(item)
        if not self.items:
            raise DataError(f"{source}: no {unit} can be asked" + (f" ({self.problems[0]})" if self.problems else ""))
        return self


@dataclass(frozen=True)
class FieldItem:
    """What the field formats' items (TsvItem, BabyVisionItem) share and are hashed by: the prompt text as the
    reference builds it (`prompt_text`), the truth, every image's bytes."""

    id: str
    task: str
    category: str
    prompt_text: str
    answer: str
    images: tuple[ImageSource, ...]

    def hashed_text(self) -> list[str]:
        return [self.id, self.task, self.category, self.prompt_text, self.answer]

    def image_digests(self) -> list[bytes]:
        return [image.digest() for image in self.images]


def image_stem(n: int, total: int) -> str:
    """The neutral name an item's n-th image (of `total`) is placed under."""
    return "image" if total == 1 else f"image_{n + 1}"


def image_files(folder: Path, names: list) -> tuple[ImageSource, ...]:
    """An item's image files, named relative to `folder` (or absolute); a ValueError when one is missing."""
    paths = [folder / str(name) for name in names]
    for path in paths:
        if not path.is_file():
            raise ValueError(f"its image file {path} does not exist")
    return tuple(ImageSource(name=image_stem(n, len(paths)), path=path) for n, path in enumerate(paths))


def images_phrase(paths: list[Path]) -> str:
    if len(paths) == 1:
        return f"the file `{paths[0].name}`"
    listed = ", ".join(f"`{p.name}`" for p in paths)
    return f"made of several files, {listed} (in the order the question refers to them),"


def attached_phrase(count: int) -> str:
    return "1 image" if count == 1 else f"{count} images, in the order the question refers to them,"


def render_verbatim(template_text: str, question: str, image: str) -> str:
    """The mode's preamble, then the benchmark's prompt text exactly as the reference builds it (no
    stripping: VLMEvalKit's MCQ prompt ends in " \\n")."""
    return template_text.rstrip("\n").replace("{image}", image).replace("{question}", question)


def paid_cost(calls: list[dict]) -> float | None:
    """What judge calls cost when made (answers from the cache cost nothing now); None when a paid call's
    price is unknown: never a made-up 0."""
    paid = [c.get("cost_usd") for c in calls if not c.get("cached")]
    known = [cost for cost in paid if cost is not None]
    return round(sum(known), 6) if len(known) == len(paid) else None


@dataclass
class JudgedMetrics(KindMetrics):
    judge_calls: list = field(default_factory=list)  # JudgeCall.to_json() each: prompt, reply, model, usage, cost
    judge_cost_usd: float | None = None  # paid_cost(judge_calls)

    @classmethod
    def judged(cls, calls: list, **grades):
        """The kind's metrics with every judge call on the item (JudgeCall each) and what they cost."""
        made = [call.to_json() for call in calls]
        return cls(judge_calls=made, judge_cost_usd=paid_cost(made), **grades)


class FieldFormat(Benchmark):
    """A kind holding the benchmark's prompt text per item (`item.prompt_text`) and its images (`item.images`)."""

    judge: Judge | None = None

    def set_judge(self, judge: Judge | None) -> None:
        self.judge = judge

    def warm_up(self, tools: str) -> None:
        if tools != "none":
            load_in_background(IMAGE_TOOLS_MODULE)

    @contextlib.contextmanager
    def setup(self, item, tools: str, work: Path, home: Path, item_root: Path, template_text: str):
        conversions: list[str] = []
        if tools == "none":
            # Attached to the first message from the private home, which no tool can reach in this mode.
            inline = [image.place(home, conversions) for image in item.images]
            prompt = render_verbatim(template_text, item.prompt_text, attached_phrase(len(inline)))
            yield ItemSetup(prompt, ToolSet(), inline, conversions=conversions)
            return
        placed = [image.place(work, conversions) for image in item.images]
        with image_toolset(work, tools) as (toolset, endpoints):
            prompt = render_verbatim(template_text, item.prompt_text, images_phrase(placed))
            yield ItemSetup(prompt, toolset, endpoints=endpoints, conversions=conversions)

    def extra_rollup(self, records: list) -> dict | None:
        """What the judge did across the run, for rollup.json: calls, answered from the cache, cost."""
        calls = [call for r in records for call in (r.metrics or {}).get("judge_calls") or []]
        if not calls:
            return None
        return {
            "judge": {
                "model": calls[0].get("model"),
                "calls": len(calls),
                "from_cache": sum(bool(c.get("cached")) for c in calls),
                "failed": sum(c.get("reply") is None for c in calls),
                "cost_usd": paid_cost(calls),
            }
        }

    def rules_source(self) -> tuple:
        """The functions, modules and texts the grade rests on; their source is the scorer hash."""
        raise NotImplementedError

    def scorer_hash(self) -> str:
        parts = [inspect.getsource(x) if callable(x) or inspect.ismodule(x) else str(x) for x in self.rules_source()]
        parts.append(f"judge={self.judge.model if self.judge else 'none'}")
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
