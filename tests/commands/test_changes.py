"""Unit tests for what compare adds item by item: Holm, the permutation test, repeats, tool use,
broken ablations, changed items in every format. Runs are built with runfixtures (no CLI)."""

import csv
import io
import itertools
import json

import pytest
from click.testing import CliRunner

from agent_eval.analysis.stats import holm, sign_flip_test
from agent_eval.commands.compare import command
from agent_eval.commands.show import command as show_command
from agent_eval.datamodel.records import ItemRecord
from agent_eval.datamodel.results import RunStore
from agent_eval.datamodel.transcript import Step, Transcript
from agent_eval.reading.comparison import build
from agent_eval.reading.repeats import pair_disagreement, repeat_summary
from agent_eval.reading.runs import load_run
from agent_eval.reading.tool_use import tool_kind
from support.runfixtures import ITEMS, bank_items, make_run

IDS = [i[0] for i in ITEMS]


def compare(*args):
    result = CliRunner().invoke(command, [str(a) for a in args], env={"COLUMNS": "220"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_holm_by_hand():
    # sorted: .005*4 = .02, .01*3 = .03, .03*2 = .06, .04*1 = .04 -> kept monotone at .06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.2, None, 0.9]) == [pytest.approx(0.4), None, pytest.approx(0.9)]
    assert holm([0.6, 0.7]) == [1.0, 1.0]


def test_sign_flip_test_is_exact_for_few_items_and_ignores_ties():
    a = [0, 0, 0, 0.5, 1, 1, 0.25]
    b = [1, 0.5, 1, 1, 0, 1, 0.25]  # the last two are ties: no weight under any flip
    diffs = [1, 0.5, 1, 0.5, -1]
    extreme = sum(
        abs(sum(s * d for s, d in zip(signs, diffs))) >= sum(diffs) - 1e-12
        for signs in itertools.product((1, -1), repeat=5)
    )
    result = sign_flip_test(a, b)
    assert result == {"p_value": pytest.approx(extreme / 32), "nonzero": 5, "exact": True}
    assert sign_flip_test([0, 1], [1, 1]) == {"p_value": 1.0, "nonzero": 1, "exact": True}
    big = sign_flip_test([0] * 40, [1] * 30 + [0] * 10, n_resamples=5000)
    assert not big["exact"] and big["p_value"] < 0.001


def test_pair_disagreement_and_repeat_summary():
    assert pair_disagreement(1, 3) == pytest.approx(2 / 3) and pair_disagreement(3, 3) == 0
    records = [
        ItemRecord(id=i, task="t", category="c", ground_truth="x", status="ok", correct=c, repeat=r)
        for i, outcomes in (("a", [1, 0, 0]), ("b", [1, 1, 1]), ("c", [0, 1, 0]), ("d", [0, 0, 0]))
        for r, c in enumerate(map(bool, outcomes))
    ]
    s = repeat_summary(records, {"a", "b", "c", "d"})
    assert s["flip_rate"] == pytest.approx((2 / 3 + 0 + 2 / 3 + 0) / 4) and s["items_that_flip"] == 2
    assert (s["majority_accuracy"], s["all_accuracy"], s["any_accuracy"]) == (0.25, 0.25, 0.75)
    assert repeat_summary(records[:1], {"a"}) is None


@pytest.mark.parametrize(
    "name,kind",
    [
        ("Read", "file_view"),
        ("view_image", "file_view"),
        ("Bash", "shell"),
        ("shell", "shell"),
        ("mcp__imagetools__inspect", "inspect"),
        ("mcp__imagetools__read_pixels", "read_pixels"),
        ("mcp__observe__observe", "observe"),
        ("mcp__imagetools__info", "other"),
        ("request_user_input", "other"),
    ],
)
def test_tool_kinds_of_both_clis(name, kind):
    assert tool_kind(name) == kind


def test_holm_takes_back_what_three_small_tasks_hand_out(tmp_path):
    """Three tasks of six items, B right and A wrong on all: each raw p = 2/64 < 0.05, Holm 3 × that."""
    items = [(f"T{t}-{i}", f"task{t}", f"cat{t}", "A") for t in range(3) for i in range(6)]
    a = make_run(tmp_path, "a", items=items, outcomes={i[0]: False for i in items}, sandboxes=False)
    b = make_run(tmp_path, "b", items=items, outcomes={i[0]: True for i in items}, sandboxes=False)
    data = build([load_run(a), load_run(b)], n_resamples=1000).to_json()
    tasks = [row["vs_first"][1] for row in data["rows"] if row["scope"] == "task"]
    assert all(s["p_value"] == pytest.approx(2 / 64) and s["significant"] for s in tasks)
    assert all(s["p_holm"] == pytest.approx(3 * 2 / 64) for s in tasks)
    assert data["rows"][0]["vs_first"][1].get("p_holm") is None  # overall is one test, not a family
    assert any("Holm-adjusted" in v and "none stays significant" in v for v in data["verdicts"])
    assert "permutation" not in data["rows"][0]["vs_first"][1]  # no repeats: the sign test is the exact test
    rows = list(csv.DictReader(io.StringIO(compare(a, b, "--format", "csv").output)))
    assert {r["p_holm"] for r in rows if r["scope"] == "task" and r["run"] == "B"} == {"0.09375"}


def test_changed_items_terminal_shows_ten_each_way_the_other_formats_all(tmp_path):
    items = bank_items(40)
    ids = [i[0] for i in items]
    a = make_run(tmp_path, "a", items=items, outcomes={i: n % 3 == 0 for n, i in enumerate(ids)}, sandboxes=False)
    b = make_run(tmp_path, "b", items=items, outcomes={i: n % 3 != 0 for n, i in enumerate(ids)}, sandboxes=False)
    only_a = [i for n, i in enumerate(ids) if n % 3 == 0]
    only_b = [i for n, i in enumerate(ids) if n % 3 != 0]
    table = compare(a, b).output
    assert f"B vs A: {len(only_b)} item(s) only B got right" in table and f"... and {len(only_b) - 10} more" in table
    assert f"B vs A: {len(only_a)} item(s) only A got right" in table and f"... and {len(only_a) - 10} more" in table
    data = json.loads(compare(a, b, "--format", "json").output)
    changed = data["changed"][0]
    assert sorted(e["id"] for e in changed["only_B"]) == sorted(only_b)
    assert sorted(e["id"] for e in changed["only_A"]) == sorted(only_a)
    first = changed["only_B"][0]
    assert first["runs"]["B"]["predictions"] == [first["truth"]] and first["runs"]["A"]["predictions"] != [
        first["truth"]
    ]
    md = compare(a, b, "--format", "markdown").output
    assert all(f"| {i} |" in md for i in ids)
    rows = list(csv.DictReader(io.StringIO(compare(a, b, "--format", "csv", "--table", "changed").output)))
    assert len(rows) == len(ids) and {r["only_right"] for r in rows} == {"A", "B"}


def _break_ablation(run_dir, item_id):
    """What a leak of tools into mode none leaves: a transcript with a tool call and a record counting it."""
    store = RunStore(run_dir)
    record = next(r for r in store.records() if r.id == item_id)
    item_dir = store.sandbox_dir(item_id)
    transcript = Transcript.load(item_dir / "steps.json")
    transcript.steps[:0] = [
        Step("tool_call", tool="view_image", call_id="c1", input={"path": "/etc/passwd"}),
        Step("tool_result", "not an image", call_id="c1", is_error=True),
    ]
    transcript.save(item_dir / "steps.json")
    record.tool_calls = 1
    store.append(record)


def test_a_mode_none_run_that_called_a_tool_is_a_broken_ablation_everywhere(tmp_path):
    a = make_run(tmp_path, "none", tools="none", outcomes={i: i == "ACF-0" for i in IDS})
    b = make_run(tmp_path, "python", tools="python", outcomes={i: True for i in IDS})
    _break_ablation(a, "BFC-1")
    data = json.loads(compare(a, b, "--format", "json").output)
    use = data["runs"][0]["tool_use"]
    assert (
        use["broken_ablation"] == ["BFC-1"]
        and use["items_with_tools"] == 1
        and use["by_kind"]["file_view"]["calls"] == 1
    )
    assert any(w.startswith("BROKEN ABLATION: mode none") for w in data["runs"][0]["loud_warnings"])
    assert any("A: BROKEN ABLATION" in v for v in data["verdicts"])
    table = compare(a, b).output
    assert "!! A: BROKEN ABLATION" in table and "none BROKEN" in table
    shown = CliRunner().invoke(show_command, [str(a)], terminal_width=200)
    assert "BROKEN ABLATION" in shown.output
    clean = json.loads(compare(b, a, "--format", "json").output)["runs"][0]
    assert clean["tool_use"]["broken_ablation"] == [] and clean["loud_warnings"] == []


def test_tool_use_from_transcripts_and_blind_answers(tmp_path):
    a = make_run(tmp_path, "none", tools="none", outcomes={i: False for i in IDS})
    b = make_run(tmp_path, "image", tools="image", outcomes={i: i != "CMC-0" for i in IDS})
    # CMC-0: the agent answered without calling anything: blind
    store = RunStore(b)
    item_dir = store.sandbox_dir("CMC-0")
    transcript = Transcript.load(item_dir / "steps.json")
    transcript.steps = transcript.steps[-1:]
    transcript.save(item_dir / "steps.json")
    record = next(r for r in store.records() if r.id == "CMC-0")
    record.tool_calls = 0
    store.append(record)
    use = json.loads(compare(a, b, "--format", "json").output)["runs"][1]["tool_use"]
    assert (use["items_with_tools"], use["calls"]) == (7, 14)
    assert use["by_kind"] == {"inspect": {"items": 7, "calls": 14}}
    assert use["accuracy_with_tools"] == 1.0 and use["accuracy_without_tools"] == 0.0
    assert use["answered_blind"] == 1 and use["blind_items"] == ["CMC-0"] and use["blind_accuracy"] == 0.0


def test_cost_per_right_answer_counts_unknown_cost_apart(tmp_path):
    a = make_run(tmp_path, "a", outcomes={i: i in {"ACF-0", "ACF-1"} for i in IDS}, cost_per_item=None, sandboxes=False)
    b = make_run(tmp_path, "b", outcomes={i: True for i in IDS}, sandboxes=False)
    runs = json.loads(compare(a, b, "--format", "json").output)["runs"]
    assert runs[0]["per_correct"]["cost_usd"] is None and runs[0]["per_correct"]["cost_usd_unknown"] == 8
    records = load_run(b).records
    assert runs[1]["per_correct"]["cost_usd"] == pytest.approx(sum(r.cost_usd for r in records) / 8)
    assert runs[0]["per_correct"]["elapsed_s"] == pytest.approx(sum(r.elapsed_s for r in load_run(a).records) / 2)


def test_plot_by_task_places_runs_with_known_cost_and_names_the_rest(tmp_path):
    from agent_eval.reading.plots import accuracy_cost_plot

    a = make_run(tmp_path, "a", outcomes={i: False for i in IDS}, cost_per_item=None, sandboxes=False)
    b = make_run(tmp_path, "b", outcomes={i: True for i in IDS}, sandboxes=False)
    data = build([load_run(a), load_run(b)], n_resamples=200)
    placed, unknown = accuracy_cost_plot(data, tmp_path / "tasks.png", by="task")
    assert placed == ["B"] and len(unknown) == 1 and unknown[0].startswith("A:")
    assert (tmp_path / "tasks.png").stat().st_size > 20000


def test_table_option_needs_csv(tmp_path):
    a = make_run(tmp_path, "a", outcomes={i: False for i in IDS}, sandboxes=False)
    b = make_run(tmp_path, "b", outcomes={i: True for i in IDS}, sandboxes=False)
    result = compare(a, b, "--table", "changed")
    assert result.exit_code == 2 and "add --format csv" in result.output
