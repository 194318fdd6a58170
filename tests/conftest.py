import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BANK = Path(os.environ.get("AGENT_EVAL_BANK", ROOT.parent / "shared" / "activevision" / "items.jsonl"))


def bank_rows() -> list[dict]:
    """The real ActiveVision question/answer bank (no images)."""
    if not BANK.is_file():
        raise FileNotFoundError(f"the real item bank is missing at {BANK}; set AGENT_EVAL_BANK")
    return [json.loads(line) for line in BANK.read_text().splitlines() if line.strip()]


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


@pytest.fixture
def bank():
    return bank_rows()


@pytest.fixture
def bank_dataset(tmp_path, bank):
    """The real 85 questions and answers in the released metadata.jsonl layout, with generated images."""
    return write_metadata_layout(tmp_path / "data", bank)


@pytest.fixture(scope="session")
def sample_data(tmp_path_factory):
    """One generated item per sample task (ids CCC-0, RC-0, MPT-0, ACF-0, LIS-0, FDS-0)."""
    from agent_eval.samples import write_sample_set
    root = tmp_path_factory.mktemp("samples") / "data"
    write_sample_set(root, seed=0, per_task=1)
    return root


@pytest.fixture(scope="session")
def sample_truth(sample_data):
    return {row["id"]: row for row in map(json.loads, (sample_data / "metadata.jsonl").read_text().splitlines())}
