"""`agent-eval show`: the items table, one transcript, and clear errors, on realistic run dirs."""

import json
import re

import pytest
from click.testing import CliRunner

from agent_eval.commands.show import command
from support.runfixtures import ITEMS, make_cot_results, make_run

OUTCOMES = {
    "ACF-0": False,
    "ACF-1": "timeout",
    "ACF-2": True,
    "BFC-0": True,
    "BFC-1": False,
    "CZS-0": True,
    "CMC-0": "agent_error",
    "FDS-0": True,
}


def show(*args):
    result = CliRunner().invoke(command, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture
def run(tmp_path):
    return make_run(tmp_path, "claude-python", outcomes=OUTCOMES)


def test_table_lists_every_item_with_config_header(run):
    result = show(run)
    assert result.exit_code == 0
    assert "agent claude-code, model claude-opus-4-8, effort high, tools python, sandbox bwrap" in result.output
    for item_id, *_ in ITEMS:
        assert item_id in result.output
    assert "timeout" in result.output and "agent_error" in result.output
    assert "8 shown of 8 items" in result.output and "accuracy 50.0% (4/8)" in result.output
    assert "SANDBOX NONE" not in result.output


def test_table_filters(run):
    wrong = show(run, "--wrong").output
    assert "4 shown of 8" in wrong and "ACF-2" not in wrong and "ACF-0" in wrong
    errors = show(run, "--errors").output
    assert "2 shown of 8" in errors and "ACF-1" in errors and "CMC-0" in errors and "ACF-0" not in errors
    task = show(run, "--task", "bounded_face_counting").output
    assert "2 shown of 8" in task and "BFC-1" in task and "ACF-0" not in task
    bad = show(run, "--task", "nope")
    assert bad.exit_code == 2 and "arrow_chain_following" in bad.output


def test_loud_notes_for_unsandboxed_scripted_runs_and_missing_manifest(tmp_path):
    loud = show(make_run(tmp_path, "risky", sandbox="none", scripted=True, tools="none")).output
    assert "SANDBOX NONE" in loud and "SCRIPTED MODEL" in loud
    cot = show(make_cot_results(tmp_path, "cot-results")).output
    assert "no run.json" in cot and "cot-results" in cot and "cost unknown (8 items)" in cot


def test_transcript_shows_prompt_steps_images_and_grade(run):
    result = show(run, "ACF-0")
    out = result.output
    assert result.exit_code == 0
    assert "The piece highlighted by a green ring" in out  # the prompt
    assert "tool call: mcp__image_tools__inspect" in out and '"x": 160' in out  # call and its input
    assert "image in the workdir: work/image.png (640×480 px)" in out  # the input image
    # what reached the model, matched by pixels to the view the tool saved
    assert "image: seen/001.png (512×384 px) = work/views/001-inspect.png" in out
    assert "image: seen/003.png (640×480 px) = work/image.png" in out  # the original, read back
    assert "tool call: Bash" in out and "python3 -c" in out
    assert "... 49 more lines (--full)" in out and "472 (250, 250, 246)" not in out
    assert "grade: prediction 'Z' vs truth 'H' → wrong ✗" in out
    assert "cost $0.0500" in out and "turns 5" in out and "tool calls 4" in out


def test_full_expands_folded_output(run):
    out = show(run, "ACF-0", "--full").output
    assert "more lines (--full)" not in out and "472 (250, 250, 246)" in out
    assert "more lines" in show(run, "ACF-0", "--lines", "3").output


def test_transcript_for_codex_and_no_tool_mode(tmp_path):
    codex = make_run(tmp_path, "codex-python", agent="codex", model="gpt-5.5", outcomes={"ACF-2": True})
    out = show(codex, "ACF-2").output
    assert "tool call: exec_command" in out and "tool call: mcp__image_tools.inspect" in out
    assert "correct ✓" in out
    none = make_run(tmp_path, "no-tools", tools="none", outcomes={"ACF-0": True})
    out = show(none, "ACF-0").output
    assert "attached to this message" in out and "attached image: home/attachment.png (640×480 px)" in out
    assert "[1] reasoning" in out and "not shown above" not in out


def test_failed_item_shows_error(run):
    out = show(run, "ACF-1").output
    assert "timed out after 600 s" in out and "status timeout" in out


def test_agent_text_is_not_rich_markup(run):
    steps = run / "sandboxes" / "ACF-2" / "steps.json"
    data = json.loads(steps.read_text())
    data["steps"][0]["text"] = "look at [bold]this[/bold] and [red]that"
    steps.write_text(json.dumps(data))
    assert "look at [bold]this[/bold] and [red]that" in show(run, "ACF-2").output


def test_workdir_images_the_agent_never_opened_are_listed(run):
    from PIL import Image

    assert "not shown above" not in show(run, "BFC-0").output  # every view was seen (as seen/NNN.png)
    Image.new("RGB", (30, 20)).save(run / "sandboxes" / "BFC-0" / "work" / "crop.png")
    out = show(run, "BFC-0").output
    assert "images in the workdir not shown above:" in out and "work/crop.png (30×20 px)" in out


def test_item_without_transcript(tmp_path):
    out = show(make_cot_results(tmp_path, "cot", outcomes={"ACF-0": True}), "ACF-0").output
    assert "no transcript saved" in out and "correct ✓" in out


def test_unknown_item_and_run_exit_2_with_one_line(run, tmp_path):
    result = show(run, "ACF-9")
    assert result.exit_code == 2
    assert "no item 'ACF-9'" in result.output and "ACF-0" in result.output and "8 items in all" in result.output
    assert len(result.output.strip().splitlines()) == 1
    missing = show(tmp_path / "nope")
    assert missing.exit_code == 2 and "no such run directory" in missing.output
    empty = tmp_path / "empty"
    empty.mkdir()
    assert show(empty).exit_code == 2
    parent = show(tmp_path)  # a results root holding runs: say which runs are inside
    assert parent.exit_code == 2 and "claude-python" in parent.output


# -- active observation -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def active(tmp_path_factory):
    from support.runfixtures import make_active_pair

    return make_active_pair(tmp_path_factory.mktemp("active"))


def test_active_table_has_family_evidence_and_combined_columns(active):
    data, observe, none, ids = active
    out = show(observe).output
    header = next(line for line in out.splitlines() if " id " in line)
    for column in ("family", "ok", "evidence", "combined"):
        assert column in header, column
    assert " task " not in header
    right = next(line for line in out.splitlines() if ids["right"] in line)
    hallucinated = next(line for line in out.splitlines() if ids["hallucinated"] in line)
    assert right.count("✓") == 3 and hallucinated.count("✓") == 1 and hallucinated.count("✗") == 2
    assert "answer 40.0% (2/5), evidence 40.0%, combined 20.0%, hallucination 50.0%" in out
    assert "active observation, whole run" in out and "unique_anchor" in out


def test_active_item_shows_observations_in_order_and_evidence_against_truth(active):
    data, observe, none, ids = active
    out = show(observe, ids["hallucinated"]).output
    lines = out.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("#1 frame "))
    assert lines[first + 1].startswith("#2 frame 999") and "error: frame_index 999 is out of range" in lines[first + 1]
    assert (
        "observations (2, in call order)" in out
        and "→ observations/001-f" in lines[first]
        and "(480×480 px)" in lines[first]
    )
    assert "answer: prediction" in out and "correct ✓" in out
    assert "(a view the agent never observed)" in out and "evidence wrong" in out
    assert "truth: target p" in out and "it is not in that view" in out
    assert "combined (answer and evidence): wrong ✗" in out
    good = show(observe, ids["right"]).output
    assert "(the view of observation #1)" in good and re.search(
        r"evidence correct: IoU (0\.9\d|1\.00) with the target", good
    )
    assert "its box in that view is [" in good and "combined (answer and evidence): correct ✓" in good


def test_active_item_without_dataset_still_lists_views_and_says_why(active, tmp_path):
    from support.runfixtures import make_active_run

    data, observe, none, ids = active
    moved = make_active_run(tmp_path, "moved", data, {ids["right"]: "right"}, dataset_path=str(tmp_path / "gone"))
    out = show(moved, ids["right"]).output
    assert "#1 frame " in out and "dataset not readable" in out and "truth: target" not in out
    assert "evidence correct" in out  # the record's own grade is still shown
    fixed = show(moved, ids["right"], "--data", data).output
    assert "truth: target" in fixed and "dataset not readable" not in fixed


def test_active_passive_item_lists_the_attached_frames(active):
    data, observe, none, ids = active
    out = show(none, ids["right"]).output
    assert "attached image: home/passive/panorama-01-f" in out and "(3760×480 px)" in out
    assert "observations: none logged (tool mode none)" in out
    assert "(a view the agent never observed)" in out
