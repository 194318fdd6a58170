"""Results written before the restructure (and by the first versions) read the same: every line of
tests/data/old-run-v1 loads, writes back with every key it had, and show and compare read the run."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_eval.commands.compare import command as compare_command
from agent_eval.commands.show import command as show_command
from agent_eval.datamodel.records import ItemRecord
from agent_eval.datamodel.results import RunStore

OLD_RUN = Path(__file__).resolve().parents[1] / "data" / "old-run-v1"


def old_lines() -> list[dict]:
    return [
        json.loads(line)
        for path in sorted(OLD_RUN.glob("*/items.jsonl"))
        for line in path.read_text().splitlines()
        if line.strip()
    ]


@pytest.mark.parametrize("row", old_lines(), ids=lambda row: row["id"])
def test_every_old_line_reads_and_writes_back_without_loss(row):
    written = ItemRecord.from_json(row).to_json()
    lost = {k: v for k, v in row.items() if k != "answer" and written.get(k) != v}
    assert lost == {}
    assert ItemRecord.from_json(written).to_json() == written  # and it is stable from then on


def test_a_no_tool_line_gets_its_truth_and_a_status():
    row = next(r for r in old_lines() if "status" not in r)
    record = ItemRecord.from_json(row)
    assert (record.ground_truth, record.status, record.correct, record.extra) == ("11", "ok", True, {"answer": 11})


def test_statuses_are_typed():
    with pytest.raises(ValueError, match="status"):
        ItemRecord(id="X", task="t", category="c", ground_truth="1", status="finished")
    with pytest.raises(ValueError):
        ItemRecord.from_json({"id": "X", "task": "t", "ground_truth": "1", "status": "done"})


def test_show_and_compare_read_the_old_run(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(OLD_RUN, a)
    shutil.copytree(OLD_RUN, b)
    assert len(RunStore(a).records()) == 4
    runner = CliRunner(env={"COLUMNS": "200"})
    shown = runner.invoke(show_command, [str(a)])
    assert shown.exit_code == 0, shown.output
    assert all(i in shown.output for i in ("ACF-0", "ACF-1", "BFC-0", "BFC-1")) and "timeout" in shown.output
    item = runner.invoke(show_command, [str(a), "ACF-0"])
    assert item.exit_code == 0 and "no transcript saved" in item.output and "correct ✓" in item.output
    compared = runner.invoke(compare_command, [str(a), str(b), "--format", "json"])
    assert compared.exit_code == 0, compared.output
    overall = json.loads(compared.output)["rows"][0]
    assert overall["n"] == 4 and overall["accuracy"] == [0.5, 0.5]


def test_a_first_version_steps_json_reads_and_a_newer_ones_keys_are_kept():
    from agent_eval.datamodel.transcript import TRANSCRIPT_SCHEMA_VERSION, Transcript

    old = Path(__file__).resolve().parents[1] / "data" / "old-steps-v1.json"
    transcript = Transcript.load(old)
    assert transcript.schema_version == 1 and transcript.images == [] and transcript.usage_by_model == {}
    assert transcript.tool_calls == 1 and transcript.final_text == "<answer>7</answer>"
    assert transcript.usage.input_tokens == 420
    newer = {**json.loads(old.read_text()), "schema_version": TRANSCRIPT_SCHEMA_VERSION + 1, "from_the_future": [1]}
    again = Transcript.from_json(newer)
    assert again.to_json()["from_the_future"] == [1]  # kept and written back, not lost
    bad = {**json.loads(old.read_text()), "steps": [{"kind": "telepathy"}]}
    with pytest.raises(ValueError, match="unknown step kind 'telepathy'"):
        Transcript.from_json(bad)


def nested_items(data, prefix=""):
    """Every leaf of a JSON object as (dotted key, value)."""
    for key, value in data.items():
        if isinstance(value, dict) and value:
            yield from nested_items(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def test_a_first_version_run_json_reads_typed_and_writes_back_without_loss():
    from agent_eval.datamodel.manifest import MANIFEST_SCHEMA_VERSION, RunManifest

    raw = json.loads((OLD_RUN / "run.json").read_text())
    manifest = RunManifest.from_json(raw)
    assert manifest.schema_version == 1 and manifest.run_name == "old-run-v1"
    assert (manifest.config.agent, manifest.config.tools, manifest.config.max_turns) == ("claude-code", "python", 30)
    assert manifest.config.benchmark is None and manifest.dataset.n_items == 4 and not manifest.scripted_model
    # v1 kept options in config (and the per-item cost cap was identity then): not lost
    assert manifest.config.extra == {"timeout_s": 1800.0, "jobs": 4, "max_item_cost_usd": None}
    written = dict(nested_items(manifest.to_json()))
    assert {k: v for k, v in nested_items(raw) if written.get(k) != v} == {}
    newer = {
        **raw,
        "schema_version": MANIFEST_SCHEMA_VERSION + 1,
        "from_the_future": {"x": 1},
        "dataset": {**raw["dataset"], "checksum": "abc"},
    }
    again = RunManifest.from_json(newer).to_json()
    assert again["from_the_future"] == {"x": 1} and again["dataset"]["checksum"] == "abc"
    with pytest.raises(ValueError):
        RunManifest.from_json({**raw, "dataset": {"n_items": "four"}})
    with pytest.raises(ValueError, match="'config' is not a JSON object"):
        RunManifest.from_json({**raw, "config": "x"})
    nulls = RunManifest.from_json({**raw, "options": None, "regraded": None, "auth": None})  # "nothing", as null
    assert (nulls.options, nulls.regraded, nulls.auth) == ({}, [], {})


def test_an_unreadable_run_json_is_named_with_what_to_do(tmp_path):
    from agent_eval.datamodel.results import ResultsError

    run = tmp_path / "run"
    shutil.copytree(OLD_RUN, run)
    (run / "run.json").write_text('{"config": ')
    with pytest.raises(ResultsError, match=r"run\.json: unreadable run manifest .*move the run aside"):
        RunStore(run).read_manifest()
    shown = CliRunner().invoke(show_command, [str(run)])
    assert shown.exit_code == 2 and "unreadable run manifest" in shown.output


def test_a_resume_by_this_version_keeps_a_newer_manifests_keys(tmp_path):
    """The runner rewrites run.json when it starts and ends: what a newer version wrote there stays."""
    from rich.console import Console

    from agent_eval.benchmarks import get_benchmark
    from agent_eval.benchmarks.activevision.loader import load_dataset
    from agent_eval.datamodel.config import RunConfig
    from agent_eval.engine.runner import Runner
    from support.datasets import write_metadata_layout

    data = write_metadata_layout(
        tmp_path / "data", [{"id": "ACF-0", "task": "t", "category": "c", "question": "q?", "answer": "1"}]
    )
    dataset = load_dataset(data)
    config = RunConfig(agent="codex", model="gpt-5.5", tools="none", unpriced=True)
    runner = Runner(
        config,
        get_benchmark("activevision"),
        dataset,
        dataset.items,
        tmp_path / "out",
        console=Console(file=io.StringIO()),
        environ={"OPENAI_API_KEY": "sk-test"},
    )
    runner.store.write_manifest(runner.manifest(finished=False))
    raw = json.loads(runner.store.manifest_path.read_text())
    runner.store.manifest_path.write_text(
        json.dumps(
            {
                **raw,
                "schema_version": 99,
                "from_the_future": [2],
                "regraded": [{"to_scorer_hash": "x"}],
                "config": {**raw["config"], "future_identity": "y"},
                "dataset": {**raw["dataset"], "checksum": "z"},
                "merged_from": ["/a", "/b"],
            }
        )
    )
    runner.store.write_manifest(runner.manifest(finished=True))
    again = json.loads(runner.store.manifest_path.read_text())
    assert again["from_the_future"] == [2] and again["regraded"] == [{"to_scorer_hash": "x"}]
    assert again["config"]["future_identity"] == "y" and again["dataset"]["checksum"] == "z"
    assert again["merged_from"] == ["/a", "/b"]
    assert again["started_at"] == raw["started_at"] and again["finished_at"] and again["config"]["tools"] == "none"


def test_the_typed_identity_is_the_identity_the_config_defines():
    """run.json's RunIdentity and config.IDENTITY_FIELDS list the same fields: a field added to one only
    would crash a run's start (RunIdentity(**config.identity())) or go uncompared on resume."""
    from agent_eval.datamodel.config import IDENTITY_FIELDS
    from agent_eval.datamodel.manifest import RunIdentity

    assert tuple(RunIdentity().as_dict()) == IDENTITY_FIELDS


def test_run_on_an_earlier_versions_folder_names_regrade_as_compare_does(tmp_path):
    """The scorer changed since the run was written: `run` says how to move it to this one, not only
    'use another --out-dir'. A change of anything else gets no such hint (regrade would not help)."""
    from rich.console import Console

    from agent_eval.datamodel.config import RunConfig
    from agent_eval.datamodel.results import ResultsError, prepare_store

    root = tmp_path / "old-run-v1"
    shutil.copytree(OLD_RUN, root)
    identity = json.loads((OLD_RUN / "run.json").read_text())["config"]
    now = RunConfig(**{k: v for k, v in identity.items() if k in RunConfig.__dataclass_fields__})
    now.scorer_hash = "scorer-of-this-version"
    with pytest.raises(ResultsError) as refused:
        prepare_store(tmp_path, "old-run-v1", now, redo=False, console=Console(file=io.StringIO()))
    message = str(refused.value)
    assert "scorer_hash: 'f4379cd4b6121c6f' -> 'scorer-of-this-version'" in message
    assert f"`agent-eval regrade {root}` grades it with the current scorer" in message
    now.scorer_hash, now.model = identity["scorer_hash"], "another-model"
    with pytest.raises(ResultsError) as refused:
        prepare_store(tmp_path, "old-run-v1", now, redo=False, console=Console(file=io.StringIO()))
    assert "regrade" not in str(refused.value) and "model: 'claude-opus-4-8' -> 'another-model'" in str(refused.value)


OLD_ITEMS = Path(__file__).resolve().parents[1] / "data" / "old-items-v1"


def test_earlier_versions_meta_json_reads_typed_and_writes_back_without_loss():
    from agent_eval.datamodel.itemmeta import ITEM_META_SCHEMA_VERSION, ItemMeta

    first = ItemMeta.load(OLD_ITEMS / "ACF-0" / "meta.json")  # the launch only
    assert first.schema_version == 1 and first.exit is None and first.sandbox == "bwrap"
    assert first.prompt.endswith("Where does the chain end?") and first.argv[0] == "/usr/bin/bwrap"
    exited = ItemMeta.load(OLD_ITEMS / "ACF-1" / "meta.json")  # the first exit, six fields
    assert exited.exit is not None
    ended = exited.exit.process_result()
    assert (ended.exit_code, ended.timed_out, ended.malformed_lines, ended.elapsed_s) == (-9, True, 1, 1800.2)
    assert (ended.held_s, ended.context_full, ended.proxy_refused, ended.upstream_failure) == (0.0, False, [], None)
    for path in sorted(OLD_ITEMS.glob("*/meta.json")):
        raw = json.loads(path.read_text())
        written = dict(nested_items(ItemMeta.load(path).to_json()))
        assert {k: v for k, v in nested_items(raw) if written.get(k) != v} == {}
    newer = {**json.loads((OLD_ITEMS / "ACF-1" / "meta.json").read_text()), "from_the_future": 1}
    newer["schema_version"] = ITEM_META_SCHEMA_VERSION + 1
    newer["exit"] = {**newer["exit"], "exit_signal": "SIGKILL", "malformed_lines": None}
    again = ItemMeta.from_json(newer)
    assert again.exit is not None and again.exit.malformed_lines == 0  # a null as "nothing"
    assert again.to_json()["from_the_future"] == 1 and again.to_json()["exit"]["exit_signal"] == "SIGKILL"
    with pytest.raises(ValueError, match="JSON object"):
        ItemMeta.from_json(["argv"])


def test_regrade_reparse_reads_an_earlier_versions_item_folders(tmp_path):
    """`regrade --reparse` on the old run with its item folders as earlier versions left them: the
    prompt from the first meta.json, the timeout from the first saved exit (its stream was cut)."""
    from agent_eval.cli import main
    from agent_eval.datamodel.itemmeta import ItemMeta
    from agent_eval.datamodel.transcript import TRANSCRIPT_SCHEMA_VERSION, Transcript
    from support.datasets import write_metadata_layout

    run = tmp_path / "old-run-v1"
    shutil.copytree(OLD_RUN, run)
    shutil.copytree(OLD_ITEMS, run / "sandboxes", ignore=shutil.ignore_patterns("README.md"))
    rows = [
        {"id": r["id"], "task": r["task"], "category": r["category"], "question": "Where?"}
        | {"answer": r.get("ground_truth") or r.get("answer")}
        for r in old_lines()
    ]
    data = write_metadata_layout(tmp_path / "data", rows)
    result = CliRunner().invoke(main, ["regrade", "--reparse", str(run), "--data", str(data)])
    assert result.exit_code == 0, result.output
    records = {r.id: r for r in RunStore(run).records()}
    assert (records["ACF-0"].status, records["ACF-0"].prediction, records["ACF-0"].correct) == ("ok", "H", True)
    assert records["ACF-1"].status == "timeout" and not records["ACF-1"].correct
    steps = Transcript.load(run / "sandboxes" / "ACF-0" / "steps.json")
    assert steps.schema_version == TRANSCRIPT_SCHEMA_VERSION and steps.prompt.endswith("Where does the chain end?")
    assert Transcript.load(run / "sandboxes" / "ACF-1" / "steps.json").prompt.endswith("Where does this chain end?")
    assert ItemMeta.load(run / "sandboxes" / "ACF-1" / "meta.json").schema_version == 1  # read, not rewritten
