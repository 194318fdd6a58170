"""The Codex model catalog: asked of the CLI once per process, in the background, failures not kept."""

from __future__ import annotations

import json
import stat

import pytest

from agent_eval.agents.codex import adapter
from agent_eval.agents.codex.adapter import CATALOG_OVERRIDES, bundled_catalog


def fake_codex(path, calls, catalog: dict | None):
    """A stand-in for `codex` that counts its calls and prints `catalog` (None: fails, prints nothing)."""
    body = f"echo x >> {calls}\n" + (
        f"cat <<'JSON'\n{json.dumps(catalog)}\nJSON\n" if catalog else "echo broken >&2; exit 3\n"
    )
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_the_catalog_is_asked_once_and_neutralised(tmp_path, monkeypatch):
    monkeypatch.setattr(adapter, "_catalogs", {})
    calls = tmp_path / "calls"
    exe = fake_codex(tmp_path / "codex", calls, {"models": [{"slug": "m1", "tool_mode": "code"}, {"slug": "m2"}]})
    first = bundled_catalog(exe)  # a run's warm-up: returns at once
    text = bundled_catalog(exe).result(timeout=30)
    assert bundled_catalog(exe) is first
    models = json.loads(text)["models"]
    assert [m["slug"] for m in models] == ["m1", "m2"]
    assert all(m[k] == v for m in models for k, v in CATALOG_OVERRIDES.items())
    assert calls.read_text().count("x") == 1


def test_a_failed_catalog_is_reported_and_asked_again(tmp_path, monkeypatch):
    monkeypatch.setattr(adapter, "_catalogs", {})
    calls = tmp_path / "calls"
    exe = fake_codex(tmp_path / "codex", calls, None)
    with pytest.raises(RuntimeError, match=r"printed no catalog \(exit 3\): broken"):
        bundled_catalog(exe).result(timeout=30)
    fake_codex(exe, calls, {"models": []})  # fixed: the next item asks again, and gets it
    assert json.loads(bundled_catalog(exe).result(timeout=30)) == {"models": []}
    assert calls.read_text().count("x") == 2
