"""`make setup` installs requirements.lock: every machine grades with the same library versions."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def locked() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"requirements.lock: {line!r} is not pinned with =="
            pins[_name(name)] = version
    return pins


def test_the_venv_has_exactly_the_locked_versions():
    wrong = {
        name: (version, metadata.version(name))
        for name, version in locked().items()
        if metadata.version(name) != version
    }
    assert wrong == {}, "run `make setup` (or `make lock` after changing pyproject.toml)"


def test_every_direct_dependency_is_locked():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *(d for extra in project["optional-dependencies"].values() for d in extra)]
    names = {_name(re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0]) for d in wanted}
    assert names - set(locked()) == set()
