import json

import pytest

from support.datasets import bank_rows, full_bank_rows, write_metadata_layout
from support.sandboxes import world  # noqa: F401  (the sandbox tests' fixture, for every folder)


@pytest.fixture
def bank():
    return bank_rows()


@pytest.fixture
def bank_questions():
    """The real question texts: only from the full bank, skipped with the reason when it is absent."""
    return full_bank_rows()


@pytest.fixture
def bank_dataset(tmp_path, bank):
    """The real 85 questions and answers in the released metadata.jsonl layout, with generated images."""
    return write_metadata_layout(tmp_path / "data", bank)


@pytest.fixture(scope="session")
def sample_data(tmp_path_factory):
    """One generated item per sample task (ids CCC-0, RC-0, MPT-0, ACF-0, LIS-0, FDS-0)."""
    from agent_eval.benchmarks.activevision.samples import write_sample_set

    root = tmp_path_factory.mktemp("samples") / "data"
    write_sample_set(root, seed=0, per_task=1)
    return root


@pytest.fixture(scope="session")
def sample_truth(sample_data):
    return {row["id"]: row for row in map(json.loads, (sample_data / "metadata.jsonl").read_text().splitlines())}
