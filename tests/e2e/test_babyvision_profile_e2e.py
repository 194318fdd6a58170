"""`agent-eval run --profile vista` on BabyVision, as a user types it, through both real CLIs, sandboxed, against the
scripted model (which also plays the judge): every request offers exactly VISTA's two tools, inspect and read_pixels
(Codex: beside the MCP-resource tools it always keeps), its system prompt is VISTA's BabyVision text in the CLI's
own prompt's place, the first request carries VISTA's first input (the official question and VISTA's label of the
image) with the image; the tools answer as VISTA's do (a labelled, enlarged view; a per-call palette of 4-bit
colours); the record holds both grades, VISTA's exact match as `correct` and the judge's beside it; `compare`
shows both, so does the report, and a run without --judge-model still gets VISTA's grade."""

import json

import pytest

from agent_eval.agents.codex.adapter import MCP_RESOURCE_TOOLS
from agent_eval.agents.registry import scripted_environ
from agent_eval.benchmarks.profiles import vista_system_prompt
from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.inspect_requests import conversation, has_image, offered_tool_names
from support.agentrun import AGENTS, MODELS, system_texts
from support.clirun import invoke

pytestmark = pytest.mark.e2e

JUDGE = "claude-judge-scripted"
JUDGES = {"claude-code": JUDGE, "codex": "openai/gpt-judge-scripted"}  # each CLI's credential reaches its own API
VISTA_TOOLS = ("inspect", "read_pixels")
QUESTION = "Which colour is the square?\nChoices:\n(A) purple\n(B) green\n(C) red\n(D) yellow\n"
LOOK = {
    "question": "Which colour fills the square?",
    "views": [{"label": "whole image", "event": 0}, {"label": "top left", "event": 0, "region": {"x": 0, "y": 0,
              "width": 64, "height": 32}}],
}  # fmt: skip
SAMPLE = {
    "question": "What colours are at the centre?",
    "views": [{"label": "centre", "event": 0, "region": {"x": 96, "y": 96, "width": 64, "height": 64}, "rows": 2,
               "columns": 2}],
}  # fmt: skip
SCENARIO = {
    "turns": [
        {"call": "inspect", "input": LOOK},
        {"call": "read_pixels", "input": SAMPLE},
        {"final": "The square is yellow: \\boxed{(D) yellow}"},
    ],
    # The judge says False whatever it is asked: the record then holds two different grades
    "judge": [{"match": "careful and strict evaluator", "reply": "False"}],
}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    out = tmp_path_factory.mktemp("profile") / "bv"
    assert invoke("sample-data", "--kind", "babyvision", out).exit_code == 0
    return out


def run_vista(agent, data, out, *extra):
    with ScriptedServer(SCENARIO) as server:
        result = invoke(
            "run", "--agent", agent, "--model", MODELS[agent], "--profile", "vista", "--unpriced", "--data", data,
            "--ids", "100", "--out-dir", out, "--run-name", "v", "--jobs", "1", *extra,
            env=scripted_environ(agent, server.url),
        )  # fmt: skip
        mains = server.main_requests()
        judged = [r for r in server.requests if r.kind == "judge"]
    assert result.exit_code == 0, result.output
    (record,) = [
        json.loads(line) for path in (out / "v").glob("*/items.jsonl") for line in path.read_text().splitlines()
    ]
    return record, mains, judged


@pytest.mark.parametrize("agent", AGENTS)
def test_profile_vista_offers_vistas_tools_prompt_and_first_input_and_grades_both_ways(agent, data, tmp_path):
    record, mains, judged = run_vista(agent, data, tmp_path, "--judge-model", JUDGES[agent])
    assert len(mains) == 3 and len(judged) == 1

    besides = set(MCP_RESOURCE_TOOLS) if agent == "codex" else set()
    for request in mains:
        offered = offered_tool_names(request)
        assert sorted(n for n in offered if n.startswith("mcp__game__")) == [f"mcp__game__{t}" for t in VISTA_TOOLS]
        assert {n for n in offered if not n.startswith("mcp__game__")} == besides, offered

    vista_text = vista_system_prompt("babyvision").read_text()
    assert vista_text.startswith("You are answering one visual question about one supplied image.")
    for body in (r.body for r in mains):
        texts = system_texts(agent, body)
        assert vista_text in texts and max(len(t) for t in texts) == len(vista_text)

    first = conversation(mains[0]).prompt
    label = '<visual kind="current" event="0" moment="0" view="question_image" size="256x256"></visual>'
    assert has_image(mains[0])
    assert (
        f"{QUESTION}Think about the question and give your final answer in \\boxed{{Answer}} format.\n\n{label}"
        in first
    )

    inspected = conversation(mains[1])
    assert inspected.has_image and '"visual_kind":"inspection"' in inspected.last_output
    assert '<visual kind="derived" event="0" moment="0" view="question_image" label="top left"' in inspected.last_output
    assert 'size="256x128"' in inspected.last_output  # 64x32 enlarged to fit 256, without smoothing
    sampled = conversation(mains[2]).last_output
    assert '"palette_scope":"call"' in sampled and '"color_bits":4' in sampled and '"label":"centre"' in sampled

    metrics = record["metrics"]
    assert record["status"] == "ok" and record["correct"] is True  # VISTA's grade: (D) names D, the truth
    assert metrics["exact_match"] is True and metrics["judge_verdict"] is False and metrics["graded_by"] == "vista"
    manifest = json.loads((tmp_path / "v" / "run.json").read_text())
    assert manifest["config"]["profile"] == "vista"
    assert manifest["config"]["kind_options"] == {"task_prompt": "vista", "image_tools": "vista", "grade": "vista"}
    assert manifest["system_prompt"]["file"] == str(vista_system_prompt("babyvision"))


def test_without_a_judge_vistas_grade_stands_a_regrade_adds_the_judges_and_compare_shows_both(data, tmp_path):
    record, _, judged = run_vista("claude-code", data, tmp_path / "a")
    assert judged == [] and record["status"] == "ok" and record["correct"] is True
    assert record["metrics"]["judge_verdict"] is None and record["metrics"]["exact_match"] is True
    # a regrade with a judge adds the judge's grade; VISTA's stays the run's `correct`
    with ScriptedServer(SCENARIO) as server:
        env = scripted_environ("claude-code", server.url)
        assert invoke("regrade", tmp_path / "a" / "v", "--judge-model", JUDGE, env=env).exit_code == 0
    (regraded,) = [
        json.loads(x) for p in (tmp_path / "a" / "v").glob("*/items.jsonl") for x in p.read_text().splitlines()
    ]
    assert regraded["correct"] is True and regraded["metrics"]["judge_verdict"] is False
    shown = " ".join(invoke("show", tmp_path / "a" / "v", "100").output.split())
    assert "grades: VISTA exact match right, judge wrong; `correct` is VISTA's grade (--grade)" in shown
    # one rung apart (--grade judge: the judge's grade is `correct`), the same judge: compare lays both grades out
    other, _, _ = run_vista("claude-code", data, tmp_path / "b", "--grade", "judge", "--judge-model", JUDGE)
    assert other["correct"] is False and other["metrics"]["exact_match"] is True
    shown = " ".join(invoke("compare", tmp_path / "a" / "v", tmp_path / "b" / "v").output.split())
    assert "BabyVision, both grades" in shown, shown
    assert "100.0%" in shown and "0.0%" in shown  # VISTA's exact match 100% in both, the judge's 0% in both
    # the report: both grades on the item and in each run's summary, the image the question is about kept
    page = tmp_path / "report.html"
    assert invoke("report", tmp_path / "a" / "v", tmp_path / "b" / "v", "-o", page).exit_code == 0
    html = " ".join(page.read_text().split())
    assert (
        'grades: VISTA exact match <b class="right">right</b> · judge (VLMEvalKit) <b class="wrong">wrong</b> · '
        "<code>correct</code> is VISTA's grade (<code>--grade vista</code>)"
    ) in html
    assert "<code>correct</code> is the judge's grade (<code>--grade judge</code>)" in html
    assert "VISTA exact match · 1/1 right · the run's accuracy (--grade)" in html
    assert "judge (VLMEvalKit) · 0/1 right · the run's accuracy (--grade)" in html
    assert html.count('alt="original image of 100"') == 2
