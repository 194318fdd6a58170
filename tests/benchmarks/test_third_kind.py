"""A third benchmark kind needs no edit outside its own package: the tally kind (tests/support/tally/)
plus one registry line appears in show, report and compare through its ReadingHooks alone."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from agent_eval.benchmarks import registry
from agent_eval.commands.compare import command as compare_command
from agent_eval.commands.report import command as report_command
from agent_eval.commands.show import command as show_command
from support.runfixtures import make_run

ITEMS = [
    ("T-0", "tally", "squares", "3"),
    ("T-1", "tally", "squares", "5"),
    ("T-2", "tally", "dots", "7"),
    ("T-3", "tally", "dots", "9"),
]


@pytest.fixture
def runs(tmp_path):
    """Two runs of tally items: A exact on T-0, T-2; B exact on T-1 (the wrong predictions are off by one)."""
    a = make_run(tmp_path, "a", items=ITEMS, outcomes={"T-0": True, "T-1": False, "T-2": True, "T-3": False})
    b = make_run(tmp_path, "b", items=ITEMS, outcomes={"T-0": False, "T-1": True, "T-2": False, "T-3": False})
    return a, b


@pytest.fixture
def registered(monkeypatch):
    """The one line a new kind adds to benchmarks/registry.py."""
    monkeypatch.setitem(registry.KINDS, "tally", registry.Kind("support.tally.benchmark:Tally", ("none",)))


def invoke(command, *args):
    result = CliRunner(env={"COLUMNS": "200"}).invoke(command, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_show_uses_the_kinds_columns_totals_and_item_lines(runs, registered):
    table = invoke(show_command, runs[0])
    assert "shape" in table and "close" in table and "squares" in table  # group column and mark
    assert "tally: " in table and "close rate" in table  # the kind's totals
    item = invoke(show_command, runs[0], "T-1")
    assert "tally notes: off by" in item and "tally close:" in item and "answer: prediction" in item


def test_compare_and_report_carry_the_kinds_sections(runs, registered, tmp_path):
    markdown = invoke(compare_command, *runs, "--format", "markdown")
    assert "Tally close rates:" in markdown and "exact accuracy" in markdown
    html_path = tmp_path / "report.html"
    invoke(report_command, *runs, "-o", html_path)
    html = html_path.read_text()
    assert "tally close rate" in html and ".tally-close { color: #8250df; }" in html  # its summary and stylesheet


def test_unregistered_the_same_runs_read_as_plain_accuracy(runs):
    """The control: without the registry line nothing of the kind shows, so the hooks did the work above."""
    table = invoke(show_command, runs[0])
    assert "shape" not in table and "tally:" not in table and "close rate" not in table and "accuracy 50.0%" in table
    markdown = invoke(compare_command, *runs, "--format", "markdown")
    assert "Tally close rates" not in markdown and "exact accuracy" not in markdown
    html_path = runs[0].parent / "plain.html"
    invoke(report_command, *runs, "-o", html_path)
    assert "tally-close" not in html_path.read_text()


def test_the_registry_states_each_kinds_tool_modes_as_the_kind_does():
    from agent_eval.benchmarks import ALL_TOOL_MODES, get_benchmark

    for name, kind in registry.KINDS.items():
        assert tuple(get_benchmark(name).tool_modes) == kind.tool_modes, name
    assert set(ALL_TOOL_MODES) == {m for kind in registry.KINDS.values() for m in kind.tool_modes}


def test_a_kinds_own_tools_are_counted_apart_even_when_registered_late(monkeypatch):
    """The registry line's tool names reach the tool-use tables whenever the kind is registered."""
    from agent_eval.reading.tool_use import tool_kind, tool_kinds

    assert tool_kind("mcp__tally__count") == "other" and "count" not in tool_kinds()
    monkeypatch.setitem(
        registry.KINDS, "tally", registry.Kind("support.tally.benchmark:Tally", ("none",), tool_names=("count",))
    )
    assert tool_kind("mcp__tally__count") == "count" and "count" in tool_kinds()
    assert tool_kind("mcp__imagetools__inspect") == "inspect" and tool_kind("Bash") == "shell"
