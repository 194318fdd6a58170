"""`agent-eval compare`: paired accuracy per task/category/overall, item-set and hash checks, formats, plot."""

import csv
import io
import json

import pytest
from click.testing import CliRunner
from PIL import Image

from agent_eval.analysis.stats import bootstrap_ci, mcnemar_exact
from agent_eval.commands.compare import command
from agent_eval.reading.comparison import build, item_scores
from agent_eval.reading.runs import load_run
from support.runfixtures import ITEMS, bank_items, make_cot_results, make_run

IDS = [item[0] for item in ITEMS]
A_RIGHT = {"ACF-0", "ACF-1", "BFC-0", "CZS-0"}
B_RIGHT = {"ACF-0", "ACF-2", "BFC-0", "BFC-1", "CZS-0", "FDS-0"}  # B alone: ACF-2, BFC-1, FDS-0; A alone: ACF-1


def compare(*args):
    result = CliRunner().invoke(command, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture
def pair(tmp_path):
    a = make_run(tmp_path, "no-tools", tools="none", outcomes={i: i in A_RIGHT for i in IDS}, cost_per_item=0.01)
    b = make_run(tmp_path, "python", tools="python", outcomes={i: i in B_RIGHT for i in IDS}, cost_per_item=0.08)
    return a, b


def test_overall_row_has_accuracies_mcnemar_and_bootstrap(pair):
    data = json.loads(compare(*pair, "--format", "json").output)
    overall = data["rows"][0]
    assert (overall["scope"], overall["n"]) == ("overall", 8)
    assert overall["accuracy"] == [0.5, 0.75]
    stat = overall["vs_first"][1]
    assert (stat["a_only"], stat["b_only"], stat["discordant"]) == (1, 3, 4)
    assert stat["p_value"] == pytest.approx(mcnemar_exact(1, 3)) == pytest.approx(0.625)
    assert stat["diff"] == pytest.approx(0.25) and not stat["significant"]
    a = [float(i in A_RIGHT) for i in sorted(IDS)]
    b = [float(i in B_RIGHT) for i in sorted(IDS)]
    assert (stat["ci_low"], stat["ci_high"]) == pytest.approx(bootstrap_ci(a, b, seed=data["seed"]))
    assert stat["ci_low"] <= stat["diff"] <= stat["ci_high"]
    # a second call gives the very same interval (fixed seed)
    assert json.loads(compare(*pair, "--format", "json").output)["rows"][0] == overall


def test_per_category_and_task_rows(pair):
    rows = json.loads(compare(*pair, "--format", "json").output)["rows"]
    scopes = {(r["scope"], r["group"]): r for r in rows}
    assert {g for s, g in scopes if s == "category"} == {c for _, _, c, _ in ITEMS}
    assert {g for s, g in scopes if s == "task"} == {t for _, t, _, _ in ITEMS}
    acf = scopes[("task", "arrow_chain_following")]
    assert acf["n"] == 3 and acf["accuracy"] == pytest.approx([2 / 3, 2 / 3])
    assert acf["vs_first"][1]["discordant"] == 2


def test_table_says_plainly_what_is_not_significant(pair):
    result = compare(*pair)
    assert result.exit_code == 0
    out = result.output
    assert "B vs A: +25.0 pts" in out and "exact McNemar p = 0.625 on 4 discordant items" in out
    assert "not significant at α=0.05" in out
    assert "no difference there can be significant" in out  # tiny groups: say they cannot show anything
    assert "Holm-adjusted for the number of groups (p Holm): none stays significant" in out
    assert "cost median" in out and "cost total" in out and "tool calls median" in out


def test_real_bank_sized_runs_report_task_level_limits(tmp_path):
    items = bank_items()
    a = make_run(tmp_path, "a", items=items, p_correct=0.3, seed=1, sandboxes=False)
    b = make_run(tmp_path, "b", items=items, p_correct=0.7, seed=2, sandboxes=False)
    data = build([load_run(a), load_run(b)], n_resamples=2000).to_json()
    assert data["shared"] == len(items)
    if len(items) == 85:
        assert any("at most 5 items" in v and "0.0625" in v for v in data["verdicts"])


def test_identical_runs(tmp_path):
    a = make_run(tmp_path, "a", outcomes={i: i in A_RIGHT for i in IDS})
    stat = json.loads(compare(a, a, "--format", "json").output)["rows"][0]["vs_first"][1]
    assert (stat["p_value"], stat["diff"], stat["discordant"], stat["ci_low"], stat["ci_high"]) == (
        1.0,
        0.0,
        0,
        0.0,
        0.0,
    )
    assert "agree on every shared item" in compare(a, a).output


def test_different_item_sets_compare_shared_items_and_name_the_missing(tmp_path):
    a = make_run(tmp_path, "a", outcomes={i: True for i in IDS})
    b = make_run(tmp_path, "b", items=ITEMS[2:], outcomes={i: False for i in IDS})
    data = json.loads(compare(a, b, "--format", "json").output)
    assert data["shared"] == 6 and data["rows"][0]["n"] == 6
    assert any("B lacks 2 item(s)" in n and "ACF-0, ACF-1" in n for n in data["notes"])
    assert any("6 items every run has" in n for n in data["notes"])


def test_different_hashes_refused_unless_forced(tmp_path):
    a = make_run(tmp_path, "a", dataset_hash="data-1111")
    b = make_run(tmp_path, "b", dataset_hash="data-2222")
    refused = compare(a, b)
    assert refused.exit_code == 2
    assert "dataset_hash" in refused.output and "data-1111" in refused.output and "data-2222" in refused.output
    assert "--force" in refused.output
    forced = compare(a, b, "--force", "--format", "json")
    assert forced.exit_code == 0
    assert any("differ in dataset_hash" in n for n in json.loads(forced.output)["notes"])
    c = make_run(tmp_path, "c", scorer_hash="scorer-bbbb")
    assert "scorer_hash" in compare(a, c).output


def test_benchmark_no_tool_results_are_accepted_with_a_note(pair, tmp_path):
    cot = make_cot_results(tmp_path, "api-cot", outcomes={i: i in {"ACF-0"} for i in IDS})
    result = compare(cot, pair[1], "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["rows"][0]["accuracy"] == [1 / 8, 0.75]
    assert any("A (api-cot) has unknown scorer_hash and dataset_hash (no run.json)" in n for n in data["notes"])
    assert data["runs"][0]["efficiency"]["cost_usd"]["unknown"] == 8


def test_repeats_are_paired_on_mean_correctness(tmp_path):
    a = make_run(tmp_path, "a", outcomes={i: True for i in IDS})
    b = make_run(tmp_path, "b", repeats=3, outcomes={i: [True, False, False] for i in IDS})
    scores, most = item_scores(load_run(b).records)
    assert most == 3 and scores["ACF-0"] == pytest.approx(1 / 3)
    data = json.loads(compare(a, b, "--format", "json").output)
    assert any("B has repeats (up to 3 per item)" in n and "mean correctness" in n for n in data["notes"])
    stat = data["rows"][0]["vs_first"][1]
    assert stat["diff"] == pytest.approx(-2 / 3) and stat["a_only"] == 8


def test_markdown_and_csv_formats(pair):
    md = compare(*pair, "--format", "markdown").output
    assert "| scope | group | n | A | B |" in md and "| overall | all | 8 | 50.0% | 75.0% |" in md
    rows = list(csv.DictReader(io.StringIO(compare(*pair, "--format", "csv").output)))
    groups = 1 + len({c for *_, c, _ in ITEMS}) + len({t for _, t, *_ in ITEMS})
    assert len(rows) == 2 * groups
    overall_b = next(r for r in rows if r["scope"] == "overall" and r["run"] == "B")
    assert float(overall_b["accuracy"]) == 0.75 and float(overall_b["p_value"]) == pytest.approx(0.625)
    assert float(overall_b["cost_usd_total"]) > 0


def test_plot_places_known_costs_and_notes_unknown(pair, tmp_path):
    from agent_eval.reading.plots import accuracy_cost_plot

    cot = make_cot_results(tmp_path, "cot")
    out = tmp_path / "acc_cost.png"
    result = compare(pair[0], pair[1], cot, "--plot", out)
    assert result.exit_code == 0
    with Image.open(out) as img:
        assert img.size[0] > 600 and len(img.convert("L").getcolors(1 << 16)) > 20
    data = build([load_run(p) for p in (*pair, cot)], n_resamples=100)
    placed, unknown = accuracy_cost_plot(data, tmp_path / "again.png")
    assert placed == ["A", "B"] and len(unknown) == 1 and "C: cot (config unknown)" in unknown[0]


def test_usage_errors(pair, tmp_path):
    assert compare(pair[0]).exit_code == 2
    assert compare(pair[0], tmp_path / "missing").exit_code == 2


# -- active observation -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def active(tmp_path_factory):
    from support.runfixtures import make_active_pair

    return make_active_pair(tmp_path_factory.mktemp("active"))


def test_active_compare_reports_four_rates_per_family_and_tests_answer_and_combined(active):
    data_dir, observe, none, ids = active
    data = json.loads(compare(none, observe, "--format", "json").output)
    assert data["benchmark"] == "activeobs"
    rows = {(r["scope"], r["group"]): r for r in data["active"]["rows"]}
    assert set(rows) == {
        ("overall", "all"),
        *(("family", f) for f in ("unique_anchor", "action_boundary", "chain", "frame_viewpoint", "numeric")),
    }
    overall = rows[("overall", "all")]
    # the passive run answers wrong everywhere but points at the right person; the observe run has
    # one item right, one hallucinated, one wrong with good evidence, one no answer, one timeout
    assert overall["n"] == 5
    assert overall["answer"] == [0.0, 0.4] and overall["evidence"] == [1.0, 0.4] and overall["combined"] == [0.0, 0.2]
    assert overall["hallucination"] == [None, 0.5]
    answer, combined = overall["answer_vs_first"][1], overall["combined_vs_first"][1]
    assert (answer["a_only"], answer["b_only"]) == (0, 2) and answer["p_value"] == pytest.approx(mcnemar_exact(0, 2))
    assert (combined["a_only"], combined["b_only"]) == (0, 1) and combined["p_value"] == 1.0
    assert combined["diff"] == pytest.approx(0.2) and combined["ci_low"] <= 0.2 <= combined["ci_high"]
    assert answer["ci_low"] <= 0.4 <= answer["ci_high"]
    family = load_run(observe).find(ids["hallucinated"]).category
    hallucinated = rows[("family", family)]
    assert (
        hallucinated["answer"] == [0.0, 1.0]
        and hallucinated["combined"] == [0.0, 0.0]
        and hallucinated["hallucination"][1] == 1.0
    )
    assert any(v.startswith("B vs A, answer: +40.0 pts") for v in data["verdicts"])
    assert any(v.startswith("B vs A, combined (answer and evidence): +20.0 pts") for v in data["verdicts"])


def test_active_compare_table_markdown_and_csv(active):
    data_dir, observe, none, ids = active
    table = compare(none, observe).output
    assert "answer, evidence, combined and hallucination on 5 shared items" in table
    assert "B vs A, answer:" in table and "B vs A, combined (answer and evidence):" in table
    assert "hallucination" in table and "no paired test" in table
    md = compare(none, observe, "--format", "markdown").output
    assert "| scope | group | n | run | answer | evidence | combined | hallucination |" in md
    assert "| overall | all | 5 | B | 40.0% | 40.0% | 20.0% | 50.0% |" in md
    assert "| overall | all | 5 | B:A | +40.0 [" in md and "p combined (disc.)" in md
    rows = list(csv.DictReader(io.StringIO(compare(none, observe, "--format", "csv").output)))
    assert len(rows) == 2 * (1 + 5)
    b = next(r for r in rows if r["scope"] == "overall" and r["run"] == "B")
    assert float(b["hallucination_rate"]) == 0.5 and float(b["combined_acc"]) == pytest.approx(0.2)
    assert float(b["answer_p_value"]) == pytest.approx(0.5) and float(b["combined_p_value"]) == 1.0
    assert float(b["cost_usd_total"]) == pytest.approx(0.1)


def test_active_plot_shows_answer_and_combined(active, tmp_path):
    from agent_eval.reading.plots import accuracy_cost_plot

    data_dir, observe, none, ids = active
    data = build([load_run(none), load_run(observe)], n_resamples=100)
    placed, unknown = accuracy_cost_plot(data, tmp_path / "plot.png")
    assert placed == ["A", "B"] and not unknown
    with Image.open(tmp_path / "plot.png") as img:
        assert img.size[0] > 600


def test_runs_of_different_benchmarks_are_refused(active, tmp_path):
    data_dir, observe, none, ids = active
    still = make_run(tmp_path, "activevision-python", outcomes={i: True for i in IDS})
    result = compare(still, observe)
    assert result.exit_code == 2
    assert "different benchmarks" in result.output and "A (activevision-python) is activevision" in result.output
    assert "B (claude-observe) is activeobs" in result.output and len(result.output.strip().splitlines()) == 1


def test_items_a_spend_cap_stopped_are_left_out_of_the_pairs_and_named(tmp_path):
    outcomes = {i: i in A_RIGHT for i in IDS} | {"ACF-1": "budget_exceeded"}
    a = make_run(tmp_path, "capped", tools="none", outcomes=outcomes, sandboxes=False)
    b = make_run(tmp_path, "python", outcomes={i: i in B_RIGHT for i in IDS}, sandboxes=False)
    data = build([load_run(a), load_run(b)]).to_json()
    assert data["rows"][0]["n"] == len(IDS) - 1  # not graded: neither right nor wrong, not paired
    assert any("1 item(s) stopped by a spend cap (budget_exceeded)" in n and "ACF-1" in n for n in data["notes"])
    summary = json.loads((a / "rollup.json").read_text())["overall"]
    assert summary["budget_exceeded"] == 1 and summary["n"] == len(IDS) - 1
