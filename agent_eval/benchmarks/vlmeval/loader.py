"""VLMEvalKit's TSV (one multiple-choice question per row), read as VLMEvalKit reads it.

Columns: `index`, `question`, option columns `A`..`Z`, `answer`, and the image as `image` (base64, a
list of them written as a Python list, or the `index` of another row whose image it shares) and/or
`image_path` (a file, or a list of files, relative to the TSV's folder when not absolute); optional
`hint`, `category`, `l2-category`, `split`. The file is read with pandas as the reference reads it
(`pd.read_csv(path, sep="\\t")`), so its empty-cell rules hold here too: an empty cell, or one reading
NA, N/A, None, null or nan, is no option, and a column of numbers only shows them as pandas does
(`1`, or `1.0` when the column also has empty cells).

A row that cannot be asked (no answer, no options, an image that does not decode, a missing image
file) is left out with one problem line naming the file, row and index; the rest of the file loads.
"""

from __future__ import annotations

import ast
import base64
import binascii
import io
import string
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.progress import track

from agent_eval.benchmarks.fieldformats import FieldDataset, FieldItem, ImageSource, image_files, image_stem
from agent_eval.benchmarks.vlmeval.prompting import mcq_prompt
from agent_eval.datamodel.jsonl import DataError

BIG_FILE = 50 * 2**20  # bytes of TSV past which its rows are checked under a progress bar
# A value this short in `image` names another row's image (VLMEvalKit saves space so); longer is base64.
IMAGE_REFERENCE_MAX = 64


@dataclass(frozen=True)
class TsvItem(FieldItem):
    """One askable row of a VLMEvalKit TSV. Its task is the `category` column (what the reference reports per
    ability), its category the coarser grouping the file has."""

    question: str  # the raw question (the judge's prompt quotes it)
    options: dict[str, str]
    hint: str | None = None
    split: str | None = None


def is_tsv(root: Path) -> bool:
    return root.is_file() and root.suffix.lower() == ".tsv"


def _text(row: dict, name: str) -> str | None:
    """The row's cell, None when it has no such column or pandas reads the cell as empty."""
    import pandas as pd

    value = row.get(name)
    return None if value is None or (not isinstance(value, (list, tuple)) and bool(pd.isna(value))) else value


def _as_list(value) -> list[str]:
    """VLMEvalKit's toliststr: a "[...]" string is a list literal, anything else one value."""
    text = str(value)
    if len(text) > 1 and text[0] == "[" and text[-1] == "]":
        try:
            return [str(x) for x in ast.literal_eval(text)]
        except (ValueError, SyntaxError):
            raise ValueError(f"the list {text[:60]!r} cannot be read") from None
    return [text]


def _decodes(data: str) -> str | None:
    """None when the base64 holds an image PIL can open, else what is wrong."""
    from PIL import Image, UnidentifiedImageError

    try:
        raw = base64.b64decode(data)
    except (binascii.Error, ValueError) as error:
        return f"its base64 image does not decode ({error})"
    try:
        with Image.open(io.BytesIO(raw)) as img:
            img.verify()
    except Image.DecompressionBombError:
        return None  # an image, only larger than Pillow opens unasked: placed and sent as any other
    except (OSError, UnidentifiedImageError, ValueError, SyntaxError):
        return f"its base64 image decodes to {len(raw)} bytes that are not an image"
    return None


def read_tsv(path: Path) -> FieldDataset:
    import pandas as pd

    try:
        frame = pd.read_csv(path, sep="\t")
    except (OSError, ValueError, pd.errors.ParserError) as error:
        raise DataError(f"{path}: cannot be read as a TSV ({error}); check the file") from None
    missing = [name for name in ("index", "question", "answer") if name not in frame.columns]
    if "image" not in frame.columns and "image_path" not in frame.columns:
        missing.append("image or image_path")
    if missing:
        raise DataError(f"{path}: missing column(s) {', '.join(missing)} (VLMEvalKit's TSV layout)")
    rows = frame.to_dict("records")
    by_index = {str(row["index"]): row for row in rows}
    numbered: Iterable[tuple[int, Any]] = enumerate(rows, start=1)
    if path.stat().st_size > BIG_FILE:  # decoding every image to check it takes a while on HR-Bench 8K's files
        numbered = track(numbered, total=len(rows), description=f"checking {path.name}", transient=True)
    placed = ((f"{path} row {number} (index {row['index']})", row) for number, row in numbered)
    dataset = FieldDataset(root=path, layout="vlmeval-tsv")
    return dataset.read(path, placed, lambda row: _item(row, path.parent, by_index), "index", "row")


def _images(row: dict, folder: Path, by_index: dict) -> tuple[ImageSource, ...]:
    if _text(row, "image") is not None:
        value = str(row["image"])
        if len(value) <= IMAGE_REFERENCE_MAX:
            target = _text(by_index.get(value, {}), "image")
            if target is None or len(str(target)) <= IMAGE_REFERENCE_MAX:
                raise ValueError(f"its image names row {value!r}, which holds no image")
            value = str(target)
        datas = _as_list(value)
        sources = []
        for n, data in enumerate(datas):
            problem = _decodes(data)
            if problem:
                raise ValueError(problem if len(datas) == 1 else f"image {n + 1}: {problem}")
            sources.append(ImageSource(name=image_stem(n, len(datas)), data=data))
        return tuple(sources)
    if _text(row, "image_path") is not None:
        return image_files(folder, _as_list(row["image_path"]))
    raise ValueError("it has no image (an empty `image` and `image_path`)")


def _item(row: dict, folder: Path, by_index: dict) -> TsvItem:
    # Option values keep pandas' types: the prompt shows them as the reference's f-string does.
    options = {letter: row[letter] for letter in string.ascii_uppercase if _text(row, letter) is not None}
    if not options:
        raise ValueError("it has no options (columns A, B, ... are empty)")
    answer = _text(row, "answer")
    if answer is None:
        raise ValueError("it has no answer")
    question = row["question"]
    hint = _text(row, "hint")
    images = _images(row, folder, by_index)
    category = _text(row, "category")
    l2 = _text(row, "l2-category")
    split = _text(row, "split")
    return TsvItem(
        id=str(row["index"]),
        task=str(category) if category is not None else "vlmeval",
        # the coarser grouping the file has: MMBench's l2-category, HR-Bench's cycle_category, else the split
        category=str(next((v for v in (l2, _text(row, "cycle_category"), split) if v is not None), "")),
        question=str(question),
        prompt_text=mcq_prompt(question, options, hint),
        options=options,
        answer=str(answer),
        images=images,
        hint=hint,
        split=None if split is None else str(split),
    )
