"""BabyVision's layout: `DIR/meta_data.jsonl` beside the image files, read as VLMEvalKit's BabyVision reads it
(docs/kinds/babyvision.md has the fields). `image` is a path relative to DIR or a list of them, `choiceAns` the
0-based index of the right option; the truth is the option's letter or the blank's text (`null` reads as empty,
as there). A row that cannot be asked is left out with one problem line naming the file and line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_eval.benchmarks.babyvision.prompting import build_question
from agent_eval.benchmarks.fieldformats import FieldDataset, FieldItem, image_files
from agent_eval.datamodel.jsonl import jsonl_rows

META = "meta_data.jsonl"


@dataclass(frozen=True)
class BabyVisionItem(FieldItem):
    """One row of BabyVision's meta_data.jsonl. Its task is the subtype (the 22 fine-grained tasks), its category
    the type (the four families), its answer a choice question's letter or a blank one's text."""

    ans_type: str


def is_babyvision(root: Path) -> bool:
    return root.is_dir() and (root / META).is_file()


def optional(value):
    """clean_babyvision_optional: None and the string "null" (any case) are empty."""
    return "" if value is None or (isinstance(value, str) and value.lower() == "null") else value


def read_dataset(root: Path) -> FieldDataset:
    path = root / META
    dataset = FieldDataset(root=root, layout="babyvision")
    rows = jsonl_rows(path, skipped=dataset.problems)
    return dataset.read(path, rows, lambda row: _item(row, root), "taskId", "line")


def _item(row: dict, root: Path) -> BabyVisionItem:
    missing = [name for name in ("taskId", "image", "question", "ansType", "type", "subtype") if row.get(name) is None]
    if missing:
        raise ValueError(f"missing field(s) {', '.join(missing)}")
    ans_type = row["ansType"]
    if ans_type == "blank":
        answer = optional(row.get("blankAns", ""))
        if answer == "":
            raise ValueError("a blank question without blankAns")
    else:
        options = row.get("options") or []
        if not options:
            raise ValueError("a choice question without options")
        choice = optional(row.get("choiceAns", ""))
        try:
            answer = chr(65 + int(choice))
        except (TypeError, ValueError):
            raise ValueError(f"a choice question whose choiceAns {choice!r} is not an option's index") from None
    images = image_files(root, row["image"] if isinstance(row["image"], list) else [row["image"]])
    return BabyVisionItem(
        id=str(row["taskId"]),
        task=str(row["subtype"]),
        category=str(row["type"]),
        prompt_text=build_question(row),
        answer=str(answer),
        ans_type=str(ans_type),
        images=images,
    )
