"""The field's formats end to end with the real CLIs on the scripted model, the scripted server also
playing the judge: a VLMEvalKit TSV (judge asked only where the rules read no option) and a BabyVision
folder (judge asked for every item); every judge call recorded on its item, cached across a resume and
a regrade (counted at the server); without a judge the undecided items are ungraded, never wrong; and
`agent-eval score` on a replies file, then `compare` against a run."""

import json

import pytest

from agent_eval.agents.registry import scripted_environ
from agent_eval.benchmarks import load_benchmark
from agent_eval.datamodel.results import RunStore
from agent_eval.scripted import ScriptedServer
from support.agentrun import run_agent
from support.clirun import invoke

pytestmark = pytest.mark.e2e

JUDGE = "claude-judge-scripted"

# The agent's replies, by question: a letter the rules read, or words they cannot read.
MCQ_AGENT = {
    "rules": [
        {"match": "How many black dots", "turns": ["Counting them, the answer is B"]},
        {"match": "What colour is the square\\?", "turns": ["It looks like a warm colour to me."]},
        {"turns": ["I am not sure."]},
    ],
    # The judge: the reference's matching prompt, answered with an option letter.
    "judge": [{"match": "help me to match an answer", "reply": "A"}],
}

BOXED_AGENT = {
    "rules": [
        {"match": "Which colour is the square", "turns": ["So the answer is \\boxed{A}."]},
        {"turns": ["I count \\boxed{\\frac{8}{2}} dots"]},
    ],
    # The judge: True where the extracted answer equals the truth the prompt quotes, else False.
    "judge": [
        {"match": "Ground Truth Answer: (.+),\\nModel Output: \\1\\n", "reply": "True"},
        {"match": "careful and strict evaluator", "reply": "False"},
    ],
}


def _sample(tmp_path, kind):
    out = tmp_path / f"data-{kind}"
    result = invoke("sample-data", "--kind", kind, "--per-task", "2", out)
    assert result.exit_code == 0, result.output
    return out / "vlmeval_sample.tsv" if kind == "vlmeval" else out


def _judge_requests(server):
    return [r for r in server.requests if r.kind == "judge"]


def test_tsv_run_asks_the_judge_only_where_the_rules_cannot_decide(tmp_path):
    data = _sample(tmp_path, "vlmeval")
    with ScriptedServer(MCQ_AGENT) as server:
        outcome = run_agent("claude-code", "none", server, data, tmp_path / "runs", judge_model=JUDGE)
        records = {r.id: r for r in RunStore(outcome.store.root).records()}
        undecided = [r for r in records.values() if r.answer_text != "Counting them, the answer is B"]
        judged = _judge_requests(server)
        # one judge call per item the rules could not read (the judge's "A" is read at once)
        assert len(judged) == len(undecided) > 0
        for record in records.values():
            calls = record.metrics["judge_calls"]
            if record in undecided:
                assert record.metrics["decided_by"] == "judge" and record.prediction == "A"
                assert len(calls) == 1 and calls[0]["reply"] == "A" and calls[0]["model"] == JUDGE
                assert "help me to match an answer" in calls[0]["prompt"]
                assert calls[0]["usage"]["input_tokens"] == 100
                assert record.correct == (record.ground_truth == "A")
            else:
                assert record.metrics["decided_by"] == "rules" and calls == []
                assert record.prediction == "B" and record.correct == (record.ground_truth == "B")
        # the reference's prompt text reached the model byte for byte (its trailing " \n" included)
        bodies = [json.dumps(r.body) for r in server.main_requests()]
        for item in load_benchmark(data)[1].items:
            assert any(json.dumps(item.prompt_text)[1:-1] in body for body in bodies), item.id
        # every image of the multi-image row reached the model; the large one is recorded as it arrived
        assert [i["via"] for i in records["7"].images] == ["inline", "inline"]
        assert records["3"].images[0]["source_size"] == [2048, 2048] and records["3"].images[0]["received"]
        manifest = json.loads((outcome.store.root / "run.json").read_text())
        assert manifest["config"]["judge_model"] == JUDGE
        # a resume runs nothing and asks nothing; a regrade asks the run's cache, not the judge
        run_agent("claude-code", "none", server, data, tmp_path / "runs", judge_model=JUDGE)
        result = invoke("regrade", outcome.store.root, "--data", data, env=scripted_environ("claude-code", server.url))
        assert result.exit_code == 0, result.output
        assert len(_judge_requests(server)) == len(judged)
        shown = " ".join(invoke("show", outcome.store.root, undecided[0].id).output.split())  # unwrapped
        assert "option read: A (by the judge)" in shown and "judge call 1 (claude-judge-scripted" in shown
        assert "from the run's cache" in shown  # the regrade's calls came from the cache
        cache = list((outcome.store.root / "judge_cache").glob("*.json"))
        assert len(cache) == len({c.body["messages"][0]["content"] for c in judged})


def test_tsv_run_without_a_judge_leaves_undecided_items_ungraded(tmp_path):
    data = _sample(tmp_path, "vlmeval")
    with ScriptedServer(MCQ_AGENT) as server:
        outcome = run_agent("claude-code", "none", server, data, tmp_path / "runs", ids="2,4,5")
        assert _judge_requests(server) == []
    records = {r.id: r for r in RunStore(outcome.store.root).records()}
    assert records["2"].status == "ok" and records["2"].prediction == "B"  # counting: read by the rules
    for item in ("4",):
        assert records[item].status == "ungraded" and not records[item].correct
        assert "no --judge-model" in records[item].error
    assert outcome.rollup["overall"]["statuses"].get("ungraded")
    assert outcome.rollup["overall"]["accuracy"] == 1.0 * sum(r.correct for r in records.values()) / 2  # of 2 graded
    html = tmp_path / "report.html"
    assert invoke("report", outcome.store.root, "--output", html).exit_code == 0
    assert "ungraded (no judge)" in html.read_text() and "no verdict" in html.read_text()
    # a judge named later grades what was left: `regrade --judge-model`, asked only for the ungraded item
    with ScriptedServer(MCQ_AGENT) as judge_server:
        result = invoke(
            "regrade", outcome.store.root, "--judge-model", JUDGE, env=scripted_environ("claude-code", judge_server.url)
        )
        assert result.exit_code == 0, result.output
        assert len(_judge_requests(judge_server)) == 1 and judge_server.main_requests() == []
    regraded = {r.id: r for r in RunStore(outcome.store.root).records()}
    assert regraded["4"].status == "ok" and regraded["4"].prediction == "A" and regraded["4"].error is None
    assert regraded["4"].correct == (regraded["4"].ground_truth == "A")
    assert json.loads((outcome.store.root / "run.json").read_text())["config"]["judge_model"] == JUDGE


def test_babyvision_run_judges_every_item(tmp_path):
    data = _sample(tmp_path, "babyvision")
    with ScriptedServer(BOXED_AGENT) as server:
        outcome = run_agent("claude-code", "image", server, data, tmp_path / "runs", judge_model=JUDGE)
        records = RunStore(outcome.store.root).records()
        assert len(_judge_requests(server)) == len(records) == 4
        for record in records:
            (call,) = record.metrics["judge_calls"]
            if "Which colour" in call["prompt"]:
                assert record.metrics["extracted"] == "A" and record.correct == (record.ground_truth == "A")
            else:
                assert record.metrics["extracted"] == "\\frac{8}{2}" and call["reply"] == "False"
                assert not record.correct
        # resumed with a second repeat: the agent runs again, the judge answers from the run's cache
        mains = len(server.main_requests())
        run_agent("claude-code", "image", server, data, tmp_path / "runs", judge_model=JUDGE, repeats=2)
        assert len(server.main_requests()) > mains and len(_judge_requests(server)) == 4
    second = [r for r in RunStore(outcome.store.root).records() if r.repeat == 1]
    assert len(second) == 4 and all(r.metrics["judge_calls"][0]["cached"] for r in second)
    assert [r.correct for r in sorted(second, key=lambda r: r.id)] == [
        r.correct for r in sorted(records, key=lambda r: r.id)
    ]


def test_score_replies_then_compare_with_a_run(tmp_path):
    data = _sample(tmp_path, "vlmeval")
    with ScriptedServer(MCQ_AGENT) as server:
        env = scripted_environ("claude-code", server.url)
        outcome = run_agent("claude-code", "none", server, data, tmp_path / "runs", judge_model=JUDGE)
        ids = sorted(r.id for r in RunStore(outcome.store.root).records())
        replies = tmp_path / "replies.jsonl"
        replies.write_text("".join(json.dumps({"id": i, "reply": "The correct answer is **A**"}) + "\n" for i in ids))
        before = len(_judge_requests(server))
        result = invoke(
            "score", "--data", data, replies, "--out-dir", tmp_path / "runs", "--judge-model", JUDGE, env=env
        )
        assert result.exit_code == 0, result.output
        assert len(_judge_requests(server)) == before  # every reply read by the rules
    scored = tmp_path / "runs" / "replies-replies"
    records = RunStore(scored).records()
    assert {r.id for r in records} == set(ids) and all(r.prediction == "A" for r in records)
    result = invoke("compare", outcome.store.root, scored)
    assert result.exit_code == 0, result.output
    assert "replies" in result.output
    result = invoke("show", scored)
    assert result.exit_code == 0, result.output
    result = invoke("report", scored, outcome.store.root, "--output", tmp_path / "report.html")
    assert result.exit_code == 0, result.output


def test_codex_run_with_an_openai_judge_over_the_responses_api(tmp_path):
    data = _sample(tmp_path, "babyvision")
    with ScriptedServer(BOXED_AGENT) as server:
        outcome = run_agent(
            "codex", "python", server, data, tmp_path / "runs", judge_model="openai/gpt-judge-scripted", ids="100,200"
        )
        judged = _judge_requests(server)
    assert [r.api for r in judged] == ["responses", "responses"]
    assert all(r.path.endswith("/v1/responses") and r.body["model"] == "gpt-judge-scripted" for r in judged)
    assert all(r.body["max_output_tokens"] == 16 for r in judged)  # the reference's cap
    records = {r.id: r for r in RunStore(outcome.store.root).records()}
    assert records["100"].metrics["judge_calls"][0]["usage"] == {"input_tokens": 100, "output_tokens": 20}
    assert records["100"].correct == (records["100"].ground_truth == "A")
    assert records["200"].status == "ok" and not records["200"].correct
    rollup = json.loads((outcome.store.root / "rollup.json").read_text())
    assert rollup["judge"]["calls"] == 2 and rollup["judge"]["model"] == "openai/gpt-judge-scripted"
