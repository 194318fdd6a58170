"""A Codex item keeps what reading and `regrade --reparse` read (its session log, its config, what the agent
wrote), not the CLI's own scaffolding (model catalog, bundled skills, SQLite state: 2 MB in 70 files an
item before); show and regrade --reparse still work on it."""

import json
import re

import pytest
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
    # what was deleted in the background is gone when the run returns (none of it left half deleted to trip a reader)
    assert [p.name for p in (outcome.store.root / "sandboxes").iterdir()] == ["LIS-0"]
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


def test_a_codex_item_reaches_only_its_model_and_tools_and_the_model_receives_the_same(sample_data, tmp_path):
    """With its plugin sync and usage metrics off (the adapter's COMMON_SWITCHES), a Codex item in a tool mode asks
    the sandbox's proxy for nothing but its model and its tools; with them on (as before issue 40) the proxy refused
    github.com, api.github.com, chatgpt.com and ab.chatgpt.com on every item, and Codex's MCP start waited for the
    sync. The request the model receives is the same either way (ids, the session's client metadata and the item's
    own paths aside)."""
    from agent_eval.agents.codex import adapter

    removed = ["features.plugins=false", "analytics.enabled=false"]
    assert set(removed) <= set(adapter.COMMON_SWITCHES)
    seen = {}
    for name, switches in (
        ("now", adapter.COMMON_SWITCHES),
        ("before", [s for s in adapter.COMMON_SWITCHES if s not in removed]),
    ):
        with ScriptedServer({"turns": ["<answer>1</answer>"]}) as server:
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(adapter, "COMMON_SWITCHES", switches)
                outcome = run_agent("codex", "python", server, sample_data, tmp_path / name, ids="LIS-0", jobs=1)
            (main,) = server.main_requests()
        (record,) = outcome.store.records()
        assert record.status == "ok", record.error
        meta = json.loads((outcome.store.root / "sandboxes" / "LIS-0" / "meta.json").read_text())
        received = {k: v for k, v in main.body.items() if k != "client_metadata"}  # the session's ids: not the model's
        body = json.dumps(received, sort_keys=True).replace(str(tmp_path / name), "ITEM")
        seen[name] = (meta["exit"]["proxy_refused"], re.sub(r'"(id|prompt_cache_key)": "[^"]*"', "ID", body))
    assert seen["now"][0] == [], seen["now"][0]
    argv = json.loads((outcome.store.root / "sandboxes" / "LIS-0" / "meta.json").read_text())["argv"]
    assert "features.shell_snapshot=false" not in argv  # the shell tool's snapshot stays where there is a shell
    assert {"github.com:443", "ab.chatgpt.com:443"} <= set(seen["before"][0]), seen["before"][0]
    assert seen["now"][1] == seen["before"][1]


@pytest.mark.parametrize("mode", ["none", "image"])
def test_without_a_shell_tool_codex_takes_no_shell_snapshot_and_the_model_receives_the_same(
    mode, sample_data, tmp_path
):
    """Its snapshot of a login shell's environment (two bash processes and their children at every start, 28 ms of
    CPU an item: docs/performance.md, 6f) serves only the shell tool: off where there is none, and the request the
    model receives is the same with it on (ids, the session's client metadata and the item's own paths aside)."""
    from agent_eval.agents.codex import adapter

    prepare = adapter.Codex.prepare

    def with_the_snapshot(self, ctx):
        invocation = prepare(self, ctx)
        at = invocation.argv.index("features.shell_snapshot=false")
        del invocation.argv[at - 1 : at + 1]
        return invocation

    seen = {}
    for name in ("now", "with the snapshot"):
        with ScriptedServer({"turns": ["<answer>1</answer>"]}) as server:
            with pytest.MonkeyPatch.context() as patch:
                if name != "now":
                    patch.setattr(adapter.Codex, "prepare", with_the_snapshot)
                outcome = run_agent("codex", mode, server, sample_data, tmp_path / name, ids="LIS-0", jobs=1)
            (main,) = server.main_requests()
        (record,) = outcome.store.records()
        assert record.status == "ok", record.error
        meta = json.loads((outcome.store.root / "sandboxes" / "LIS-0" / "meta.json").read_text())
        received = {k: v for k, v in main.body.items() if k != "client_metadata"}
        body = json.dumps(received, sort_keys=True).replace(str(tmp_path / name), "ITEM")
        seen[name] = (meta["argv"], re.sub(r'"(id|prompt_cache_key)": "[^"]*"', "ID", body))
    assert "features.shell_snapshot=false" in seen["now"][0]
    assert "features.shell_snapshot=false" not in seen["with the snapshot"][0]
    assert seen["now"][1] == seen["with the snapshot"][1]
