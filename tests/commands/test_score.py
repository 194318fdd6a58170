"""`agent-eval score`: replies from a file graded by a kind's own rules into a run folder the readers take
(ActiveVision's scorer here; the field's formats with a judge are tested end to end), and its errors."""

import json

from agent_eval.benchmarks.activevision.scoring import grade
from agent_eval.datamodel.results import RunStore
from support.clirun import invoke


def _replies(tmp_path, rows):
    path = tmp_path / "other_harness.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_score_grades_activevision_replies_with_its_scorer(sample_data, sample_truth, tmp_path):
    truth = sample_truth["CCC-0"]["answer"]
    replies = _replies(
        tmp_path,
        [
            {"id": "CCC-0", "reply": f"<answer>{truth}</answer>"},
            {"id": "RC-0", "reply": "no tag, the last line is read\nZZZ"},
            {"id": "MPT-0", "reply": None},
        ],
    )
    result = invoke("score", "--data", sample_data, replies, "--out-dir", tmp_path / "out", "--model", "other-vlm")
    assert result.exit_code == 0, result.output
    run = tmp_path / "out" / "replies-other_harness"
    records = {r.id: r for r in RunStore(run).records()}
    assert records["CCC-0"].status == "ok" and records["CCC-0"].correct
    expected = grade("no tag, the last line is read\nZZZ", sample_truth["RC-0"]["answer"])  # the kind's own scorer
    assert records["RC-0"].status == "no_answer" and records["RC-0"].prediction == expected.prediction
    assert records["MPT-0"].status == "no_answer" and not records["MPT-0"].correct
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["config"]["agent"] == "replies" and manifest["config"]["model"] == "other-vlm"
    assert manifest["config"]["benchmark"] == "activevision" and manifest["config"]["scorer_hash"]
    # scoring again keeps what was graded
    more = _replies(tmp_path, [{"id": "CCC-0", "reply": "changed"}, {"id": "LIS-0", "reply": "<answer>1</answer>"}])
    result = invoke(
        "score",
        "--data",
        sample_data,
        more,
        "--out-dir",
        tmp_path / "out",
        "--model",
        "other-vlm",
        "--run-name",
        "replies-other_harness",
    )
    assert result.exit_code == 0, result.output
    records = {r.id: r for r in RunStore(run).records()}
    assert records["CCC-0"].answer_text == f"<answer>{truth}</answer>" and "LIS-0" in records
    assert invoke("show", run).exit_code == 0


def test_score_refuses_a_judge_for_a_kind_that_asks_none(sample_data, tmp_path):
    replies = _replies(tmp_path, [{"id": "CCC-0", "reply": "x"}])
    result = invoke("score", "--data", sample_data, replies, "--judge-model", "claude-x")
    assert result.exit_code == 2 and "asks no judge model" in result.output


def test_score_names_the_bad_line(sample_data, tmp_path):
    for rows, message in [
        ([{"id": "CCC-0", "reply": "x"}, "{broken"], "other_harness.jsonl:2: malformed JSON"),
        ([{"id": "NOPE-1", "reply": "x"}], "other_harness.jsonl:1: id 'NOPE-1' is not an item"),
        ([{"id": "CCC-0"}], 'other_harness.jsonl:1: expected an object with "id" and "reply"'),
        ([{"id": "CCC-0", "reply": "a"}, {"id": "CCC-0", "reply": "b"}], "other_harness.jsonl:2: id 'CCC-0'"),
        ([{"id": "CCC-0", "reply": 3}], '"reply" must be a string or null'),
    ]:
        result = invoke("score", "--data", sample_data, _replies(tmp_path, rows), "--out-dir", tmp_path / "o")
        assert result.exit_code == 2, result.output
        assert message in result.output.replace("\n", "")


def test_a_bad_row_is_named_and_the_rest_is_graded(tmp_path):
    from agent_eval.benchmarks.fieldsamples import write_vlmeval_tsv

    tsv = write_vlmeval_tsv(tmp_path / "data", seed=1, per_task=1)
    lines = tsv.read_text().splitlines()
    cells = lines[2].split("\t")
    cells[1] = "bm90IGFuIGltYWdl" * 8  # base64 of text, not of an image
    lines[2] = "\t".join(cells)
    tsv.write_text("\n".join(lines) + "\n")
    replies = _replies(tmp_path, [{"id": "1", "reply": "B"}, {"id": "3", "reply": "The answer is C"}])
    result = invoke("score", "--data", tsv, replies, "--out-dir", tmp_path / "out")
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert f"skipped: {tsv} row 2 (index 2): its base64 image decodes to" in said and "1 row(s)" in said
    records = {r.id: r for r in RunStore(tmp_path / "out" / "replies-other_harness").records()}
    assert set(records) == {"1", "3"} and records["3"].prediction == "C"
