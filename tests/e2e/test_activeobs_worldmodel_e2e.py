"""The world model of active-observation items through the whole runner, both real CLIs, sandboxed (scripted
model): a write citing an observation never made is refused and the agent reads why; the graph after the item is
the writes accepted; in mode none only the frames shown can be cited; the graph's metrics on the record."""

from __future__ import annotations

import json
import re

import pytest

from agent_eval.benchmarks.activeobs.generate import generate_dataset
from agent_eval.benchmarks.activeobs.worldmodel import load_graph
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


def _final(item, evidence: dict) -> str:
    return f'<answer>{{"answer": {json.dumps(item.answer)}, "evidence": {json.dumps(evidence)}}}</answer>'


def _entity(observation: int, bbox, label: str = "someone") -> dict:
    return {"call": "add_entity", "input": {"observation": observation, "kind": "person", "label": label, "bbox": bbox}}


def _results(item_dir) -> list:
    return [s for s in Transcript.load(item_dir / "steps.json").steps if s.kind == "tool_result"]


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_writes_cite_observations_made_and_the_graph_is_what_was_accepted(agent, active_data, tmp_path):
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
        outcome = run_agent(agent, "observe", server, root, tmp_path, ids=item.id, kind_options={"world_model": "on"})
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
