"""`agent-eval export` on built run directories (no agent CLIs): bad input, a run without run.json,
an unfinished run, usage broken down by model, and the one-line message without inspect-ai."""

import json
import sys

from click.testing import CliRunner
from inspect_ai.log import read_eval_log

from agent_eval.cli import main
from agent_eval.datamodel.records import ItemRecord, Usage
from agent_eval.datamodel.transcript import Transcript
from agent_eval.reading.export_inspect import sample_usage
from support.runfixtures import make_cot_results, make_run


def export(*args):
    return CliRunner().invoke(main, ["export", *map(str, args)])


def test_help_names_both_commands():
    result = export("--help")
    assert result.exit_code == 0 and "--format [inspect]" in result.output and "inspect view" in result.output


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    missing = export(tmp_path / "nope", "-o", tmp_path / "x.eval")
    assert missing.exit_code == 2 and "nope: no such run directory" in missing.output
    (tmp_path / "empty").mkdir()
    empty = export(tmp_path / "empty", "-o", tmp_path / "x.eval")
    assert empty.exit_code == 2 and "neither a run directory" in empty.output
    make_run(tmp_path / "runs", "a", sandboxes=False)
    make_run(tmp_path / "runs", "b", sandboxes=False)
    several = export(tmp_path / "runs", "-o", tmp_path / "both.eval")
    assert (
        several.exit_code == 2 and "2 runs to export" in several.output and f"-o {tmp_path / 'both'}" in several.output
    )
    assert not (tmp_path / "both.eval").exists()


def test_unfinished_run_without_transcripts_and_failures(tmp_path):
    run = make_run(tmp_path, "partial", sandboxes=False, outcomes={"ACF-0": "timeout", "ACF-1": True})
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**manifest, "finished_at": None}))
    result = export(run, "-o", tmp_path / "partial.eval")
    assert result.exit_code == 0, result.output
    assert "1 with errors" in result.output
    log = read_eval_log(str(tmp_path / "partial.eval"))
    assert log.status == "cancelled"  # an interrupted run is not passed off as complete
    timed_out = next(s for s in log.samples if s.id == "ACF-0")
    assert timed_out.error.message == "timeout: timed out after 600 s" and timed_out.scores["correct"].value == "I"
    assert "harness error" in timed_out.scores["correct"].explanation


def test_results_without_run_json_export_with_unknown_config(tmp_path):
    cot = make_cot_results(tmp_path, "cot", outcomes={"ACF-0": True})
    result = export(cot, "-o", tmp_path / "cot.eval")
    assert result.exit_code == 0, result.output
    log = read_eval_log(str(tmp_path / "cot.eval"))
    assert log.eval.model == "unknown/unknown" and log.eval.metadata["agent_eval_run"] is None
    assert next(s for s in log.samples if s.id == "ACF-0").scores["correct"].value == "C"


def test_usage_by_model_keeps_side_calls_apart():
    record = ItemRecord(
        id="A-0",
        task="t",
        category="c",
        ground_truth="1",
        status="ok",
        usage=Usage(input_tokens=130, cached_input_tokens=100, output_tokens=12),
        cost_usd=0.5,
    )
    assert {
        k: (u.input_tokens, u.input_tokens_cache_read, u.output_tokens, u.total_cost)
        for k, u in sample_usage(record, "anthropic/claude-opus-4-8").items()
    } == {"anthropic/claude-opus-4-8": (130, 100, 12, 0.5)}
    # newer records break usage down by model (names as the CLI reports them): each keeps its own
    record.usage_by_model = {
        "claude-opus-4-8": {
            "input_tokens": 120,
            "cached_input_tokens": 100,
            "cache_creation_input_tokens": 15,
            "output_tokens": 10,
            "reasoning_tokens": 4,
            "cost_usd": 0.45,
        },
        "claude-haiku-4-5": {"input_tokens": 10, "cached_input_tokens": 0, "output_tokens": 2, "cost_usd": 0.05},
    }
    usage = sample_usage(record, "anthropic/claude-opus-4-8")
    assert set(usage) == {"anthropic/claude-opus-4-8", "anthropic/claude-haiku-4-5"}
    main_model = usage["anthropic/claude-opus-4-8"]
    assert (
        main_model.input_tokens,
        main_model.input_tokens_cache_read,
        main_model.input_tokens_cache_write,
        main_model.output_tokens,
        main_model.reasoning_tokens,
        main_model.total_cost,
    ) == (120, 100, 15, 10, 4, 0.45)
    assert usage["anthropic/claude-haiku-4-5"].total_tokens == 12


def test_without_inspect_ai_one_clear_line(tmp_path, monkeypatch):
    run = make_run(tmp_path, "r", sandboxes=False)
    for name in [
        m
        for m in sys.modules
        if m == "inspect_ai"
        or m.startswith("inspect_ai.")
        or m in ("agent_eval.reading.export_inspect", "agent_eval.reading.inspect_messages")
    ]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # as if not installed
    result = export(run, "-o", tmp_path / "r.eval")
    assert result.exit_code == 2 and not (tmp_path / "r.eval").exists()
    assert result.output.strip().splitlines() == [
        "Error: inspect-ai is not installed: pip install -e '.[inspect]' (`make setup` installs it), "
        "then run the export again"
    ]


def test_active_passive_baseline_keeps_its_inline_frames(tmp_path):
    """Mode none of active observation attaches a sample of whole panorama frames: all are input images."""
    from support.runfixtures import make_active_pair

    _, observe, none, ids = make_active_pair(tmp_path)
    result = export(tmp_path, "-o", tmp_path / "logs")  # the folder holds both runs
    assert result.exit_code == 0, result.output
    passive = read_eval_log(str(tmp_path / "logs" / f"{none.name}.eval"), resolve_attachments=True)
    frames = [c for c in passive.samples[0].input[0].content if c.type == "image"]
    assert (
        len(frames)
        == len(Transcript.load(none / "sandboxes" / passive.samples[0].id / "steps.json").prompt_images)
        == 8
    )
    active = read_eval_log(str(tmp_path / "logs" / f"{observe.name}.eval"))
    by_id = {s.id: s for s in active.samples}
    assert by_id[ids["timeout"]].error.message.startswith("timeout: ")
    assert by_id[ids["hallucinated"]].scores["correct"].value == "C"
    assert by_id[ids["hallucinated"]].scores["evidence_correct"].value == "I"
    assert by_id[ids["right"]].scores["combined"].value == "C"
    tool = next(m for m in by_id[ids["right"]].messages if m.role == "tool")
    assert tool.error is None and any(c.type == "image" for c in tool.content)
    failed = [m for m in by_id[ids["right"]].messages if m.role == "tool"][1]
    assert failed.error is not None and "out of range" in failed.error.message  # a tool error stays an error


def test_earlier_failed_attempts_are_the_samples_retries(tmp_path):
    from agent_eval.datamodel.results import RunStore

    run = make_run(tmp_path, "r", sandboxes=False, outcomes={"ACF-0": True})
    store = RunStore(run)
    first = next(r for r in store.records() if r.id == "ACF-0")
    first.attempts, first.retries = 2, [{"status": "rate_limited", "error": "HTTP 429: slow down", "wait_s": 10.0}]
    store.append(first)  # the latest record of an item wins
    result = export(run, "-o", tmp_path / "r.eval")
    assert result.exit_code == 0, result.output
    sample = next(s for s in read_eval_log(str(tmp_path / "r.eval")).samples if s.id == "ACF-0")
    assert sample.error is None and [r.message for r in sample.error_retries] == ["rate_limited: HTTP 429: slow down"]
    assert sample.metadata["attempts"] == 2


def test_a_run_of_the_scripted_model_says_so_in_its_tags_and_metadata_and_a_real_one_does_not(tmp_path):
    """A demo run names the model the CLI was told (claude-opus-4-8): the log must not pass it off as that."""
    for name, scripted in (("demo", True), ("real", False)):
        run = make_run(tmp_path, name, sandboxes=False, scripted=scripted)
        assert export(run, "-o", tmp_path / f"{name}.eval").exit_code == 0
    demo, real = (read_eval_log(str(tmp_path / f"{name}.eval")) for name in ("demo", "real"))
    assert "scripted-model" in demo.eval.tags and demo.eval.metadata["scripted_model"] is True
    assert demo.eval.metadata["model_note"].startswith("the answers come from agent-eval's scripted model server")
    assert "scripted-model" not in real.eval.tags and "model_note" not in real.eval.metadata
