"""A sweep file takes every option of `run` (the kinds' own included) and passes each to every cell; `sweep --plan`
projects tokens, dollars and hours from what the out-dir measured (never a guess), and a sweep projected past its
spend cap does not start unless told to."""

from __future__ import annotations

import math
import statistics
import textwrap
from pathlib import Path

import click
import pytest
import yaml
from click.testing import CliRunner
from rich.console import Console
from scipy.stats import t

from agent_eval.commands.options import run_options, sweep_options
from agent_eval.commands.sweep import command as sweep_command
from agent_eval.datamodel.manifest import RunIdentity, RunManifest
from agent_eval.datamodel.pricing import price_request
from agent_eval.datamodel.records import ItemRecord, Usage
from agent_eval.datamodel.results import RunStore
from agent_eval.engine.sweep_plan import plan_notes, plan_sweep, plan_table
from agent_eval.engine.sweeps import (
    NOT_IN_A_SWEEP,
    RUNNER_ARGS,
    SWEEP_KEYS,
    SweepError,
    cell_name,
    load_sweep,
    pilot_items,
)
from support.arcgames import write_game

GRID = {"grid": [{"agent": "codex", "models": ["gpt-5.5"]}], "tools": ["none"]}


def _write(tmp_path, settings: dict, name="s.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump({**GRID, **settings}, sort_keys=False))
    return path


def _other_than_default(param: click.Option):
    """A value run would take for this option, other than its default."""
    if param.is_flag:
        return True
    if isinstance(param.type, click.Choice):
        return next(c for c in param.type.choices if c != param.default)
    if isinstance(param.type, click.types.IntParamType):
        return 3 if param.default != 3 else 4
    if isinstance(param.type, click.types.FloatParamType):
        return 2.5
    return "x"


def test_every_run_option_is_a_sweep_key_that_reaches_every_cell(tmp_path):
    params = {p.name: p for p in click.command()(run_options(lambda **_: None)).params}
    axes = {"agent", "model", "effort", "tools"}
    keys = [o for o in sweep_options() if o.name not in NOT_IN_A_SWEEP and o.name not in axes]
    assert {o.name for o in keys} >= {"timeout_s", "retry_wait", "judge_model", "max_actions", "observation", "notes"}
    assert {o.name for o in sweep_options()} == set(params)  # derived from run's own options, none left out
    values = {o.key: _other_than_default(params[o.name]) for o in keys}
    values["system_prompt"] = str(tmp_path / "task-prompt.md")  # a file that exists (its absolute path, as given)
    Path(values["system_prompt"]).write_text("A task prompt.\n")
    values["data"] = str(write_game(tmp_path / "games", "ab12").parent.parent)  # a kind whose profile is named
    sweep = load_sweep(_write(tmp_path, values), sweep_options())
    (cell,) = sweep.cells()
    args = sweep.run_args(cell)
    for option in keys:
        value = values[option.key]
        if option.name in ("tasks", "ids", "categories", "limit"):
            assert sweep.selection[option.name] == value
        elif option.name in ("data", "out_dir"):
            assert str(getattr(sweep, option.name)) == value
        else:  # on the cell's `agent-eval run` command line (slurm submit) and in what runs locally
            shown = f"{value:g}" if isinstance(value, float) else str(value)
            assert (option.flag in args) if option.is_flag else (args[args.index(option.flag) + 1] == shown)
            if option.name in RUNNER_ARGS:
                assert sweep.runner_args()[RUNNER_ARGS[option.name]] == value
            else:
                assert {**vars(cell), **(cell.kind_options or {})}[option.name] == value, option.name


def test_unknown_refused_and_bad_keys_name_file_line_and_the_allowed_ones(tmp_path):
    path = _write(tmp_path, {"timeout": 60, "colour": "blue"})
    with pytest.raises(SweepError) as error:
        load_sweep(path, sweep_options())
    message = str(error.value)
    assert message.startswith(f"{path}:8: unknown key 'colour'")
    assert all(key in message for key in (*SWEEP_KEYS, "max_actions", "world_model", "judge_model", "retry_wait"))
    with pytest.raises(SweepError, match=r"s.yaml:7: 'model' is not a sweep key: a sweep's models are its grid"):
        load_sweep(_write(tmp_path, {"model": "x"}), sweep_options())
    with pytest.raises(SweepError, match=r"s.yaml:7: max_actions: 'many' is not a valid integer"):
        load_sweep(_write(tmp_path, {"max_actions": "many"}), sweep_options())
    with pytest.raises(SweepError, match=r"s.yaml:7: sandbox: 'docker' is not one of"):
        load_sweep(_write(tmp_path, {"sandbox": "docker"}), sweep_options())
    with pytest.raises(SweepError, match=r"s.yaml:7: protocol: 'paper' is not one of 'vista', 'official'"):
        load_sweep(_write(tmp_path, {"protocol": "paper"}), sweep_options())


def test_kind_options_at_the_top_go_to_every_cell_and_an_axis_entry_wins(tmp_path):
    settings = {"max_actions": 40, "notes": True, "kind_options": [{}, {"max_actions": 80}]}
    sweep = load_sweep(_write(tmp_path, settings), sweep_options())
    assert [c.kind_options for c in sweep.cells()] == [
        {"max_actions": 40, "notes": "on"},
        {"max_actions": 80, "notes": "on"},
    ]
    assert cell_name(sweep.cells()[1]) == "codex-gpt-5.5-default-none-notes-on-max_actions-80"


def test_a_pilot_takes_items_spread_over_the_selection():
    assert pilot_items(list(range(10)), 3) == [0, 3, 6] and pilot_items([1, 2], 5) == [1, 2]


def _run(root, agent, model, tools, effort, records):
    store = RunStore(root)
    identity = RunIdentity(agent=agent, model=model, tools=tools, effort=effort, benchmark="activevision")
    store.write_manifest(RunManifest(run_name=root.name, config=identity))
    for record in records:
        store.append(record)


def _record(item, tokens_in, tokens_out, seconds, repeat=0):
    return ItemRecord(
        id=item.id,
        task=item.task,
        category=item.category,
        ground_truth="3",
        status="ok",
        elapsed_s=seconds,
        usage=Usage(input_tokens=tokens_in, cached_input_tokens=0, output_tokens=tokens_out),
        cost_usd=0.5,
        num_turns=1,
        repeat=repeat,
    )


@pytest.fixture
def measured_sweep(sample_data, tmp_path):
    from agent_eval.benchmarks.activevision.loader import load_dataset

    items = load_dataset(sample_data).items[:4]
    path = tmp_path / "grid.yaml"
    path.write_text(
        textwrap.dedent(f"""\
        name: s
        data: {sample_data}
        ids: {",".join(i.id for i in items)}
        repeats: 2
        jobs: 2
        max_cost_usd: 1000
        out_dir: {tmp_path / "out"}
        grid:
          - agent: claude-code
            models: [claude-opus-4-8]
        tools: [none, python, image]
        """)
    )
    out = tmp_path / "out"
    cell = out / "s" / "claude-code-claude-opus-4-8-default-none"
    own = [_record(items[0], 1000, 200, 10), _record(items[1], 3000, 600, 30)]
    _run(cell, "claude-code", "claude-opus-4-8", "none", None, own)
    # another run in the out-dir, another effort: the same agent, model and mode
    other = [_record(items[0], 5000, 1000, 60)]
    _run(out / "older", "claude-code", "claude-opus-4-8", "python", "high", other)
    return path


def test_plan_projects_from_the_cells_own_items_and_from_runs_of_the_same_model_and_mode(measured_sweep):
    sweep = load_sweep(measured_sweep, sweep_options())
    plan = plan_sweep(sweep, Console(file=open("/dev/null", "w")), environ={"HOME": "/nonexistent"})
    none, python, image = plan.cells
    assert (none.runs, none.done, none.to_run) == (8, 2, 6)
    tokens = [1200.0, 3600.0]
    half = t.ppf(0.975, 1) * statistics.stdev(tokens) / math.sqrt(2)
    projected = none.projected("tokens")
    assert projected.mean == pytest.approx(6 * 2400) and projected.high == pytest.approx(6 * (2400 + half))
    assert projected.low == 0  # clipped: a cost is never negative
    usd = [
        price_request("anthropic", "claude-opus-4-8", {"input_tokens": i, "output_tokens": o}).usd
        for i, o in ((1000, 200), (3000, 600))
    ]
    assert none.projected("usd").mean == pytest.approx(6 * sum(usd) / 2) and none.spent_usd == 1.0
    assert none.projected("seconds").mean == pytest.approx(6 * 20)
    assert none.measured.basis == "this cell" and python.measured.basis == "same model and mode"
    assert python.projected("tokens").mean == 8 * 6000 and python.projected("tokens").low is None  # n=1
    assert image.measured is None and image.projected("usd") is None and plan.total("usd") is None
    assert "no measurement" in image.missing[0] and any("credential for claude-code" in m for m in image.missing)
    console = Console(width=80, record=True, file=open("/dev/null", "w"))
    console.print(plan_table(plan))
    text = console.export_text()
    assert max(map(len, text.splitlines())) <= 80 and "…" not in text
    rows = {line.split()[0]: line for line in text.splitlines() if line[:4].strip().isdigit()}
    hours = f"{6 * 20 / 2 / 3600:.2g}"  # at --jobs 2: the cell's 6 runs x 20 s over 2 slots
    assert rows["1"].split()[-5:] == ["6/8", "14.4k", f"${6 * sum(usd) / 2:.2g}", hours, "cell"] and "n=2" in text
    assert rows["2"].split()[-4] == "48k" and rows["2"].split()[-1] == "mode" and "n=1" in text
    assert rows["3"].split()[-4:] == ["?", "?", "?", "-"]
    notes = "\n".join(plan_notes(plan))
    assert "cell 3: no measurement" in notes and "cells 1-3: a credential for claude-code" in notes


def test_a_sweep_projected_past_its_cap_does_not_start(measured_sweep, tmp_path):
    before = sorted(p.name for p in (tmp_path / "out" / "s").iterdir())
    refused = CliRunner().invoke(sweep_command, [str(measured_sweep), "--max-cost-usd", "0.01"], env={"COLUMNS": "80"})
    assert refused.exit_code == 2, refused.output
    assert "projected past the spend cap of $0.01 per cell" in refused.output and "--over-budget-ok" in refused.output
    assert "cell 1: projected" in refused.output and "over its cap $0.01" in refused.output
    assert sorted(p.name for p in (tmp_path / "out" / "s").iterdir()) == before  # nothing ran
    planned = CliRunner().invoke(sweep_command, [str(measured_sweep), "--plan", "--max-cost-usd", "0.01"])
    assert planned.exit_code == 0 and "over its cap" in planned.output


def test_slurm_submit_refuses_a_sweep_projected_past_its_cap_unless_told(measured_sweep, tmp_path):
    from agent_eval.cli import main

    capped = tmp_path / "capped.yaml"
    capped.write_text(measured_sweep.read_text().replace("max_cost_usd: 1000", "max_cost_usd: 0.01"))
    env = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_API_KEY": "k"}
    args = ["slurm", "submit", "--no-submit", "--sweep", str(capped), "--shards", "2"]
    refused = CliRunner().invoke(main, args, env=env)
    assert refused.exit_code == 2 and "projected past the spend cap of $0.01 per cell" in refused.output
    assert not (tmp_path / "out" / "s.slurm").exists()
    told = CliRunner().invoke(main, [*args, "--over-budget-ok"], env=env)
    assert told.exit_code == 0, told.output
    assert (tmp_path / "out" / "s.slurm" / "array.sbatch").is_file()


def test_a_cell_is_priced_with_the_cached_share_its_pilot_measured_at_the_gateway(sample_data, tmp_path):
    """A pilot's items carry the gateway's split of their input (read from the prompt cache, written, fresh): the
    plan prices that split, not the input as if it were all fresh, and says the share read from the cache."""
    from agent_eval.benchmarks.activevision.loader import load_dataset

    item = load_dataset(sample_data).items[0]
    path = tmp_path / "grid.yaml"
    grid = "grid:\n  - agent: claude-code\n    models: [claude-opus-4-8]\n"
    path.write_text(f"name: s\ndata: {sample_data}\nrepeats: 1\nout_dir: {tmp_path / 'out'}\ntools: [none]\n{grid}")
    record = _record(item, 100_000, 1_000, 30)
    record.num_turns = 10  # ten requests, each 8,000 read + 1,500 written + 500 fresh on average
    record.gateway = {"cache": {"read_tokens": 80_000, "write_tokens": 15_000, "fresh_tokens": 5_000, "usd": None}}
    _run(tmp_path / "out" / "s" / "claude-code-claude-opus-4-8-default-none", "claude-code", "claude-opus-4-8",
         "none", None, [record])  # fmt: skip
    plan = plan_sweep(load_sweep(path, sweep_options()), Console(file=open("/dev/null", "w")), environ={})
    (cell,) = plan.cells
    request = {
        "input_tokens": 500,
        "cache_read_input_tokens": 8_000,
        "cache_creation_input_tokens": 1_500,
        "output_tokens": 100,
    }
    per_item = 10 * price_request("anthropic", "claude-opus-4-8", request).usd
    all_fresh = price_request("anthropic", "claude-opus-4-8", {"input_tokens": 100_000, "output_tokens": 1_000}).usd
    assert cell.measured.usd.mean == pytest.approx(per_item) and per_item < all_fresh / 2
    assert cell.measured.cached == pytest.approx(0.8)
    console = Console(width=80, record=True, file=open("/dev/null", "w"))
    console.print(plan_table(plan))
    assert "80% cached" in console.export_text()
    assert any("prompt cache" in line for line in plan_notes(plan))
