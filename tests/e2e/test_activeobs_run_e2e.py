"""Active observation through the whole runner with both real CLIs, sandboxed: the agent asks for
views with `observe`, answers with evidence; answer, evidence, combined and hallucination are graded,
observations are logged, and the panorama is unreadable from the agent's shell."""

import json
import re

import pytest

from agent_eval.benchmarks.activeobs.generate import generate_dataset
from agent_eval.datamodel.transcript import Transcript
from agent_eval.scripted import ScriptedServer, offered_tool_names
from support.activeobs import evidence_for
from support.agentrun import run_agent

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def active_data(tmp_path_factory):
    root = tmp_path_factory.mktemp("active") / "data"
    dataset = generate_dataset(root, sequences=1, n_frames=120, per_family=1)
    return root, {item.id: item for item in dataset.items}


def rule(item, final: str, tools: str) -> dict:
    looks = [
        {"call": "observe", "input": {"frame_index": 3, "angle_deg": 350}},
        {"call": "observe", "input": {"frame_index": 500, "angle_deg": 10}},
    ]  # out of range: a tool error
    if tools == "python":
        looks.append(
            {
                "call": "shell",
                "input": {"command": f"ls -R {item.sequence} ../../ 2>&1 | head; ls views; python3 -c 'print(1)'"},
            }
        )
    return {
        "match": re.escape(item.question),
        "turns": looks + [{"final": final}],
    }  # whole: questions may share a beginning


@pytest.mark.parametrize("agent,tools", [("claude-code", "observe"), ("codex", "observe"), ("codex", "python")])
def test_observe_answer_with_evidence_graded(agent, tools, active_data, tmp_path):
    root, items = active_data
    right, hallucinated, broken = [items[i] for i in sorted(items)][:3]

    def answer(item):
        return json.dumps(item.answer)

    scenario = {
        "rules": [
            rule(
                right,
                f'<answer>{{"answer": {answer(right)}, "evidence": {json.dumps(evidence_for(right))}}}</answer>',
                tools,
            ),
            rule(
                hallucinated,
                f'<answer>{{"answer": {answer(hallucinated)}, '
                f'"evidence": {json.dumps(evidence_for(hallucinated, 180))}}}</answer>',
                tools,
            ),
            rule(broken, '<answer>{"answer": 1, "evidence": </answer>', tools),
        ]
    }
    ids = ",".join(i.id for i in (right, hallucinated, broken))
    with ScriptedServer(scenario) as server:
        outcome = run_agent(agent, tools, server, root, tmp_path, ids=ids)
        offered = set(offered_tool_names(server.main_requests()[0]))
    records = {r.id: r for r in outcome.store.records()}
    assert "mcp__observe__observe" in offered
    if tools == "observe":
        assert offered <= {
            "mcp__observe__observe",
            "list_mcp_resources",
            "list_mcp_resource_templates",
            "read_mcp_resource",
        }
    good = records[right.id]
    assert good.status == "ok" and good.correct and good.metrics["evidence_correct"] and good.metrics["combined"]
    bad = records[hallucinated.id]
    assert bad.status == "ok" and bad.correct and not bad.metrics["evidence_correct"] and not bad.metrics["combined"]
    broken_record = records[broken.id]
    assert broken_record.status == "no_answer" and not broken_record.correct
    assert '"evidence": ' in broken_record.answer_text  # the raw text is kept
    rollup = outcome.rollup["active_observation"]["overall"]
    assert rollup["answer_acc"] == pytest.approx(2 / 3) and rollup["combined_acc"] == pytest.approx(1 / 3)
    assert rollup["hallucination_rate"] == pytest.approx(0.5)
    item_dir = outcome.store.root / "sandboxes" / right.id
    log = [json.loads(line) for line in (item_dir / "observations" / "observations.jsonl").read_text().splitlines()]
    assert [(e["ok"], e["request"]["frame_index"]) for e in log] == [(True, 3), (False, 500)]
    steps = Transcript.load(item_dir / "steps.json").steps
    results = [s for s in steps if s.kind == "tool_result"]
    assert results[0].images and "out of range" in results[1].text
    if tools == "python":
        shell_output = results[2].text
        assert "scenes" not in shell_output and "items.jsonl" not in shell_output  # the video is not there
        assert (item_dir / "work" / "views").is_dir()


def test_passive_baseline_attaches_frames_inline(active_data, tmp_path):
    root, items = active_data
    item = items[sorted(items)[0]]
    with ScriptedServer(
        {"turns": ['<answer>{"answer": 1, "evidence": {"frame": 0, "angle": 0, "bbox": [0, 0, 10, 10]}}</answer>']}
    ) as server:
        outcome = run_agent("claude-code", "none", server, root, tmp_path, ids=item.id)
        request = server.main_requests()[0]
    content = request.body["messages"][0]["content"]
    assert sum(block.get("type") == "image" for block in content) == 8
    assert offered_tool_names(request) == []
    assert outcome.store.records()[0].status == "ok"
