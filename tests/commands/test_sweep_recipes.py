"""Every recipe under sweeps/ plans offline: no keys, no data, no network; it still prints its whole grid in 80
columns and says per cell what is missing (the data, a credential, a measurement to project from)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_eval.commands.options import sweep_options
from agent_eval.commands.sweep import command as sweep_command
from agent_eval.engine.sweeps import load_sweep

RECIPES = sorted((Path(__file__).resolve().parents[2] / "sweeps").glob("*.yaml"))
KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_BASE_URL")
KEYS += ("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL", "AGENT_EVAL_PRICING")


def test_the_studies_are_shipped_as_recipes():
    names = {path.stem for path in RECIPES}
    assert {"activevision-tool-use", "babyvision-vista", "arcgames-ladder", "activeobs-world-model"} <= names
    for path in RECIPES:  # each says what it reproduces and what it needs
        head = path.read_text().split("\nname:")[0]
        assert head.startswith("#") and ("Needs:" in head or "sample tasks" in head), path.name


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda p: p.stem)
def test_a_recipe_plans_offline_with_no_keys_and_no_data(recipe, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./data here
    env = {key: None for key in KEYS} | {"HOME": str(tmp_path), "COLUMNS": "80"}
    result = CliRunner().invoke(sweep_command, [str(recipe), "--plan"], env=env)
    assert result.exit_code == 0, result.output
    cells = load_sweep(recipe, sweep_options()).cells()
    lines = result.output.splitlines()
    assert max(map(len, lines)) <= 80 and "…" not in result.output
    assert f"{len(cells)} cells x" in result.output
    numbered = [line.split()[0] for line in lines if line[:4].strip().isdigit()]
    assert numbered == [str(i) for i in range(1, len(cells) + 1)]  # every cell has its row
    assert f"cells 1-{len(cells)}: no measurement" in result.output
    for agent in {cell.agent for cell in cells}:
        assert f"a credential for {agent}" in result.output
    if "\ndata:" in recipe.read_text():
        assert "data: dataset directory" in result.output  # said once, for every cell
