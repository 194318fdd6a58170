"""Everything in tests/e2e/ runs the real agent CLIs (or a real cluster): marked e2e, so
`make test-fast` (-m "not e2e") leaves it out wherever it is run from."""

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.e2e)
