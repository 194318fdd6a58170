"""Small generated sets in the field's two layouts, for tests and the demo: a VLMEvalKit TSV (base64 images,
hints, 2-6 options, a multi-image row, a row sharing another row's image) and a BabyVision folder
(meta_data.jsonl beside image files, choice and blank questions). Every answer is exact by
construction: the images are drawn from it. Nothing here comes from the real benchmarks."""

from __future__ import annotations

import base64
import io
import json
import random
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

COLOURS = {
    "red": (220, 30, 30),
    "green": (30, 160, 60),
    "blue": (40, 70, 220),
    "yellow": (235, 200, 20),
    "purple": (130, 50, 170),
    "orange": (240, 130, 20),
}
SIDES = ("left", "right", "top", "bottom")


def _canvas(size: int) -> Image.Image:
    return Image.new("RGB", (size, size), (245, 245, 240))


def _square(colour: str, size: int, rng: random.Random, where: str = "center", small: bool = False) -> Image.Image:
    img = _canvas(size)
    side = size // (12 if small else 4)
    centre = {
        "center": (size // 2, size // 2),
        "left": (size // 5, size // 2),
        "right": (4 * size // 5, size // 2),
        "top": (size // 2, size // 5),
        "bottom": (size // 2, 4 * size // 5),
    }[where]
    x, y = centre[0] + rng.randint(-4, 4), centre[1] + rng.randint(-4, 4)
    ImageDraw.Draw(img).rectangle([x - side // 2, y - side // 2, x + side // 2, y + side // 2], fill=COLOURS[colour])
    return img


def _dots(count: int, size: int, rng: random.Random) -> Image.Image:
    img = _canvas(size)
    draw = ImageDraw.Draw(img)
    r = size // 24
    for n in range(count):
        x = (n + 1) * size // (count + 1)
        y = size // 2 + rng.randint(-size // 6, size // 6)
        draw.ellipse([x - r, y - r, x + r, y + r], fill=(20, 20, 20))
    return img


def _b64(img: Image.Image) -> str:
    buffer = io.BytesIO()
    img.save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def _options(right: str, pool: list[str], n: int, rng: random.Random) -> tuple[list[str], str]:
    others = [p for p in pool if p != right]
    texts = rng.sample(others, n - 1) + [right]
    rng.shuffle(texts)
    return texts, chr(65 + texts.index(right))


def _mcq(image: str | None, question: str, texts: list[str], answer: str, category: str, l2: str) -> dict[str, Any]:
    """One TSV row (its index set when written)."""
    options = dict(zip("ABCDEF", texts))
    return {
        "image": image,
        "question": question,
        "hint": None,
        **options,
        "answer": answer,
        "category": category,
        "l2-category": l2,
        "split": "dev",
    }


def write_vlmeval_tsv(out: Path, seed: int, per_task: int) -> Path:
    """OUT/vlmeval_sample.tsv; returns its path."""
    rng = random.Random(seed)
    columns = ["index", "image", "question", "hint", *"ABCDEF", "answer", "category", "l2-category", "split"]
    rows: list[dict[str, Any]] = []
    colours = []
    for n in range(per_task):
        colour = rng.choice(list(COLOURS))
        colours.append(colour)
        texts, answer = _options(colour, list(COLOURS), 2 + n % 5, rng)  # 2 to 6 options
        square = _b64(_square(colour, 256, rng))
        rows.append(_mcq(square, "What colour is the square?", texts, answer, "colour", "perception"))
        if n % 2:
            rows[-1]["hint"] = "The background is off-white."
        count = rng.randint(2, 7)
        texts, answer = _options(str(count), [str(c) for c in range(1, 9)], 4, rng)
        dots = _b64(_dots(count, 320, rng))
        rows.append(_mcq(dots, "How many black dots are there?", texts, answer, "counting", "perception"))
        where = rng.choice(SIDES)
        texts, answer = _options(where, list(SIDES), 4, rng)
        # a large image with a small mark: where looking again pays
        mark = _b64(_square("blue", 2048, rng, where, small=True))
        question = "On which side of the image is the small blue square?"
        rows.append(_mcq(mark, question, texts, answer, "position", "reasoning"))
    first, second = rng.sample(list(COLOURS), 2)
    texts, answer = _options(second, list(COLOURS), 4, rng)
    pair = repr([_b64(_square(first, 200, rng)), _b64(_square(second, 200, rng))])
    rows.append(_mcq(pair, "What colour is the square in the second image?", texts, answer, "colour", "perception"))
    warm = colours[0] in ("red", "orange", "yellow")
    question = "Is the square's colour warm or cool?"
    rows.append({**rows[0], **_mcq(None, question, ["warm", "cool"], "A" if warm else "B", "colour", "perception")})
    out.mkdir(parents=True, exist_ok=True)
    path = out / "vlmeval_sample.tsv"
    lines = ["\t".join(columns)]
    for index, row in enumerate(rows, start=1):
        row["index"] = index
        if row["image"] is None:
            row["image"] = "1"  # shares row 1's image, as VLMEvalKit's files do
        lines.append("\t".join("" if row.get(c) is None else str(row[c]) for c in columns))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _babyvision_row(task_id: int, image: str, question: str, options: list[str], answer: str, family: str) -> dict:
    """One line of meta_data.jsonl: a choice question (answer: the right option's letter) or, without options, a
    blank one; `family` is "type/subtype"."""
    kind, subtype = family.split("/")
    choice, blank = (ord(answer) - 65, None) if options else (None, answer)
    return {
        "taskId": task_id,
        "image": image,
        "question": question,
        "ansType": "choice" if options else "blank",
        "options": options,
        "choiceAns": choice,
        "blankAns": blank,
        "type": kind,
        "subtype": subtype,
    }


def write_babyvision_folder(out: Path, seed: int, per_task: int) -> Path:
    """OUT/meta_data.jsonl and OUT/images/; returns the meta file's path."""
    rng = random.Random(seed)
    (out / "images").mkdir(parents=True, exist_ok=True)
    rows = []
    for n in range(per_task):
        colour = rng.choice(list(COLOURS))
        texts, answer = _options(colour, list(COLOURS), 4, rng)
        name = f"images/colour_{n}.png"
        _square(colour, 256, rng).save(out / name)
        family = "Fine-grained Discrimination/Colour"
        rows.append(_babyvision_row(100 + n, name, "Which colour is the square?", texts, answer, family))
        count = rng.randint(2, 7)
        name = f"images/dots_{n}.png"
        _dots(count, 320, rng).save(out / name)
        family = "Visual Pattern Recognition/Counting"
        rows.append(_babyvision_row(200 + n, name, "How many black dots are there?", [], str(count), family))
    path = out / "meta_data.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path
