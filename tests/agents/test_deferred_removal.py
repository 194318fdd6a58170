"""An item's CLI scaffolding leaves its folder at once and is deleted in the background (agents/deferred_removal.py);
Codex's prune keeps exactly its config and session log. No timing is asserted: what matters is where things are."""

from __future__ import annotations

import os
import subprocess
import sys

from agent_eval.agents import deferred_removal
from agent_eval.agents.codex.adapter import Codex
from agent_eval.agents.deferred_removal import TRASH_PREFIX, remove_soon, trash_dir, wait


def scaffolding(codex_home):
    (codex_home / "sessions" / "2026").mkdir(parents=True)
    (codex_home / "sessions" / "2026" / "rollout-1.jsonl").write_text("{}\n")
    (codex_home / "config.toml").write_text('model = "m"\n')
    for n in range(3):
        skill = codex_home / "skills" / ".system" / f"skill-{n}" / "scripts"
        skill.mkdir(parents=True)
        (skill / "run.py").write_text("print(1)\n")
    (codex_home / "state_5.sqlite").write_bytes(b"\0" * 4096)
    (codex_home / "model-catalog.json").write_text("{}")


def test_codex_prune_leaves_only_what_is_read_back_and_the_rest_is_deleted_beside_it(tmp_path):
    items = tmp_path / "sandboxes"
    codex_home = items / "LIS-0" / "home" / ".codex"
    scaffolding(codex_home)
    Codex().prune(items / "LIS-0")
    assert sorted(p.name for p in codex_home.iterdir()) == ["config.toml", "sessions"]  # at once
    assert (codex_home / "sessions" / "2026" / "rollout-1.jsonl").read_text() == "{}\n"
    assert wait(30)
    assert sorted(p.name for p in items.iterdir()) == ["LIS-0"]  # deleted, and this process's trash folder gone


def test_a_trash_folder_a_killed_process_left_is_deleted_by_the_next_and_a_live_ones_is_not(tmp_path):
    items = tmp_path / "sandboxes"
    items.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = trash_dir(items).name[len(TRASH_PREFIX) :].rsplit("-", 1)[0]
    left = items / f"{TRASH_PREFIX}{host}-{int(dead.stdout)}"  # its process is gone
    (left / "abcd-skills" / "x").mkdir(parents=True)
    alive = items / f"{TRASH_PREFIX}{host}-{os.getppid()}"  # a live process's (this test's parent)
    alive.mkdir()
    other_host = items / f"{TRASH_PREFIX}elsewhere-{int(dead.stdout)}"  # another host's: its pid says nothing here
    other_host.mkdir()
    (items / "CCC-0").mkdir()
    (items / "CCC-0" / "old.db").write_text("x")
    remove_soon([items / "CCC-0" / "old.db"], items)
    assert wait(30)
    assert not left.exists() and alive.is_dir() and other_host.is_dir()
    assert not (items / "CCC-0" / "old.db").exists()


def test_an_entry_that_cannot_be_renamed_is_removed_in_place(tmp_path, monkeypatch):
    def refuse(source, target):
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(deferred_removal.os, "rename", refuse)
    folder = tmp_path / "item" / "skills"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("x")
    remove_soon([folder], tmp_path)
    assert not folder.exists()
    assert wait(30)
