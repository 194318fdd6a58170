"""What the tools changed, item by item, on real runs of both CLIs against the scripted model: a `none`
run and a `python` run with two repeats each, where some items flip between repeats.

Plan (truth T, wrong Z), repeat 0 / repeat 1:
  none   (A): RC-0 T/T, MPT-0 Z/T (the scripted model changes its mind between the two passes), rest Z/Z
  python (B): CCC-0, MPT-0 T/T; LIS-0 T/Z and ACF-0 Z/T (decided by a shell command that reads the repeat
              from its working directory); each of those four inspects a region first; RC-0 runs only the
              shell (answers blind, Z/Z); FDS-0 answers at once without tools (Z/Z)
"""

import csv
import io
import itertools
import json
import re
import shlex

import pytest
from click.testing import CliRunner

from agent_eval.commands.compare import command as compare_command
from agent_eval.commands.report import command as report_command
from agent_eval.commands.show import command as show_command
from agent_eval.scripted import ScriptedServer
from support.agentrun import AGENTS, run_agent
from support.browser import chromium

pytestmark = pytest.mark.e2e

LOOKS = {"CCC-0": "TT", "MPT-0": "TT", "LIS-0": "TZ", "ACF-0": "ZT"}  # inspect, then the shell decides
NONE_SECOND_PASS_RIGHT = {"RC-0", "MPT-0"}
NONE_FIRST_PASS_RIGHT = {"RC-0"}


def _match(row) -> str:
    return re.escape(row["question"][-160:-60])


def _python_rules(truth: dict) -> list[dict]:
    rules = []
    for item_id, row in truth.items():
        if item_id in LOOKS:
            r0, r1 = (row["answer"] if c == "T" else "Z" for c in LOOKS[item_id])
            decide = f"python3 -c \"import os; print('{r1}' if '.r1/' in os.getcwd() + '/' else '{r0}')\""
            turns = [
                {
                    "call": "inspect",
                    "input": {"views": [{"x": 200, "y": 150, "width": 240, "height": 160}], "size": 480},
                },
                {"call": "shell", "input": {"command": decide}},
                {"final": "Measured. <answer>{last_tool_output}</answer>"},
            ]
        elif item_id == "RC-0":
            turns = [{"call": "shell", "input": {"command": "echo no need to look"}}, {"final": "<answer>Z</answer>"}]
        else:
            turns = [{"final": "Obvious. <answer>Z</answer>"}]
        rules.append({"match": _match(row), "turns": turns})
    return rules


def _none_rules(truth: dict, right: set[str]) -> list[dict]:
    return [
        {"match": _match(row), "turns": [f"<answer>{row['answer'] if i in right else 'Z'}</answer>"]}
        for i, row in truth.items()
    ]


@pytest.fixture(scope="module", params=AGENTS)
def pair(request, sample_data, sample_truth, tmp_path_factory):
    agent = request.param
    out = tmp_path_factory.mktemp(f"changes-{agent}")
    with ScriptedServer({"rules": _none_rules(sample_truth, NONE_FIRST_PASS_RIGHT)}) as server:
        run_agent(agent, "none", server, sample_data, out, jobs=3, repeats=1)
    with ScriptedServer({"rules": _none_rules(sample_truth, NONE_SECOND_PASS_RIGHT)}) as server:
        none_run = run_agent(
            agent, "none", server, sample_data, out, jobs=3, repeats=2
        ).store.root  # resumes: repeat 1 only
    with ScriptedServer({"rules": _python_rules(sample_truth)}) as server:
        python_run = run_agent(agent, "python", server, sample_data, out, jobs=3, repeats=2).store.root
    return agent, none_run, python_run, sample_truth


def _json(*args) -> dict:
    result = CliRunner().invoke(compare_command, [*map(str, args), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_changed_items_name_both_predictions_the_truth_and_open_both_transcripts(pair):
    agent, none_run, python_run, truth = pair
    data = _json(none_run, python_run)
    changed = data["changed"][0]
    assert changed["pair"] == ["A", "B"]
    assert {e["id"] for e in changed["only_B"]} == {"CCC-0", "MPT-0", "LIS-0", "ACF-0"}
    assert [e["id"] for e in changed["only_A"]] == ["RC-0"]
    lis = next(e for e in changed["only_B"] if e["id"] == "LIS-0")
    assert lis["truth"] == truth["LIS-0"]["answer"]
    assert lis["runs"]["B"]["predictions"] == [truth["LIS-0"]["answer"], "Z"] and lis["runs"]["B"]["share_right"] == 0.5
    assert lis["runs"]["A"]["predictions"] == ["Z", "Z"]
    acf = next(e for e in changed["only_B"] if e["id"] == "ACF-0")
    assert acf["runs"]["B"]["repeat"] == 1 and acf["runs"]["B"]["show"].endswith("--repeat 1")
    for side in ("A", "B"):  # the commands really open the transcripts they name
        argv = shlex.split(acf["runs"][side]["show"])
        assert argv[:2] == ["agent-eval", "show"]
        shown = CliRunner().invoke(show_command, argv[2:], terminal_width=200)
        assert shown.exit_code == 0 and "ACF-0" in shown.output, shown.output
    assert "repeat 1" in shown.output and "tool call" in shown.output


def test_repeats_flip_rate_majority_and_noise(pair):
    agent, none_run, python_run, _ = pair
    data = _json(none_run, python_run)
    a, b = (run["repeats"] for run in data["runs"])
    assert (a["repeats"], b["repeats"]) == (2, 2)
    assert a["flip_rate"] == pytest.approx(1 / 6) and a["items_that_flip"] == 1
    assert b["flip_rate"] == pytest.approx(2 / 6) and b["items_that_flip"] == 2
    assert a["majority_accuracy"] == pytest.approx(1 / 6) and a["majority_ties"] == 1
    assert b["majority_accuracy"] == pytest.approx(2 / 6) and b["majority_ties"] == 2
    assert (a["all_accuracy"], b["all_accuracy"]) == pytest.approx((1 / 6, 2 / 6))
    assert b["share_right"] == {"CCC-0": 1.0, "MPT-0": 1.0, "LIS-0": 0.5, "ACF-0": 0.5, "RC-0": 0.0, "FDS-0": 0.0}
    noise = data["noise"][0]
    assert noise["between"] == pytest.approx(3.5 / 6) and noise["exceeds"] is True
    # the permutation test on per-item shares, against every one of the 2^5 sign patterns by hand
    diffs = [1, 0.5, 0.5, 0.5, -1]
    extreme = sum(
        abs(sum(s * d for s, d in zip(signs, diffs))) >= abs(sum(diffs)) - 1e-12
        for signs in itertools.product((1, -1), repeat=5)
    )
    perm = data["rows"][0]["vs_first"][1]["permutation"]
    assert perm["exact"] and perm["nonzero"] == 5 and perm["p_value"] == pytest.approx(extreme / 32)
    assert any("the modes differ by more than re-running either one does" in v for v in data["verdicts"])


def test_tool_use_counts_kinds_blind_answers_and_no_broken_ablation(pair):
    agent, none_run, python_run, _ = pair
    data = _json(none_run, python_run)
    a, b = (run["tool_use"] for run in data["runs"])
    assert (a["mode"], a["items_with_tools"], a["calls"], a["broken_ablation"]) == ("none", 0, 0, [])
    assert a["answered_blind"] is None  # mode none is blind by design
    assert (b["item_runs"], b["items_with_tools"], b["calls"]) == (12, 10, 18)
    assert b["by_kind"]["inspect"] == {"items": 8, "calls": 8} and b["by_kind"]["shell"] == {"items": 10, "calls": 10}
    assert b["accuracy_with_tools"] == pytest.approx(0.6) and b["accuracy_without_tools"] == 0.0
    assert b["answered_blind"] == 4 and b["blind_items"] == ["FDS-0", "FDS-0 r1", "RC-0", "RC-0 r1"]
    assert not any("BROKEN ABLATION" in w for run in data["runs"] for w in run["warnings"])


def test_cost_per_right_answer_and_holm(pair):
    agent, none_run, python_run, _ = pair
    data = _json(none_run, python_run)
    from agent_eval.reading.runs import load_run

    records = load_run(python_run).records
    per = data["runs"][1]["per_correct"]
    assert per["correct"] == 6 and per["item_runs"] == 12
    assert per["elapsed_s"] == pytest.approx(sum(r.elapsed_s for r in records) / 6)
    assert per["num_turns"] == pytest.approx(sum(r.num_turns for r in records) / 6)
    tasks = [row for row in data["rows"] if row["scope"] == "task"]
    assert len(tasks) == 6 and all(row["vs_first"][1]["p_holm"] >= row["vs_first"][1]["p_value"] for row in tasks)


def test_table_markdown_csv_and_task_plot(pair, tmp_path):
    agent, none_run, python_run, _ = pair
    table = CliRunner().invoke(compare_command, [str(none_run), str(python_run)], env={"COLUMNS": "220"})
    assert table.exit_code == 0, table.output
    for text in (
        "B vs A: 4 item(s) only B got right",
        "B vs A: 1 item(s) only A got right",
        "flip rate",
        "answered blind",
        "per right answer",
        "Holm B",
        "perm. p B",
        "agent-eval show",
    ):
        assert text in table.output, text
    markdown = CliRunner().invoke(compare_command, [str(none_run), str(python_run), "--format", "markdown"]).output
    assert "items only B got right (4)" in markdown and "| RC-0 |" in markdown
    rows = list(
        csv.DictReader(
            io.StringIO(
                CliRunner()
                .invoke(compare_command, [str(none_run), str(python_run), "--format", "csv", "--table", "changed"])
                .output
            )
        )
    )
    assert sorted((r["only_right"], r["id"]) for r in rows) == [
        ("A", "RC-0"),
        ("B", "ACF-0"),
        ("B", "CCC-0"),
        ("B", "LIS-0"),
        ("B", "MPT-0"),
    ]
    plot = tmp_path / "tasks.png"
    done = CliRunner().invoke(
        compare_command, [str(none_run), str(python_run), "--plot", str(plot), "--plot-by", "task"]
    )
    assert done.exit_code == 0 and plot.stat().st_size > 20000


def test_report_shows_changed_items_side_by_side(pair, tmp_path):
    agent, none_run, python_run, _ = pair
    html = tmp_path / "report.html"
    result = CliRunner().invoke(report_command, [str(none_run), str(python_run), "-o", str(html)])
    assert result.exit_code == 0, result.output
    text = html.read_text()
    changed = text[text.index('id="changed"') : text.index('id="items"')]
    assert changed.count('class="changed-item') == 5
    assert "only B got right" in changed and "only A got right" in changed
    assert changed.count("mcp__imagetools__inspect") >= 4  # B's inspect calls, with the views they returned
    # per run: tool use, repeats, cost of a right answer; across runs: compare's verdicts (Holm, noise)
    assert "called on 10 of 12 item runs, 18 calls (inspect ×8 (8), shell ×10 (10))" in text
    assert "answered blind 4 (0.0% right)" in text and "flip rate 33.3% (2 of 6 items flip)" in text
    assert "per right answer (6 of 12)" in text and "Holm-adjusted" in text and "the modes differ by more" in text
    done = chromium(tmp_path, "--virtual-time-budget=10000", "--dump-dom", url=f"file://{html}#selftest")
    status = json.loads(
        re.search(r'<pre id="selftest-result">(.*?)</pre>', done.stdout).group(1).replace("&quot;", '"')
    )
    assert status["errors"] == [] and status["images_loaded"] == status["images"]
