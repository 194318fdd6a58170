import json

import pytest

from support.datasets import bank_rows, full_bank_rows, write_metadata_layout
from support.sandboxes import world  # noqa: F401  (the sandbox tests' fixture, for every folder)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Under xdist (`make test`: --dist loadgroup), the tests sharing a module-scoped fixture (often whole
    agent runs) go to one worker, so the fixture is built once rather than once on every worker."""
    for item in items:
        defs = getattr(item, "_fixtureinfo", None)
        shared = sorted(n for n, d in (defs.name2fixturedefs.items() if defs else ()) if d and d[-1].scope == "module")
        if shared and not item.get_closest_marker("xdist_group"):
            params = item.callspec.params if hasattr(item, "callspec") else {}
            key = ",".join(f"{n}={params[n]}" if n in params else n for n in shared)
            item.add_marker(pytest.mark.xdist_group(f"{item.module.__name__}:{key}"))
    # Longest first, so the last tests to start are short ones and no worker is left with a long tail. xdist 3.8's
    # loadgroup hands out the groups with the most tests first (its default --loadscope-reorder), then the rest in
    # this order: the Slurm tests (one cluster, one worker, for minutes), then the modules with real-CLI tests, then
    # the rest. Whole modules move (a module-scoped fixture is built once), in their order. Measured 2026-12-06 (the
    # whole suite at load ~20): the four workers ended within 11 s of each other, on unit tests; no group was last.
    module_rank: dict[str, int] = {}
    for item in items:
        module = item.nodeid.split("::")[0]
        module_rank[module] = min(module_rank.get(module, 2), _rank(item))
    items.sort(key=lambda item: module_rank[item.nodeid.split("::")[0]])


def _rank(item) -> int:
    if any(m.args and m.args[0] == "slurm" for m in item.iter_markers("xdist_group")):
        return 0
    return 1 if item.get_closest_marker("e2e") or item.nodeid.startswith("tests/e2e/") else 2


@pytest.hookimpl(tryfirst=True)  # before xdist sends the node ids to the scheduler
def pytest_collection_finish(session):
    """xdist 3.8 sends a test's group to the scheduler as a "@group" suffix of its node id, set through a field
    pytest 9.2 no longer reads (pytest-dev/pytest-xdist#1386): without this the groups are silently ignored.
    Does nothing once xdist sets the suffix itself."""
    if not session.config.getoption("loadgroup", False):
        return
    from _pytest.nodeid import NodeId

    for item in session.items:
        groups = sorted(
            {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")}
        )
        if groups and not item.nodeid.endswith("@" + "_".join(groups)):
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(groups)}")


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
