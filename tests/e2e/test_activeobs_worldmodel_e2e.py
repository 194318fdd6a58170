"""The world model of active-observation items through the whole runner, both real CLIs, sandboxed (scripted
model): a write citing an observation never made is refused and the agent reads why; the graph after the item is
the writes accepted; in mode none only the frames shown can be cited; the graph's metrics on the record."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_eval.benchmarks.activeobs.generate import generate_dataset
from agent_eval.benchmarks.activeobs.worldmodel import load_graph
from agent_eval.commands.report import command as report_command
from agent_eval.commands.show import command as show_command
from agent_eval.datamodel.transcript import Transcript
from agent_eval.scripted import ScriptedServer, offered_tool_names
from support.activeobs import evidence_for
from support.agentrun import run_agent

pytestmark = pytest.mark.e2e

WORLD_TOOLS = {f"mcp__worldmodel__{name}" for name in ("get_graph", "add_entity", "add_attribute", "add_relation")}


@pytest.fixture(scope="module")
def active_data(tmp_path_factory):
    root = tmp_path_factory.mktemp("active") / "data"
    dataset = generate_dataset(root, sequences=1, n_frames=120, per_family=1)
    return root, sorted(dataset.items, key=lambda item: item.id)


def invoke(command, *args):
    result = CliRunner().invoke(command, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _final(item, evidence: dict) -> str:
    return f'<answer>{{"answer": {json.dumps(item.answer)}, "evidence": {json.dumps(evidence)}}}</answer>'


def _entity(observation: int, bbox, label: str = "someone") -> dict:
    return {"call": "add_entity", "input": {"observation": observation, "kind": "person", "label": label, "bbox": bbox}}


def _results(item_dir) -> list:
    return [s for s in Transcript.load(item_dir / "steps.json").steps if s.kind == "tool_result"]


@pytest.mark.parametrize("agent,tools", [("claude-code", "observe"), ("codex", "observe"), ("codex", "python")])
def test_writes_cite_observations_made_and_the_graph_is_what_was_accepted(agent, tools, active_data, tmp_path):
    root, items = active_data
    item = items[0]
    evidence = evidence_for(item)
    turns = [
        _entity(1, evidence["bbox"]),  # nothing observed yet: refused
        {"call": "observe", "input": {"frame_index": evidence["frame"], "angle_deg": evidence["angle"]}},
        _entity(2, evidence["bbox"]),  # never made: refused
        _entity(1, evidence["bbox"], "the one asked about"),
        {"call": "add_attribute", "input": {"entity": "e1", "observation": 1, "type": "action", "value": "moving"}},
        _entity(1, [0, 0, 50, 50], "another"),
        {
            "call": "add_relation",
            "input": {"subject": "e1", "object": "e2", "observation": 1, "type": "spatial", "predicate": "right of"},
        },
        {"call": "get_graph", "input": {}},
        {"final": _final(item, evidence)},
    ]
    with ScriptedServer({"rules": [{"match": re.escape(item.question), "turns": turns}]}) as server:
        outcome = run_agent(agent, tools, server, root, tmp_path, ids=item.id, kind_options={"world_model": "on"})
        offered = set(offered_tool_names(server.main_requests()[0]))
        prompt = json.dumps(server.main_requests()[0].body)
    assert WORLD_TOOLS | {"mcp__observe__observe"} <= offered
    assert "get_graph returns everything you wrote" in prompt
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.metrics["combined"]
    item_dir = outcome.store.root / "sandboxes" / item.id
    results = _results(item_dir)
    assert "no observation yet" in results[0].text and "call observe" in results[0].text
    assert "observation 2 was never made" in results[2].text
    graph = load_graph(item_dir)
    accepted = [h for h in graph.history if h["ok"]]
    assert [h["tool"] for h in graph.history if not h["ok"]] == ["add_entity", "add_entity"]
    assert [h["tool"] for h in accepted] == ["add_entity", "add_attribute", "add_entity", "add_relation"]
    written = [{k: v for k, v in x.items() if k in h["args"]} for h, x in zip(accepted, graph_rows(graph))]
    assert written == [h["args"] for h in accepted]  # the graph is the writes accepted, nothing else
    assert json.loads(results[-1].text)["entities"] == graph.entities
    assert record.metrics["evidence_in_graph"] and record.metrics["evidence_view_observed"]
    assert record.metrics["graph_entities"] == 2 and record.metrics["graph_size"] == 4
    assert outcome.store.read_manifest().config.kind_options == {"world_model": "on"}
    if agent == "claude-code":  # how it reads: show prints the graph as tables, the report draws its boxes
        shown = invoke(show_command, outcome.store.root, item.id).output
        assert "world model: 2 entities, 1 attributes, 1 relations; 4 writes accepted, 2 refused" in shown
        assert re.search(r"e1 .*person .*the one asked about .*#1", shown) and "right of" in shown
        assert "refused add_entity" in shown and "never made" in shown
        assert "the evidence rests on a view the agent obtained; its box is in the agent's graph" in shown
        totals = invoke(show_command, outcome.store.root).output
        assert "evidence in a view never obtained 0.0% of 1; evidence in its graph 100.0%, graph size 4.0" in totals
        report = tmp_path / "report.html"
        invoke(report_command, outcome.store.root, "-o", report)
        html = report.read_text()
        assert "world model: observation #1 (frame" in html and "with e1, e2 (blue)" in html
        assert "<caption>relations</caption>" in html
        assert "evidence in its graph · graph size 4.0" in html and "evidence never seen · of 1" in html
    elif tools == "observe":  # the Inspect export carries the world model's calls and their answers, refusals too
        from inspect_ai.log import read_eval_log

        from agent_eval.commands.export import command as export_command

        target = tmp_path / "run.eval"
        invoke(export_command, "--format", "inspect", outcome.store.root, "-o", target)
        sample = read_eval_log(str(target), resolve_attachments=True).samples[0]
        calls = [c.function for m in sample.messages if m.role == "assistant" for c in m.tool_calls or []]
        assert calls.count("mcp__worldmodel__add_entity") == 4 and "mcp__worldmodel__get_graph" in calls
        tools = [m for m in sample.messages if m.role == "tool" and m.function.startswith("mcp__worldmodel__")]
        assert "never made" in json.dumps([m.model_dump(mode="json") for m in tools])


def graph_rows(graph) -> list[dict]:
    """The graph's rows in the order they were written (ids e1, a1, e2, r1 as the history says)."""
    by_id = {row["id"]: row for row in (*graph.entities, *graph.attributes, *graph.relations)}
    return [by_id[h["id"]] for h in graph.history if h["ok"]]


def test_in_mode_none_only_the_frames_shown_can_be_cited(active_data, tmp_path):
    root, items = active_data
    item = items[1]
    turns = [
        _entity(9, [10, 100, 30, 900]),  # there are 8 images: refused
        _entity(2, [10, 100, 30, 900]),
        {"final": '<answer>{"answer": 1, "evidence": {"frame": 1, "angle": 0, "bbox": [0, 0, 10, 10]}}</answer>'},
    ]
    with ScriptedServer({"turns": turns}) as server:
        outcome = run_agent(
            "claude-code", "none", server, root, tmp_path, ids=item.id, kind_options={"world_model": "on"}
        )
        request = server.main_requests()[0]
    assert set(offered_tool_names(request)) == WORLD_TOOLS
    assert sum(block.get("type") == "image" for block in request.body["messages"][0]["content"]) == 8
    item_dir = outcome.store.root / "sandboxes" / item.id
    results = _results(item_dir)
    assert "not one of the frames you were shown" in results[0].text and "1-8" in results[0].text
    graph = load_graph(item_dir)
    assert [(e["observation"], e["angle"]) for e in graph.entities] == [(2, None)]
    shown = json.loads((item_dir / "observations" / "passive.json").read_text())
    assert graph.entities[0]["frame"] == shown[1]["frame"]
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.metrics["evidence_view_observed"] is False  # frame 1 was not shown


def test_the_papers_grid_runs_as_one_sweep_and_compare_prints_its_four_cells(active_data, tmp_path):
    """sweeps/activeobs-world-model.yaml itself (on one item here): tool modes none and observe x world model off
    and on, both CLIs; then compare over each CLI's four cells."""
    import os

    from rich.console import Console

    from agent_eval.agents.registry import scripted_environ
    from agent_eval.commands.compare import command as compare_command
    from agent_eval.commands.options import sweep_options
    from agent_eval.engine.sweeps import load_sweep, run_sweep
    from agent_eval.reading.grid import write_grid_comparison
    from support.agentrun import MODELS

    root, items = active_data
    item = items[2]
    evidence = evidence_for(item)
    look = {"call": "observe", "input": {"frame_index": evidence["frame"], "angle_deg": evidence["angle"]}}
    final = {"final": _final(item, evidence)}
    world = "You also have a world model"
    scenario = {
        "rules": [
            {"match": "observe` tool[\\s\\S]*" + world, "turns": [look, _entity(1, evidence["bbox"]), final]},
            {"match": world, "turns": [_entity(1, [0, 0, 40, 40]), final]},
            {"match": "observe` tool", "turns": [look, final]},
            {"turns": [final]},
        ]
    }
    sweep = load_sweep(Path(__file__).parents[2] / "sweeps" / "activeobs-world-model.yaml", sweep_options())
    sweep.data, sweep.out_dir, sweep.selection, sweep.jobs = str(root), tmp_path / "out", {"ids": item.id}, 4
    sweep.grid = [{**entry, "models": [MODELS[entry["agent"]]]} for entry in sweep.grid]  # the scripted models
    console = Console(file=open(os.devnull, "w"))
    with ScriptedServer(scenario) as server:
        environ = scripted_environ("claude-code", server.url) | scripted_environ("codex", server.url)
        cells = run_sweep(sweep, console, environ=environ, scripted_model=True)
    write_grid_comparison(cells, sweep.root, console)
    assert len(cells) == 8 and (sweep.root / "compare.md").is_file()
    names = sorted(cell.name for cell in cells)
    assert sum(name.endswith("-world_model-on") for name in names) == 4
    for agent in ("claude-code", "codex"):
        four = sorted((c for c in cells if c.name.startswith(agent)), key=lambda c: c.name)
        shown = invoke(compare_command, *four).output
        records = {c.name.removeprefix(agent + "-"): first_record(c) for c in four}
        assert all(r.status == "ok" for r in records.values()), {k: r.status for k, r in records.items()}
        assert "answer, evidence, combined and hallucination" in shown and "paired tests against A" in shown
        assert "what the evidence rests on" in shown and "world_model=on" in shown
        for letter in "ABCD":
            assert re.search(rf"│\s+{letter}\s+│", shown), letter
        on = next(r for name, r in records.items() if name.endswith("observe-world_model-on"))
        assert on.metrics["evidence_in_graph"] and on.metrics["evidence_view_observed"] and on.metrics["combined"]
        passive = next(r for name, r in records.items() if name.endswith("none-world_model-on"))
        assert passive.metrics["evidence_in_graph"] is False and passive.metrics["graph_entities"] == 1
        plain = next(r for name, r in records.items() if name.endswith("observe"))
        assert plain.metrics["evidence_in_graph"] is None and plain.metrics["evidence_view_observed"]


def first_record(root):
    """The one record of a one-item run."""
    from agent_eval.datamodel.results import RunStore

    return RunStore(root).records()[0]


@pytest.mark.parametrize("agent,tools", [("claude-code", "observe"), ("codex", "none")])
def test_notes_against_a_graph_are_a_cell_too(agent, tools, active_data, tmp_path):
    """The notes switch of games offered to active observation (`--notes on`, with or without the world model):
    read and written through the harness's tools in every mode, every version kept and shown."""
    root, items = active_data
    item = items[1]
    evidence = evidence_for(item)
    look = [{"call": "observe", "input": {"frame_index": evidence["frame"], "angle_deg": evidence["angle"]}}]
    turns = (look if tools == "observe" else []) + [
        {"call": "write_note", "input": {"name": "WORKING.md", "text": "looked once; the target is near the door"}},
        {"call": "write_note", "input": {"name": "NOTES.md", "text": "x"}},  # no such note: refused
        {"call": "read_notes", "input": {}},
        {"final": _final(item, evidence)},
    ]
    with ScriptedServer({"rules": [{"match": re.escape(item.question), "turns": turns}]}) as server:
        outcome = run_agent(agent, tools, server, root, tmp_path, ids=item.id, kind_options={"notes": "on"})
        offered = set(offered_tool_names(server.main_requests()[0]))
        prompt = json.dumps(server.main_requests()[0].body)
    assert {"mcp__notes__read_notes", "mcp__notes__write_note"} <= offered
    assert not any("get_graph" in name for name in offered)  # the notes alone, not the world model
    assert "WORKING.md: what you are looking for now" in prompt
    record = outcome.store.records()[0]
    assert record.status == "ok", (record.status, record.error)
    results = [r.text for r in _results(outcome.store.root / "sandboxes" / item.id)]
    assert any("no note 'NOTES.md'" in text for text in results)
    assert any("the target is near the door" in text for text in results)  # read back
    history = [
        json.loads(line)
        for line in (outcome.store.root / "sandboxes" / item.id / "notes" / "history.jsonl").read_text().splitlines()
    ]
    assert [(h["version"], h["note"]) for h in history] == [(1, "WORKING.md")]
    if tools == "observe":
        assert history[0]["observations"] == 1
    assert outcome.store.read_manifest().config.kind_options == {"notes": "on"}
    shown = invoke(show_command, outcome.store.root, item.id).output
    assert "notes (1 version(s) written)" in shown and "WORKING.md v1" in shown
