"""Dataset loading: the released ActiveVision layouts, checked, filtered, hashed.

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
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REQUIRED_FIELDS = ("id", "task", "category", "question", "answer")


class DataError(Exception):
    """Bad dataset or selection: shown to the user as one line, exit code 2."""


@dataclass(frozen=True)
class Item:
    id: str
    task: str
    category: str
    question: str
    answer: str
    image: Path

    def public(self) -> dict:
        """What may be shown to the agent: never the answer."""
        return {"id": self.id, "task": self.task, "category": self.category, "question": self.question}


@dataclass
class Dataset:
    root: Path
    layout: str
    items: list[Item] = field(default_factory=list)

    @property
    def tasks(self) -> list[str]:
        return sorted({item.task for item in self.items})

    @property
    def categories(self) -> list[str]:
        return sorted({item.category for item in self.items})

    def content_hash(self) -> str:
        """Hash of every item's text fields and image bytes: two runs with equal hashes saw the same data."""
        digest = hashlib.sha256()
        for item in sorted(self.items, key=lambda i: i.id):
            digest.update(json.dumps([item.id, item.task, item.category, item.question, item.answer]).encode())
            try:
                digest.update(hashlib.sha256(item.image.read_bytes()).digest())
            except OSError as error:
                raise DataError(f"item {item.id}: image {item.image} cannot be read ({error.strerror})") from None
        return digest.hexdigest()[:16]


def jsonl_rows(path: Path) -> list[tuple[str, dict]]:
    """(`file:line`, object) for each non-empty line; bad JSON is a DataError naming file and line."""
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise DataError(f"{where}: malformed JSON ({error.msg} at column {error.colno}); fix or remove that line") from None
            if not isinstance(row, dict):
                raise DataError(f"{where}: expected a JSON object per line, got {type(row).__name__}")
            rows.append((where, row))
    return rows


def _rows_from_manifest(path: Path) -> list[tuple[str, dict]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise DataError(f"{path}:{error.lineno}: malformed JSON ({error.msg}); fix the manifest") from None
    records = data.get("items") if isinstance(data, dict) else data
    if not isinstance(records, list):
        raise DataError(f"{path}: expected a list of item records (or an object with an 'items' list)")
    return [(f"{path} record {index}", row) for index, row in enumerate(records)]


def _check_fields(where: str, row: dict, image_field: str) -> None:
    if not isinstance(row, dict):
        raise DataError(f"{where}: expected an object, got {type(row).__name__}")
    missing = [name for name in (*REQUIRED_FIELDS, image_field) if name not in row]
    if missing:
        raise DataError(f"{where}: missing field(s) {', '.join(missing)}")


def load_dataset(root: Path | str) -> Dataset:
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
    dataset = Dataset(root=root, layout=layout)
    seen: dict[str, str] = {}
    for where, row in rows:
        _check_fields(where, row, image_field)
        item_id = str(row["id"])
        if item_id in seen:
            raise DataError(f"{where}: duplicate id {item_id!r} (first at {seen[item_id]})")
        seen[item_id] = where
        image = _image_path(root, layout, str(row[image_field]))
        _check_image(item_id, image)
        dataset.items.append(Item(
            id=item_id, task=str(row["task"]), category=str(row["category"]),
            question=str(row["question"]), answer=str(row["answer"]), image=image,
        ))
    if not dataset.items:
        raise DataError(f"{root / layout}: holds no items")
    return dataset


def _image_path(root: Path, layout: str, name: str) -> Path:
    if layout == "metadata.jsonl":
        return root / name
    direct = root / name  # some manifests already say "images/X.png"
    return direct if direct.is_file() else root / "images" / name


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


def shard_of(items: list[Item], index: int, count: int) -> list[Item]:
    """The index-th (1-based) of `count` slices, by a hash of the item id: the same on every machine
    and independent of the order or the other items selected."""
    return [item for item in items
            if int(hashlib.sha256(item.id.encode()).hexdigest(), 16) % count == index - 1]


def _split(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


def select(dataset: Dataset, tasks: str | None = None, ids: str | None = None,
           categories: str | None = None, limit: int | None = None) -> list[Item]:
    """Filter by comma-separated tasks, ids and categories, then keep the first `limit` per task."""
    items = dataset.items
    for name, wanted, valid, key in (
        ("task", _split(tasks), dataset.tasks, "task"),
        ("category", _split(categories), dataset.categories, "category"),
        ("id", _split(ids), [item.id for item in dataset.items], "id"),
    ):
        if not wanted:
            continue
        unknown = [value for value in wanted if value not in valid]
        if unknown:
            shown = ", ".join(valid if len(valid) <= 30 else valid[:30] + ["..."])
            raise DataError(f"unknown {name}(s) {', '.join(unknown)}; valid: {shown}")
        items = [item for item in items if getattr(item, key) in wanted]
    if limit is not None:
        if limit < 1:
            raise DataError(f"--limit must be at least 1, got {limit}")
        taken: Counter[str] = Counter()
        kept = []
        for item in items:
            if taken[item.task] < limit:
                taken[item.task] += 1
                kept.append(item)
        items = kept
    if not items:
        raise DataError("the filters select no items; loosen --tasks/--ids/--categories")
    return items


def resolve_data_dir(data: Path | None, console) -> Path:
    """--data, else ./data, else the bundled sample set (said out loud)."""
    if data is not None:
        return data
    if Path("data").is_dir():
        return Path("data")
    from agent_eval.benchmarks.registry import default_kind
    path = default_kind().bundled_samples()
    console.print(f"[yellow]No --data and no ./data: using the bundled sample tasks in {path} "
                  f"(procedurally generated, not the ActiveVision dataset).[/]")
    return path
