"""A Codex item keeps what reading and `regrade --reparse` read (its session log, its config, what the agent
wrote), not the CLI's own scaffolding (model catalog, bundled skills, SQLite state: 2 MB in 70 files an
item before); show and regrade --reparse still work on it."""

import json

from click.testing import CliRunner

from agent_eval.cli import main
from agent_eval.scripted import ScriptedServer
from support.agentrun import run_agent

SCENARIO = {
    "turns": [
        {"call": "shell", "input": {"command": "echo measured > notes.txt"}},
        {"call": "view_file", "input": {"path": "image.png"}},
        "<answer>1</answer>",
    ]
}


def test_a_codex_item_keeps_only_what_is_read_back_and_still_reparses_and_shows(sample_data, tmp_path):
    with ScriptedServer(SCENARIO) as server:
        outcome = run_agent("codex", "python", server, sample_data, tmp_path, ids="LIS-0", jobs=1)
    (record,) = outcome.store.records()
    assert record.status in ("ok", "no_answer") and record.tool_calls == 2, record.error
    item = outcome.store.root / "sandboxes" / "LIS-0"
    codex_home = item / "home" / ".codex"
    assert sorted(p.name for p in codex_home.iterdir()) == ["config.toml", "sessions"]
    assert len(list((codex_home / "sessions").rglob("rollout-*.jsonl"))) == 1
    assert (item / "work" / "notes.txt").read_text() == "measured\n"  # what the agent wrote stays
    files = [p for p in item.rglob("*") if p.is_file()]
    assert len(files) <= 15 and sum(p.stat().st_size for p in files) < 400_000, [str(p) for p in files]
    steps_before = json.loads((item / "steps.json").read_text())

    regraded = CliRunner().invoke(main, ["regrade", "--reparse", str(outcome.store.root)])
    assert regraded.exit_code == 0, regraded.output
    assert "0 verdict(s) changed" in regraded.output and "0 status(es) changed" in regraded.output
    steps_after = json.loads((item / "steps.json").read_text())
    assert steps_after["steps"] == steps_before["steps"] and steps_after["images"] == steps_before["images"]
    assert [image["via"] for image in steps_after["images"]] == ["file_view"]  # the viewed image, from the rollout

    shown = CliRunner().invoke(main, ["show", str(outcome.store.root), "LIS-0"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "echo measured > notes.txt" in shown.output and "<answer>1</answer>" in shown.output
