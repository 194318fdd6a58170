"""The agent's view of the image tools is fixed: the tool definitions each CLI offers the model
and the results it gets back are compared with golden files recorded from the stdio server that
ran inside the sandbox (commit cbf0fb7), so moving where the tools run changes nothing the model
sees. Regenerate deliberately with AGENT_EVAL_REGOLDEN=1 (then review the diff)."""

import json
import os
from pathlib import Path

import pytest

from agent_eval.scripted import ScriptedServer, offered_tool_names
from support.agentrun import AGENTS, run_agent
from support.toolview import offered_tools, tool_results

pytestmark = pytest.mark.e2e

GOLDEN = Path(__file__).parent / "golden"
CALLS = [
    {
        "call": "inspect",
        "input": {"views": [{"x": 100, "y": 100, "width": 40, "height": 30}, {}], "size": 160, "grid": 64},
    },
    {"call": "read_pixels", "input": {"x": 0, "y": 0, "width": 40, "height": 40, "rows": 4, "columns": 4}},
    {"call": "info", "input": {}},
    {"call": "inspect", "input": {"path": "../outside.png"}},  # an error, as the model reads it
    {"call": "inspect", "input": {"path": "views/001-inspect.png", "size": 64}},
]


@pytest.mark.parametrize("mode", ["image", "python"])
@pytest.mark.parametrize("agent", AGENTS)
def test_the_model_sees_the_same_image_tools_and_results(agent, mode, sample_data, tmp_path):
    with ScriptedServer({"turns": CALLS + [{"final": "<answer>7</answer>"}]}) as server:
        outcome = run_agent(agent, mode, server, sample_data, tmp_path, ids="RC-0")
        requests = server.main_requests()
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.tool_calls == len(CALLS)
    seen = {
        "offered_names": sorted(offered_tool_names(requests[0])),
        "image_tools": offered_tools(requests[0].body),
        "results": tool_results(requests[-1].body),
    }
    assert len(seen["results"]) == len(CALLS)
    path = GOLDEN / f"imagetools-{agent}-{mode}.json"
    if os.environ.get("AGENT_EVAL_REGOLDEN"):
        path.write_text(json.dumps(seen, indent=1, sort_keys=True) + "\n")
    golden = json.loads(path.read_text())
    assert seen["offered_names"] == golden["offered_names"]
    assert seen["image_tools"] == golden["image_tools"]
    for got, want in zip(seen["results"], golden["results"]):
        assert got == want
