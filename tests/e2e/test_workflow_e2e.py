"""Research workflow with the real CLIs on the scripted model: repeats, the cost cap, and a 2x3 sweep."""

import json
import textwrap

import pytest
from click.testing import CliRunner
from rich.console import Console

from agent_eval.agents.registry import scripted_environ
from agent_eval.commands.options import sweep_options
from agent_eval.commands.sweep import command as sweep_command
from agent_eval.datamodel.results import RunStore
from agent_eval.engine.sweep_plan import plan_sweep
from agent_eval.engine.sweeps import SweepError, load_sweep, run_sweep
from agent_eval.reading.grid import write_grid_comparison
from agent_eval.scripted import ScriptedServer
from support.agentrun import run_agent

pytestmark = pytest.mark.e2e

# Looks with whatever the mode offers (matched on the prompt template), then answers.
MODE_AWARE = {
    "rules": [
        {
            "match": "You also have a shell",
            "turns": [{"call": "shell", "input": {"command": "echo 3"}}, "<answer>{last_tool_output}</answer>"],
        },
        {"match": "You have no shell", "turns": [{"call": "info", "input": {}}, "<answer>3</answer>"]},
        {"turns": ["<answer>3</answer>"]},
    ]
}


def test_repeats_each_in_its_own_workdir_with_mean_and_std(sample_data, sample_truth, tmp_path):
    # Correct for CCC-0 on every repeat; correct for RC-0 only when the answer happens to match.
    truth = sample_truth["CCC-0"]["answer"]
    scenario = {"turns": [f"<answer>{truth}</answer>"]}
    with ScriptedServer(scenario) as server:
        outcome = run_agent("claude-code", "none", server, sample_data, tmp_path, ids="CCC-0,RC-0", repeats=3)
        assert len(server.main_requests()) == 6
        again = run_agent("claude-code", "none", server, sample_data, tmp_path, ids="CCC-0,RC-0", repeats=4)
        assert len(server.main_requests()) == 8  # resume per (item, repeat): only repeat 3 ran
    store = RunStore(outcome.store.root)
    records = store.records()
    assert sorted((r.id, r.repeat) for r in records) == sorted((i, k) for i in ("CCC-0", "RC-0") for k in range(4))
    sandboxes = sorted(p.name for p in (store.root / "sandboxes").iterdir() if p.is_dir())
    assert sandboxes == ["CCC-0", "CCC-0.r1", "CCC-0.r2", "CCC-0.r3", "RC-0", "RC-0.r1", "RC-0.r2", "RC-0.r3"]
    overall = again.rollup["overall"]
    expected = (1 + (truth == sample_truth["RC-0"]["answer"])) / 2
    assert overall["repeats"] == 4 and overall["accuracy_mean"] == pytest.approx(expected)
    assert overall["accuracy_std"] == pytest.approx(0.0)
    summary = json.loads((store.root / "connected_component_counting" / "summary.json").read_text())
    assert summary["items_fraction_correct"] == {"CCC-0": 1.0}


def test_cost_cap_stops_new_items_and_a_higher_cap_continues(sample_data, tmp_path):
    with ScriptedServer({"turns": ["<answer>3</answer>"]}) as server:
        first = run_agent("claude-code", "none", server, sample_data, tmp_path, jobs=1, max_cost_usd=0.004)
        records = first.store.records()
        costs = [r.cost_usd for r in sorted(records, key=lambda r: r.finished_at)]
        assert all(c and c > 0 for c in costs)  # Claude Code reports its cost
        # jobs=1: items start until the recorded cost reaches the cap, then no new one starts.
        assert sum(costs[:-1]) < 0.004 <= sum(costs) and 1 < len(records) < 6
        assert first.not_run_cost_cap == 6 - len(records)
        assert first.rollup["not_run"] == {"cost_cap": 6 - len(records), "max_cost_usd": 0.004}
        assert json.loads((first.store.root / "run.json").read_text())["finished_at"] is None
        second = run_agent("claude-code", "none", server, sample_data, tmp_path, jobs=1, max_cost_usd=1.0)
    assert len(second.store.records()) == 6 and second.not_run_cost_cap == 0 and second.skipped == len(records)


def test_unknown_cost_is_counted_not_zero(sample_data, tmp_path):
    # A model neither genai-prices nor $AGENT_EVAL_PRICING prices (allowed by --unpriced): cost null, never 0.
    with ScriptedServer({"turns": ["<answer>3</answer>"]}) as server:
        outcome = run_agent("codex", "none", server, sample_data, tmp_path, ids="CCC-0,RC-0", model="gpt-unpriced-9")
    records = outcome.store.records()
    assert all(r.cost_usd is None and r.gateway["cost"]["unpriced_requests"] >= 1 for r in records)
    assert all("no price for 'gpt-unpriced-9'" in " ".join(r.gateway["cost"]["notes"]) for r in records)
    assert outcome.rollup["overall"]["cost_usd"] is None and outcome.rollup["overall"]["cost_unknown"] == 2


def write_sweep(tmp_path, sample_data, body: str):
    path = tmp_path / "sweep.yaml"
    path.write_text(
        textwrap.dedent(f"""\
        name: grid
        data: {sample_data}
        ids: CCC-0,MPT-0
        out_dir: {tmp_path / "out"}
        unpriced: true
        jobs: 4
        """)
        + textwrap.dedent(body)
    )
    return path


GRID = """\
grid:
  - agent: claude-code
    models: [claude-opus-4-8]
  - agent: codex
    models: [gpt-5.5]
tools: [none, image, python]
"""


def test_two_by_three_sweep_plans_runs_resumes_and_compares(sample_data, tmp_path):
    path = write_sweep(tmp_path, sample_data, GRID)
    sweep = load_sweep(path, sweep_options())
    assert len(sweep.cells()) == 6
    plan = CliRunner().invoke(sweep_command, [str(path), "--plan"])
    assert plan.exit_code == 0 and "6 cells" in plan.output and "12" in plan.output
    console = Console(file=open("/dev/null", "w"))
    with ScriptedServer(MODE_AWARE) as server:
        environ = {**scripted_environ("claude-code", server.url), **scripted_environ("codex", server.url)}
        roots = run_sweep(sweep, console, environ=environ, scripted_model=True)
        # none: 1 request per item; image and python: 2 (a tool call, then the answer)
        assert len(server.main_requests()) == 2 * 2 * 1 + 2 * 2 * 2 * 2
        write_grid_comparison(roots, sweep.root, console)
        cells = plan_sweep(sweep, console).cells
        assert [(c.runs, c.done, c.to_run) for c in cells] == [(2, 2, 0)] * 6
        run_sweep(sweep, console, environ=environ, scripted_model=True)  # resumed: nothing left to run
        assert len(server.main_requests()) == 20
    for root in roots:
        records = RunStore(root).records()
        assert [r.status for r in records] == ["ok", "ok"] and all(r.prediction == "3" for r in records)
    assert sorted(r.name for r in roots) == sorted(
        f"{a}-{m}-default-{t}"
        for a, m in (("claude-code", "claude-opus-4-8"), ("codex", "gpt-5.5"))
        for t in ("none", "image", "python")
    )
    data = json.loads((sweep.root / "compare.json").read_text())
    assert len(data["runs"]) == 6
    assert (sweep.root / "compare.md").read_text().count("|") > 20
    assert (sweep.root / "accuracy-vs-cost.png").stat().st_size > 1000


@pytest.mark.parametrize(
    "body,message",
    [
        (GRID + "colour: blue\n", "sweep.yaml:13: unknown key 'colour'"),
        (
            GRID.replace("models: [gpt-5.5]", "models: [gpt-5.5]\n    efforts: [max]"),
            "sweep.yaml:12: effort(s) max not valid for codex",
        ),
        (GRID.replace("agent: codex", "agent: gemini"), "sweep.yaml:10: unknown agent 'gemini'"),
        (GRID.replace("[none, image, python]", "[none, video]"), "sweep.yaml:12: unknown tool mode(s) video"),
        (GRID.replace("    models: [claude-opus-4-8]", "    model: x"), "sweep.yaml:9: unknown grid key 'model'"),
    ],
)
def test_sweep_file_errors_name_the_line(sample_data, tmp_path, body, message):
    path = write_sweep(tmp_path, sample_data, body)
    with pytest.raises(SweepError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_sweep(path, sweep_options())
    result = CliRunner().invoke(sweep_command, [str(path), "--plan"])
    assert result.exit_code == 2 and message in result.output
