import json

import pytest
from rich.console import Console

from agent_eval.agents.registry import efforts_by_agent
from agent_eval.datamodel.config import ConfigError, RunConfig, identity_differences
from agent_eval.datamodel.manifest import RunManifest
from agent_eval.datamodel.records import ItemRecord, Usage
from agent_eval.datamodel.results import ResultsError, RunStore, prepare_store, read_records


def record(item_id, status="ok", correct=True, task="t1", category="c1", cost=0.5):
    return ItemRecord(
        id=item_id,
        task=task,
        category=category,
        ground_truth="A",
        status=status,
        correct=correct,
        cost_usd=cost,
        elapsed_s=2.0,
        usage=Usage(10, 2, 3, None),
    )


def test_latest_record_wins_and_failures_rerun(tmp_path):
    store = RunStore(tmp_path / "run")
    store.append(record("a", status="timeout", correct=False))
    store.append(record("b"))
    assert store.done_keys() == {("b", 0)}
    store.append(record("a"))
    assert store.done_keys() == {("a", 0), ("b", 0)}
    assert len(store.records()) == 2


def test_torn_last_line_is_skipped_and_sealed(tmp_path):
    store = RunStore(tmp_path / "run")
    store.append(record("a"))
    path = store.items_path("t1")
    with path.open("ab") as handle:
        handle.write(b'{"id": "b", "task": "t1", "sta')  # a crash mid-write
    records, problems = read_records(path)
    assert [r.id for r in records] == ["a"] and len(problems) == 1
    store.append(record("c"))
    records, problems = read_records(path)
    assert [r.id for r in records] == ["a", "c"] and len(problems) == 1


def test_summaries_count_errors_as_wrong_and_unknown_cost(tmp_path):
    store = RunStore(tmp_path / "run")
    store.append(record("a"))
    store.append(record("b", status="agent_error", correct=False, cost=None))
    store.append(record("c", status="no_answer", correct=False, task="t2", category="c2"))
    rollup = store.write_summaries()
    overall = rollup["overall"]
    assert overall["n"] == 3 and overall["correct"] == 1 and overall["errors"] == 1 and overall["no_answer"] == 1
    assert overall["accuracy"] == pytest.approx(1 / 3)
    assert overall["cost_usd"] == 1.0 and overall["cost_unknown"] == 1
    assert set(rollup["per_task"]) == {"t1", "t2"} and set(rollup["per_category"]) == {"c1", "c2"}
    summary = json.loads((tmp_path / "run" / "t1" / "summary.json").read_text())
    assert summary["n"] == 2 and summary["errors"] == 1


def test_record_reads_benchmark_no_tool_rows():
    row = {"id": "ACF-0", "task": "arrow_chain_following", "correct": True, "prediction": "H"}
    parsed = ItemRecord.from_json(row)
    assert parsed.correct and parsed.status == "ok" and parsed.cost_usd is None


def test_unknown_status_is_refused():
    with pytest.raises(ValueError):
        record("a", status="weird")


def test_config_validation_and_differences():
    with pytest.raises(ConfigError, match="effort 'max' is not valid for codex; choose one of none, minimal"):
        RunConfig(agent="codex", model="m", effort="max").validate(efforts_by_agent())
    with pytest.raises(ConfigError, match="effort 'minimal' is not valid for claude-code"):
        RunConfig(agent="claude-code", model="m", effort="minimal").validate(efforts_by_agent())
    RunConfig(agent="claude-code", model="m", effort="max").validate(efforts_by_agent())
    a = RunConfig(agent="codex", model="m1").identity()
    b = RunConfig(agent="codex", model="m2", tools="none").identity()
    assert identity_differences(a, b) == ["model: 'm1' -> 'm2'", "tools: 'python' -> 'none'"]
    assert RunConfig(agent="codex", model="gpt-5.5", effort="xhigh").run_name == "codex-gpt-5.5-xhigh-python"


def test_resume_into_different_config_is_refused_and_redo_moves_aside(tmp_path):
    config = RunConfig(agent="codex", model="m1")
    store = prepare_store(tmp_path, "run", config, redo=False, console=Console())
    store.write_manifest(RunManifest.from_json({"config": config.identity()}))
    store.append(record("a"))
    changed = RunConfig(agent="codex", model="m2")
    with pytest.raises(ResultsError, match=r"different configuration \(model: 'm1' -> 'm2'\)"):
        prepare_store(tmp_path, "run", changed, redo=False, console=Console())
    fresh = prepare_store(tmp_path, "run", changed, redo=True, console=Console())
    assert fresh.records() == []
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("run.old-")]
    assert len(aside) == 1 and (aside[0] / "t1" / "items.jsonl").exists()
