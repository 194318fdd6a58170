"""ActiveVision's dataset: the released layouts, checked and hashed.

Layouts read:
- `DATA/metadata.jsonl`: rows `id, file_name, task, category, question, answer`, image at
  `DATA/<file_name>` (the released dataset);
- `DATA/manifest.json`: records `id, task, category, image, question, answer`, images under
  `DATA/images/` (an older archive).
Every problem is a `DataError` with one line naming the file, line or id, and what to do.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from agent_eval.benchmarks.base import HashedDataset
from agent_eval.datamodel.jsonl import DataError, jsonl_rows

REQUIRED_FIELDS = ("id", "task", "category", "question", "answer")


@dataclass(frozen=True)
class ActiveVisionItem:
    """One ActiveVision item: one image and one question."""

    id: str
    task: str
    category: str
    question: str
    answer: str
    image: Path

    def hashed_text(self) -> list[str]:
        return [self.id, self.task, self.category, self.question, self.answer]

    def image_digests(self) -> list[bytes]:
        try:
            return [hashlib.sha256(self.image.read_bytes()).digest()]
        except OSError as error:
            raise DataError(f"item {self.id}: image {self.image} cannot be read ({error.strerror})") from None


def _rows_from_manifest(path: Path) -> list[tuple[str, dict]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise DataError(f"{path}:{error.lineno}: malformed JSON ({error.msg}); fix the manifest") from None
    records = data.get("items") if isinstance(data, dict) else data
    if not isinstance(records, list):
        raise DataError(f"{path}: expected a list of item records (or an object with an 'items' list)")
    return [(f"{path} record {index}", row) for index, row in enumerate(records)]


def load_dataset(root: Path | str) -> HashedDataset:
    root = Path(root)
    if not root.is_dir():
        raise DataError(f"dataset directory {root} does not exist; download the dataset there or pass --data DIR")
    metadata, manifest = root / "metadata.jsonl", root / "manifest.json"
    try:
        if metadata.is_file():
            layout, image_field, rows = "metadata.jsonl", "file_name", jsonl_rows(metadata)
        elif manifest.is_file():
            layout, image_field, rows = "manifest.json", "image", _rows_from_manifest(manifest)
        else:
            raise DataError(f"{root}: no metadata.jsonl or manifest.json found; is this the dataset directory?")
    except OSError as error:
        # Read errors (EIO from a failing disk or mount) carry no file name: name the layout file.
        where = error.filename or (metadata if metadata.exists() else manifest)
        raise DataError(f"{where}: cannot be read ({error.strerror}); check the file and its permissions") from None
    dataset = HashedDataset(root=root, layout=layout)
    seen: dict[str, str] = {}
    for where, row in rows:
        if not isinstance(row, dict):
            raise DataError(f"{where}: expected an object, got {type(row).__name__}")
        missing = [name for name in (*REQUIRED_FIELDS, image_field) if name not in row]
        if missing:
            raise DataError(f"{where}: missing field(s) {', '.join(missing)}")
        item_id = str(row["id"])
        if item_id in seen:
            raise DataError(f"{where}: duplicate id {item_id!r} (first at {seen[item_id]})")
        seen[item_id] = where
        image = root / str(row[image_field])
        if layout == "manifest.json" and not image.is_file():  # its images are under images/, unless named so
            image = root / "images" / str(row[image_field])
        _check_image(item_id, image)
        task, category, question, answer = (str(row[name]) for name in ("task", "category", "question", "answer"))
        dataset.items.append(ActiveVisionItem(item_id, task, category, question, answer, image))
    if not dataset.items:
        raise DataError(f"{root / layout}: holds no items")
    return dataset


def _check_image(item_id: str, image: Path) -> None:
    if not image.is_file():
        raise DataError(f"item {item_id}: image {image} is missing; re-download the dataset or remove the item")
    if image.stat().st_size == 0:
        raise DataError(f"item {item_id}: image {image} is empty (0 bytes); re-download it")
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(image) as handle:
            handle.verify()
    except (UnidentifiedImageError, OSError, SyntaxError) as error:
        raise DataError(f"item {item_id}: image {image} is not a readable image ({error}); re-download it") from None
