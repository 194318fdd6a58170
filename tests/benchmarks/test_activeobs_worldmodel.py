"""The world model of active-observation items (JRDB-AVR's explicit graph): its tools over MCP beside observe,
writes refused unless they cite an observation the agent obtained, the graph kept with every version and its
history, nothing of the scene or the answer reachable through it, and its metrics on hand-made cases."""

from __future__ import annotations

import contextlib
import json
import re

import anyio
import pytest

from agent_eval.benchmarks.activeobs.generate import generate_dataset
from agent_eval.benchmarks.activeobs.observe_server import ObservationServer
from agent_eval.benchmarks.activeobs.worldmodel import (
    GRAPH_FILE,
    HISTORY_FILE,
    VERSIONS_DIR,
    WorldGraph,
    load_graph,
    passive_sightings,
    sightings_from_log,
)
from agent_eval.benchmarks.activeobs.worldmodel_server import SERVER_NAME, TOOL_NAMES, build_server
from agent_eval.tools.mcp_http import McpHost
from support.activeobs import seam_scene


def _session(calls_by_url: list[tuple[str, str, dict]]):
    """Calls in order, each (url, tool, arguments); returns (tools per url, results)."""
    from mcp import Client

    async def run():
        listed, results, clients = {}, [], {}
        async with contextlib.AsyncExitStack() as stack:
            for url, tool, args in calls_by_url:
                if url not in clients:
                    clients[url] = await stack.enter_async_context(Client(url))
                    listed[url] = (await clients[url].list_tools()).tools
                results.append(await clients[url].call_tool(tool, args))
        return listed, results

    return anyio.run(run)


def _text(result) -> str:
    return result.content[0].text


@pytest.fixture
def active(tmp_path):
    """An observe server and a world model over its log, on the shared MCP host."""
    seam_scene(60).save(tmp_path / "scene.json")
    with ObservationServer(tmp_path / "scene.json", tmp_path / "item" / "observations") as observe:
        log = observe.log
        graph = WorldGraph(tmp_path / "item" / "worldmodel", lambda: sightings_from_log(list(log.entries)))
        with McpHost.shared().mount(lambda: build_server(graph), SERVER_NAME) as world:
            yield observe, world, graph


def test_a_write_must_cite_an_observation_the_agent_made(active):
    observe, world, graph = active
    box = [300, 200, 700, 950]
    listed, results = _session(
        [
            (world.url, "add_entity", {"observation": 1, "kind": "person", "label": "walker", "bbox": box}),
            (observe.url, "observe", {"frame_index": 10, "angle_deg": 355}),
            (observe.url, "observe", {"frame_index": 99, "angle_deg": 0}),  # an error: no observation 2
            (world.url, "add_entity", {"observation": 2, "kind": "person", "label": "walker", "bbox": box}),
            (world.url, "add_entity", {"observation": 1, "kind": "person", "label": "walker", "bbox": box}),
            (world.url, "add_entity", {"observation": 1, "kind": "animal", "label": "dog", "bbox": box}),
            (world.url, "add_entity", {"observation": 1, "kind": "object", "label": "bag", "bbox": [5, 5, 1, 1]}),
            (world.url, "add_attribute", {"entity": "e1", "observation": 1, "type": "action", "value": "walking"}),
            (world.url, "add_attribute", {"entity": "e7", "observation": 1, "type": "action", "value": "walking"}),
            (observe.url, "observe", {"frame_index": 40, "angle_deg": 180}),
            (world.url, "add_entity", {"observation": 3, "kind": "person", "label": "sitter", "bbox": box}),
            (
                world.url,
                "add_relation",
                {"subject": "e1", "object": "e2", "observation": 3, "type": "social", "predicate": "far from"},
            ),
            (
                world.url,
                "add_relation",
                {"subject": "e1", "object": "e2", "observation": 4, "type": "spatial", "predicate": "left of"},
            ),
            (world.url, "get_graph", {}),
        ]
    )
    (
        before,
        _,
        _,
        never,
        first,
        bad_kind,
        bad_box,
        attribute,
        no_entity,
        _,
        second,
        relation,
        uncited,
        graph_text,
    ) = results
    assert sorted(t.name for t in listed[world.url]) == sorted(TOOL_NAMES)
    assert before.is_error and "no observation yet" in _text(before) and "call observe" in _text(before)
    assert never.is_error and "observation 2 was never made" in _text(never)  # the call that failed: no view
    assert "1: frame 10, view at 355°" in _text(never)  # what it can cite instead
    assert not first.is_error and json.loads(_text(first))["id"] == "e1"
    assert json.loads(_text(first))["frame"] == 10 and json.loads(_text(first))["angle"] == 355
    assert bad_kind.is_error and "person, object" in _text(bad_kind)
    assert bad_box.is_error and "0 <= x1 < x2" in _text(bad_box)
    assert not attribute.is_error and json.loads(_text(attribute))["id"] == "a1"
    assert no_entity.is_error and "no entity 'e7'" in _text(no_entity) and "e1" in _text(no_entity)
    assert not second.is_error and json.loads(_text(second))["frame"] == 40
    assert not relation.is_error
    assert uncited.is_error and "observation 4 was never made" in _text(uncited)
    shown = json.loads(_text(graph_text))
    assert [e["id"] for e in shown["entities"]] == ["e1", "e2"] and shown["version"] == 4
    assert shown == graph.get_graph()


def test_the_graph_is_kept_with_every_version_and_its_history(active, tmp_path):
    observe, world, graph = active
    _session(
        [
            (observe.url, "observe", {"frame_index": 5, "angle_deg": 90}),
            (world.url, "add_entity", {"observation": 1, "kind": "person", "label": "a", "bbox": [1, 2, 30, 40]}),
            (world.url, "add_entity", {"observation": 9, "kind": "person", "label": "b", "bbox": [1, 2, 30, 40]}),
            (world.url, "add_attribute", {"entity": "e1", "observation": 1, "type": "state", "value": "standing"}),
        ]
    )
    folder = tmp_path / "item" / "worldmodel"
    kept = json.loads((folder / GRAPH_FILE).read_text())
    assert kept == graph.get_graph() and kept["version"] == 2
    assert sorted(p.name for p in (folder / VERSIONS_DIR).iterdir()) == ["0000.json", "0001.json", "0002.json"]
    assert json.loads((folder / VERSIONS_DIR / "0001.json").read_text())["attributes"] == []
    history = [json.loads(line) for line in (folder / HISTORY_FILE).read_text().splitlines()]
    assert [(h["tool"], h["ok"], h["observation"]) for h in history] == [
        ("add_entity", True, 1),
        ("add_entity", False, 9),
        ("add_attribute", True, 1),
    ]
    assert all(h["at"].endswith("+00:00") for h in history) and "never made" in history[1]["error"]
    stored = load_graph(tmp_path / "item")
    assert stored.size == 2 and stored.refused == 1 and stored.entities == kept["entities"]


def test_passive_frames_are_the_only_citations_in_mode_none(tmp_path):
    graph = WorldGraph(tmp_path / "wm", lambda: passive_sightings([(7, 0.47), (22, 1.47)]), passive=True)
    entity = graph.add_entity(2, "person", "someone", [10, 100, 20, 900])
    assert entity["frame"] == 22 and entity["angle"] is None
    with pytest.raises(ValueError, match=r"not one of the frames you were shown: cite .*\(1-2\)"):
        graph.add_entity(3, "person", "someone", [10, 100, 20, 900])
    with pytest.raises(ValueError, match="not one of the frames"):
        graph.add_attribute("e1", 0, "action", "walking")


def test_nothing_of_the_scene_or_the_answer_is_reachable_through_the_world_model(tmp_path):
    """Every tool answered (accepted and refused writes, the graph) holds only what the agent wrote and where its
    own observations were: no person id, colour, action, track, answer or evidence window of the item."""
    dataset = generate_dataset(tmp_path / "data", sequences=1, n_frames=120, per_family=1, seed=11)
    item = dataset.items[0]
    scene = dataset.scene(item.sequence)
    secrets = {item.track} | {landmark.kind for landmark in scene.landmarks}
    for person in scene.people:
        secrets |= {person.id, person.shirt, person.pants, *(s.action for s in person.segments)}
        secrets |= {person.hat} if person.hat else set()
    with ObservationServer(dataset.scene_path(item.sequence), tmp_path / "item" / "observations") as observe:
        log = observe.log
        graph = WorldGraph(tmp_path / "item" / "worldmodel", lambda: sightings_from_log(list(log.entries)))
        with McpHost.shared().mount(lambda: build_server(graph), SERVER_NAME) as world:
            box = [100, 100, 900, 900]
            listed, results = _session(
                [
                    (world.url, "get_graph", {}),
                    (observe.url, "observe", {"frame_index": 100, "angle_deg": 45}),
                    (world.url, "add_entity", {"observation": 1, "kind": "person", "label": "X", "bbox": box}),
                    (world.url, "add_entity", {"observation": 5, "kind": "person", "label": "Y", "bbox": box}),
                    (world.url, "add_attribute", {"entity": "e1", "observation": 1, "type": "state", "value": "Q"}),
                    (
                        world.url,
                        "add_relation",
                        {"subject": "e1", "object": "e1", "observation": 1, "type": "spatial", "predicate": "Z"},
                    ),  # fmt: skip
                    (world.url, "get_graph", {}),
                ]
            )
    outputs = [_text(r) for r in results[2:]] + [_text(results[0])]
    described = json.dumps([[t.description, t.input_schema] for t in listed[world.url]])
    for secret in secrets:
        quoted = f'"{secret}"'
        assert all(quoted not in text and f" {secret} " not in text for text in outputs), secret
        generic = {"walking", "sitting", "standing"}  # the descriptions' examples of an action and a state
        words = set(re.findall(r"[a-z0-9_]+", described.lower()))
        assert secret.lower() not in words or secret.lower() in generic, secret
    assert json.loads(_text(results[0])) == {"version": 0, "entities": [], "attributes": [], "relations": []}
    final = json.loads(_text(results[-1]))
    fields = {k for e in final["entities"] for k in e} | {k for a in final["attributes"] for k in a}
    assert fields == {"id", "kind", "label", "observation", "frame", "angle", "time_s", "bbox", "entity", "type",
                      "value"}  # fmt: skip
    assert (tmp_path / "item" / "worldmodel" / GRAPH_FILE).is_file()  # beside the observations, outside work/


def test_the_world_model_switch_is_in_the_identity_only_when_on():
    from agent_eval.benchmarks import registry
    from agent_eval.benchmarks.activeobs.benchmark import ActiveObservation

    assert registry.options_of("activeobs", {}) is None  # the runs made before the switch keep their identity
    assert registry.options_of("activeobs", {"world_model": "off"}) is None
    assert registry.options_of("activeobs", {"world_model": "on"}) == {"world_model": "on"}
    assert registry.foreign_options("arcgames", {"world_model": "on"}) == ["--world-model"]
    benchmark = ActiveObservation()
    benchmark.configure({"world_model": "on"})
    assert benchmark.world_model
    benchmark.configure({})
    assert not benchmark.world_model


# --- the metrics beside the paper's: what the evidence rests on -------------------------------------------------


def _attempt(tmp_path, views: list[tuple[int, float]], entities: list[tuple[int, list]] | None):
    """An item folder as an attempt leaves it: the observe log and, with a world model, the graph."""
    from agent_eval.benchmarks.activeobs.observe_server import ObservationLog

    log = ObservationLog(tmp_path / "observations")
    for frame, angle in views:
        log.add({"ok": True, "request": {}, "frame_index": frame, "angle_deg": angle})
    log.add({"ok": False, "request": {"frame_index": 999, "angle_deg": 0}, "error": "out of range"})
    if entities is not None:
        graph = WorldGraph(tmp_path / "worldmodel", lambda: sightings_from_log(list(log.entries)))
        for observation, bbox in entities:
            graph.add_entity(observation, "person", "someone", bbox)
        graph.add_attribute("e1", 1, "action", "walking")
    return tmp_path


@pytest.mark.parametrize(
    "evidence,observed,written",
    [
        ({"frame": 10, "angle": 90, "bbox": [400, 300, 600, 900]}, True, True),  # seen and written
        ({"frame": 10, "angle": 90, "bbox": [402, 310, 598, 880]}, True, True),  # the same box, roughly
        ({"frame": 10, "angle": 90, "bbox": [0, 300, 150, 900]}, True, False),  # seen, another box written
        ({"frame": 20, "angle": 200, "bbox": [400, 300, 600, 900]}, True, False),  # seen, nothing written there
        ({"frame": 10, "angle": 150, "bbox": [400, 300, 600, 900]}, False, False),  # that frame, another view
        ({"frame": 11, "angle": 90, "bbox": [400, 300, 600, 900]}, False, False),  # a frame never observed
    ],
)
def test_evidence_against_the_views_obtained_and_the_graph(tmp_path, evidence, observed, written):
    from agent_eval.benchmarks.activeobs.seen import seen_metrics

    root = _attempt(tmp_path, [(10, 90.0), (20, 200.0)], [(1, [400, 300, 600, 900])])
    got = seen_metrics(evidence, root, 3760, 480)
    assert got["evidence_view_observed"] is observed and got["evidence_in_graph"] is written
    assert (got["graph_entities"], got["graph_attributes"], got["graph_size"], got["graph_refused"]) == (1, 1, 2, 0)


def test_evidence_metrics_without_a_world_model_and_in_mode_none(tmp_path):
    from agent_eval.benchmarks.activeobs.seen import PASSIVE_FILE, seen_metrics

    root = _attempt(tmp_path / "a", [(10, 90.0)], None)
    got = seen_metrics({"frame": 10, "angle": 90, "bbox": [1, 2, 3, 4]}, root, 3760, 480)
    assert got == {"evidence_view_observed": True, "evidence_in_graph": None}  # no graph: its fields unset
    assert seen_metrics({"frame": 10}, root, 3760, 480)["evidence_view_observed"] is None  # nothing to place
    assert seen_metrics({"frame": 1, "angle": 0, "bbox": [1, 2, 3, 4]}, tmp_path / "gone", 3760, 480) == {
        "evidence_view_observed": None,
        "evidence_in_graph": None,
    }  # nothing logged: not known
    passive = tmp_path / "b" / "observations"
    passive.mkdir(parents=True)
    (passive / PASSIVE_FILE).write_text(json.dumps([{"n": 1, "frame": 7}, {"n": 2, "frame": 22}]))
    graph = WorldGraph(tmp_path / "b" / "worldmodel", lambda: passive_sightings([(7, 0.5), (22, 1.5)]), passive=True)
    graph.add_entity(2, "person", "someone", [100, 100, 150, 900])  # panorama x 376-564
    # the same place in a 480 view centred on 60° (columns 387-867 of the panorama): x 0-177 of 480
    seen = seen_metrics({"frame": 22, "angle": 60, "bbox": [0, 100, 369, 900]}, tmp_path / "b", 3760, 480)
    assert seen["evidence_view_observed"] is True and seen["evidence_in_graph"] is True
    unseen = seen_metrics({"frame": 23, "angle": 60, "bbox": [0, 100, 369, 900]}, tmp_path / "b", 3760, 480)
    assert unseen["evidence_view_observed"] is False and unseen["evidence_in_graph"] is False


def test_the_rollup_reports_unseen_evidence_for_every_run_and_the_graph_where_there_is_one():
    from agent_eval.benchmarks.activeobs.grading import rollup_active

    rows = [
        {"family": "f", "status": "ok", "answer_correct": True, "evidence_correct": True,
         "evidence_view_observed": True, "evidence_in_graph": True, "graph_size": 4},
        {"family": "f", "status": "ok", "answer_correct": True, "evidence_correct": False,
         "evidence_view_observed": False, "evidence_in_graph": False, "graph_size": 2},
        {"family": "f", "status": "ok", "answer_correct": False, "evidence_correct": False,
         "evidence_view_observed": True, "evidence_in_graph": False, "graph_size": 0},
        {"family": "f", "status": "no_answer", "answer_correct": False, "evidence_correct": False},
    ]  # fmt: skip
    overall = rollup_active(rows)["overall"]
    assert overall["unseen_evidence_rate"] == pytest.approx(1 / 3) and overall["evidence_placed"] == 3
    assert overall["evidence_in_graph_rate"] == pytest.approx(1 / 3) and overall["graph_size_mean"] == 2
    plain = rollup_active([{**r, "evidence_in_graph": None, "graph_size": None} for r in rows[:3]])["overall"]
    assert plain["evidence_in_graph_rate"] is None and plain["unseen_evidence_rate"] == pytest.approx(1 / 3)


def test_a_sweep_takes_kind_options_as_an_axis(tmp_path):
    from agent_eval.commands.options import sweep_options
    from agent_eval.engine.sweeps import SweepError, cell_name, load_sweep

    base = "grid:\n  - agent: codex\n    models: [gpt-5.5]\ntools: [none, observe]\n"
    (tmp_path / "ok.yaml").write_text(base + "kind_options:\n  - {}\n  - {world_model: on}\n")  # YAML's on: a bool
    cells = load_sweep(tmp_path / "ok.yaml", sweep_options()).cells()
    assert [(c.tools, c.kind_options) for c in cells] == [
        ("none", None),
        ("none", {"world_model": "on"}),
        ("observe", None),
        ("observe", {"world_model": "on"}),
    ]
    assert [cell_name(c) for c in cells][:2] == [
        "codex-gpt-5.5-default-none",
        "codex-gpt-5.5-default-none-world_model-on",
    ]
    (tmp_path / "bad.yaml").write_text(base + "kind_options:\n  - {memory: on}\n")
    with pytest.raises(SweepError, match=r"bad.yaml:6: unknown kind option\(s\) memory"):
        load_sweep(tmp_path / "bad.yaml", sweep_options())
    (tmp_path / "flat.yaml").write_text(base + "kind_options: {world_model: on}\n")
    with pytest.raises(SweepError, match="must be a list of mappings"):
        load_sweep(tmp_path / "flat.yaml", sweep_options())


def test_a_slurm_sweep_passes_the_world_model_to_its_cells(tmp_path):
    from click.testing import CliRunner

    from agent_eval.cli import main

    generate_dataset(tmp_path / "data", sequences=1, n_frames=120, per_family=1)
    (tmp_path / "grid.yaml").write_text(
        f"name: g\ndata: {tmp_path / 'data'}\nout_dir: {tmp_path / 's'}\nunpriced: true\ntools: [observe]\n"
        "grid:\n  - agent: codex\n    models: [gpt-5.5]\nkind_options: [{world_model: 'off'}, {world_model: 'on'}]\n"
    )
    result = CliRunner().invoke(
        main,
        ["slurm", "submit", "--no-submit", "--sweep", str(tmp_path / "grid.yaml"), "--shards", "1"],
        env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k"},
    )
    assert result.exit_code == 0, result.output
    script = (tmp_path / "s" / "g.slurm" / "array.sbatch").read_text()
    assert script.count("--world-model on") == 1 and "--world-model off" in script
    assert "codex-gpt-5.5-default-observe-world_model-on" in script
