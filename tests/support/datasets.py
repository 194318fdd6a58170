"""The real bank's rows and dataset directories in the released layouts, for loader and run tests."""

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


# The bank's answers (facts: id, task, category, answer) live in the project, so a fresh clone tests
# the scorer and loader on every real answer. The question texts stay outside: AGENT_EVAL_BANK or
# ../shared/activevision/items.jsonl; tests that need them skip, saying why, when they are absent.
ANSWERS = ROOT / "tests" / "data" / "activevision_answers.jsonl"


BANK = Path(os.environ.get("AGENT_EVAL_BANK", ROOT.parent / "shared" / "activevision" / "items.jsonl"))


STAND_IN_QUESTION = (
    "(question text not bundled with the project) Provide your final answer enclosed in <answer>...</answer> tags."
)


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def bank_rows() -> list[dict]:
    """The real 85 items: questions from the full bank when it is present, else a stand-in question."""
    if BANK.is_file():
        return _read_jsonl(BANK)
    return [{**row, "question": STAND_IN_QUESTION} for row in _read_jsonl(ANSWERS)]


def full_bank_rows() -> list[dict]:
    if not BANK.is_file():
        pytest.skip(f"the real question bank is not at {BANK} (set AGENT_EVAL_BANK to run this test)")
    return _read_jsonl(BANK)


def make_image(path: Path, seed: int) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (64, 48), ((seed * 37) % 256, (seed * 91) % 256, 120)).save(path)


def write_metadata_layout(root: Path, rows: list[dict]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    with (root / "metadata.jsonl").open("w") as handle:
        for index, row in enumerate(rows):
            make_image(root / f"{row['id']}.png", index)
            handle.write(json.dumps({**row, "file_name": f"{row['id']}.png"}) + "\n")
    return root


def write_manifest_layout(root: Path, rows: list[dict]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    records = []
    for index, row in enumerate(rows):
        make_image(root / "images" / f"{row['id']}.png", index)
        records.append({**row, "image": f"{row['id']}.png"})
    (root / "manifest.json").write_text(json.dumps(records, indent=1))
    return root
