"""The real Claude Code and Codex CLIs, sandboxed, against the scripted model server: every tool
mode, grading, transcripts, and the failures a user meets (bad key, rate limit, hang)."""

import json

import pytest

from agent_eval.datamodel.results import RunStore
from agent_eval.datamodel.transcript import Transcript
from agent_eval.scripted import ScriptedServer, has_image, offered_tool_names, prompt_text
from support.agentrun import AGENTS, run_agent, wait_until_gone

pytestmark = pytest.mark.e2e

SHELL_TOOLS = {"Bash", "exec_command", "write_stdin", "shell"}
CROP = (
    "python3 -c \"from PIL import Image; im = Image.open('image.png'); "
    "im.crop((10, 20, 74, 68)).save('crop.png'); print(im.size[0] % 7)\""
)


def python_scenario(truth):
    """Maze: the right answer after a real Python crop; region counting: a wrong answer; arrows: no tag."""
    return {
        "rules": [
            {
                "match": "maze",
                "turns": [
                    {"say": "Cropping.", "call": "shell", "input": {"command": CROP}},
                    {"final": f"Done. <answer>{truth['MPT-0']['answer']}</answer>"},
                ],
            },
            {
                "match": "How many separated regions",
                "turns": [
                    {"call": "shell", "input": {"command": CROP}},
                    {"final": f"<answer>{int(truth['RC-0']['answer']) + 1}</answer>"},
                ],
            },
            {"turns": [{"final": "I think it is B."}]},
        ]
    }


@pytest.mark.parametrize("agent", AGENTS)
def test_python_mode_runs_tools_grades_and_writes_everything(agent, sample_data, sample_truth, tmp_path):
    with ScriptedServer(python_scenario(sample_truth)) as server:
        outcome = run_agent(agent, "python", server, sample_data, tmp_path, ids="MPT-0,RC-0,ACF-0")
    store = RunStore(outcome.store.root)
    records = {r.id: r for r in store.records()}
    assert records["MPT-0"].status == "ok" and records["MPT-0"].correct
    assert records["RC-0"].status == "ok" and not records["RC-0"].correct
    assert records["RC-0"].prediction == str(int(sample_truth["RC-0"]["answer"]) + 1)
    assert records["ACF-0"].status == "no_answer" and not records["ACF-0"].correct
    for item_id in ("MPT-0", "RC-0"):
        record = records[item_id]
        assert record.tool_calls == 1 and record.num_turns == 2
        assert record.usage.input_tokens and record.usage.output_tokens
        work = store.root / "sandboxes" / item_id / "work"
        assert (work / "crop.png").is_file()  # Python really ran in the workdir
        from PIL import Image

        assert Image.open(work / "crop.png").size == (64, 48)
        assert sorted(p.name for p in work.iterdir()) == ["crop.png", "image.png"]  # nothing else, no truth
        transcript = Transcript.load(store.root / "sandboxes" / item_id / "steps.json")
        calls = [s for s in transcript.steps if s.kind == "tool_call"]
        results = [s for s in transcript.steps if s.kind == "tool_result"]
        assert len(calls) == 1 and "crop" in json.dumps(calls[0].input)
        assert results[0].text.strip() == str(Image.open(work / "image.png").size[0] % 7)
        raw = (store.root / record.transcript).read_text().splitlines()
        assert raw and all("t" in json.loads(line) for line in raw)
        meta = json.loads((store.root / "sandboxes" / item_id / "meta.json").read_text())
        assert meta["argv"][0].endswith("bwrap") and "OPENAI_API_KEY" not in json.dumps(meta["argv"])
        assert "prompt" in meta and sample_truth[item_id]["answer"] not in meta["argv"]
    rollup = json.loads((store.root / "rollup.json").read_text())
    assert rollup["overall"]["n"] == 3 and rollup["overall"]["correct"] == 1
    assert rollup["overall"]["no_answer"] == 1 and rollup["overall"]["errors"] == 0
    summary = json.loads((store.root / "maze_path_tracing" / "summary.json").read_text())
    assert summary["accuracy"] == 1.0
    manifest = json.loads((store.root / "run.json").read_text())
    assert manifest["config"]["agent"] == agent and manifest["config"]["tools"] == "python"
    assert manifest["config"]["sandbox"] == "bwrap" and manifest["auth"]["kind"] == "custom_endpoint"
    assert manifest["auth"]["endpoint_host"].startswith("127.0.0.1:") and "scripted-key" not in json.dumps(manifest)
    assert manifest["config"]["cli_version"] not in (None, "not installed") and manifest["finished_at"]


@pytest.mark.parametrize("agent", AGENTS)
def test_none_mode_sends_the_image_inline_and_offers_no_tools(agent, sample_data, sample_truth, tmp_path):
    truth = sample_truth["CCC-0"]["answer"]
    with ScriptedServer({"turns": [{"final": f"<answer>{truth}</answer>"}]}) as server:
        outcome = run_agent(agent, "none", server, sample_data, tmp_path, ids="CCC-0")
        requests = server.main_requests()
    assert [r.status for r in outcome.store.records()] == ["ok"] and outcome.store.records()[0].correct
    assert requests and all(offered_tool_names(r) == [] for r in requests)
    assert has_image(requests[0])
    assert sample_truth["CCC-0"]["question"][:60] in prompt_text(requests[0])
    work = outcome.store.root / "sandboxes" / "CCC-0" / "work"
    assert list(work.iterdir()) == []  # nothing in the workdir in mode none


@pytest.mark.parametrize("agent", AGENTS)
def test_image_mode_offers_inspection_tools_but_no_shell(agent, sample_data, tmp_path):
    scenario = {
        "turns": [
            {"call": "inspect", "input": {"views": [{"x": 100, "y": 100, "width": 40, "height": 30}], "size": 160}},
            {"call": "read_pixels", "input": {"x": 0, "y": 0, "width": 40, "height": 40, "rows": 4, "columns": 4}},
            {"final": "<answer>7</answer>"},
        ]
    }
    with ScriptedServer(scenario) as server:
        outcome = run_agent(agent, "image", server, sample_data, tmp_path, ids="RC-0")
        requests = server.main_requests()
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.tool_calls == 2
    offered = set(offered_tool_names(requests[0]))
    assert not offered & SHELL_TOOLS
    assert {"mcp__imagetools__inspect", "mcp__imagetools__read_pixels", "mcp__imagetools__info"} <= offered
    assert not has_image(requests[0]) and has_image(requests[1])  # the enlarged view reached the model
    assert "palette" in json.dumps(requests[2].body)  # read_pixels' text reached it too
    views = outcome.store.root / "sandboxes" / "RC-0" / "work" / "views"
    from PIL import Image

    assert Image.open(views / "001-inspect.png").size == (160, 120)


@pytest.mark.parametrize("agent", AGENTS)
def test_viewing_the_file_is_in_the_transcript_with_the_image_seen(agent, sample_data, tmp_path):
    # Codex prints no event for view_image: the adapter takes it from the CLI's session log.
    with ScriptedServer({"turns": [{"call": "view_file", "input": {"path": "image.png"}}, "<answer>5</answer>"]}) as s:
        outcome = run_agent(agent, "image", s, sample_data, tmp_path, ids="RC-0")
        assert has_image(s.main_requests()[1])
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.tool_calls == 1 and record.num_turns == 2
    item = outcome.store.root / "sandboxes" / "RC-0"
    steps = Transcript.load(item / "steps.json").steps
    result = next(step for step in steps if step.kind == "tool_result")
    from PIL import Image

    assert len(result.images) == 1
    assert Image.open(item / result.images[0]).size == Image.open(item / "work" / "image.png").size


@pytest.mark.parametrize("agent", AGENTS)
def test_a_command_running_past_codexs_exec_yield_is_one_tool_call(agent, sample_data, tmp_path):
    """Codex answers the model "Process running with session ID …" for a command still running after its exec yield
    (10 s) and leaves it in the background; the model answers, the turn ends and the command's item.completed never
    reaches the stream. The call the model made is counted all the same, as Claude Code's is."""
    long_call = {"call": "shell", "input": {"command": "python3 -c 'import time; time.sleep(12)'"}}
    with ScriptedServer({"turns": [long_call, "<answer>7</answer>"]}) as server:
        outcome = run_agent(agent, "python", server, sample_data, tmp_path, ids="RC-0")
        second = server.main_requests()[1].body
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.tool_calls == 1, record.error
    steps = Transcript.load(outcome.store.root / "sandboxes" / "RC-0" / "steps.json").steps
    assert [s.kind for s in steps] == ["tool_call", "tool_result", "text"]
    if agent == "codex":  # what the model got: the command still running (the premise of this test)
        outputs = [i.get("output") for i in second.get("input") or [] if i.get("type") == "function_call_output"]
        assert len(outputs) == 1 and "Process running with session ID" in str(outputs[0]), outputs
        assert steps[1].text.startswith("[no result in Codex's stream: the call was still running")


@pytest.mark.parametrize("agent", AGENTS)
def test_auth_error_stops_the_run(agent, sample_data, tmp_path):
    with ScriptedServer({"turns": ["<answer>1</answer>"]}, faults={"status": 401}) as server:
        outcome = run_agent(agent, "none", server, sample_data, tmp_path, jobs=1, timeout_s=120)
    records = outcome.store.records()
    assert outcome.stopped_for_auth and agent in outcome.stopped_for_auth
    assert "_API_KEY" in outcome.stopped_for_auth
    assert [r.status for r in records] == ["auth_error"]  # the other five never started
    assert not records[0].correct and records[0].prediction == ""


@pytest.mark.parametrize("agent", AGENTS)
def test_rate_limit_then_success_ends_ok(agent, sample_data, sample_truth, tmp_path):
    truth = sample_truth["LIS-0"]["answer"]
    with ScriptedServer({"turns": [f"<answer>{truth}</answer>"]}, faults={"status": 429, "times": 1}) as server:
        outcome = run_agent(agent, "none", server, sample_data, tmp_path, ids="LIS-0")
        outcomes = [r.outcome for r in server.main_requests()]
    record = outcome.store.records()[0]
    assert outcomes[0] == "fault:429" and outcomes[-1] == "final"
    assert record.status == "ok" and record.correct


@pytest.mark.parametrize("agent", AGENTS)
def test_hang_times_out_and_leaves_no_process(agent, sample_data, tmp_path):
    with ScriptedServer({"turns": ["<answer>1</answer>"]}, faults={"hang": True}) as server:
        outcome = run_agent(agent, "python", server, sample_data, tmp_path, ids="FDS-0", timeout_s=6)
    record = outcome.store.records()[0]
    assert record.status == "timeout" and "--timeout 6s" in record.error
    assert wait_until_gone(str(outcome.store.root)) == []


def test_the_turn_cap_reaches_claude_code_and_the_budget_stays_at_the_gateway(sample_data, tmp_path):
    # Three calls scripted, --max-turns 2: Claude stops itself; the item is graded (no answer, wrong)
    # and not rerun on resume, since the cap is part of what was measured.
    scenario = {
        "turns": [
            {"call": "shell", "input": {"command": "echo 1"}},
            {"call": "shell", "input": {"command": "echo 2"}},
            "<answer>1</answer>",
        ]
    }
    with ScriptedServer(scenario) as server:
        outcome = run_agent(
            "claude-code", "python", server, sample_data, tmp_path, ids="RC-0", max_turns=2, max_item_cost_usd=5.0
        )
    record = outcome.store.records()[0]
    meta = json.loads((outcome.store.root / "sandboxes" / "RC-0" / "meta.json").read_text())
    # The item's cost cap is the gateway's (the same for both CLIs), not Claude Code's own --max-budget-usd.
    assert "--max-turns" in meta["argv"] and "--max-budget-usd" not in meta["argv"]
    assert record.status == "no_answer" and not record.correct and "error_max_turns" in record.error
