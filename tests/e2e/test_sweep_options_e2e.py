"""sweeps/sample-grid.yaml as a user runs it (both real CLIs, every tool mode, the scripted model), on the project's
own ARC-AGI-3 game, from a copy that sets kinds' own options (--max-actions, --observation) and run's (retry_wait,
repeats): a pilot of one item per cell, its projection, then the sweep resuming the pilot; every cell's game kept
the sweep's action bound."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agent_eval.agents.registry import scripted_environ
from agent_eval.datamodel.results import RunStore
from agent_eval.scripted import ScriptedServer
from support.clirun import invoke

pytestmark = pytest.mark.e2e

SAMPLE_GRID = Path(__file__).resolve().parents[2] / "sweeps" / "sample-grid.yaml"
MAX_ACTIONS = 2  # RESET counts: the third play is refused by the game's bound
TURNS = [{"call": "play", "input": {"action": a}} for a in ("RESET", "ACTION1", "ACTION2")] + [
    {"final": "<answer>DONE</answer>"}
]


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    from agent_eval.benchmarks.registry import get_benchmark

    root = tmp_path_factory.mktemp("games") / "environment_files"
    get_benchmark("arcgames").write_samples(root, seed=0, per_task=1, difficulty="")
    return root


def sample_grid_with_kind_options(tmp_path: Path, games: Path, **extra) -> Path:
    """The shipped sample grid, pointed at the games and given kinds' and run's options."""
    settings = yaml.safe_load(SAMPLE_GRID.read_text())
    settings.update(
        data=str(games),
        ids="ae02",
        repeats=2,
        out_dir=str(tmp_path / "out"),
        max_actions=MAX_ACTIONS,
        observation="text",
        retry_wait=1,
        jobs=2,  # games starting at once on a loaded machine: kept few
        **extra,
    )
    path = tmp_path / "sample-grid.yaml"
    path.write_text(yaml.safe_dump(settings, sort_keys=False))
    return path


def assert_cells_kept_the_options(root: Path, repeats: int) -> None:
    cells = sorted(p for p in root.iterdir() if (p / "run.json").is_file())
    assert len(cells) == 6, [c.name for c in cells]  # 2 agents x 3 tool modes
    for cell in cells:
        store = RunStore(cell)
        options = store.read_manifest().config.kind_options
        assert options["max_actions"] == MAX_ACTIONS and options["observation"] == "text", (cell.name, options)
        records = store.records()
        assert sorted(r.repeat for r in records) == list(range(repeats)), cell.name
        for record in records:
            assert record.status == "ok", (cell.name, record.status, record.error)
            metrics = record.metrics
            assert metrics["max_actions"] == MAX_ACTIONS and metrics["plays"] == MAX_ACTIONS and metrics["budget_spent"]
            assert metrics["observations"]["images"] == 0 and metrics["observations"]["text_chars"] > 0  # as text


@pytest.mark.timeout(900)  # 12 games, two at a time
def test_sample_grid_with_kind_options_pilots_projects_and_resumes(games, tmp_path):
    path = sample_grid_with_kind_options(tmp_path, games)
    with ScriptedServer({"rules": [{"turns": TURNS}]}) as server:
        env = {**scripted_environ("claude-code", server.url), **scripted_environ("codex", server.url), "COLUMNS": "80"}
        pilot = invoke("sweep", path, "--plan", "--pilot", "1", env=env)
        assert pilot.exit_code == 0, pilot.output[-3000:]
        piloted = len(server.main_requests())
        assert "6 cells x 1 items x 2 repeat(s)" in pilot.output and "every cell: max_actions=2" in pilot.output
        assert pilot.output.count("n=1") == 6 and "no measurement" not in pilot.output  # each cell from its pilot
        assert_cells_kept_the_options(tmp_path / "out" / "sample-grid", repeats=1)
        full = invoke("sweep", path, env=env)
        assert full.exit_code == 0, full.output[-3000:]
        assert len(server.main_requests()) == 2 * piloted  # the pilot's items resumed, not run again
    assert_cells_kept_the_options(tmp_path / "out" / "sample-grid", repeats=2)
    assert (tmp_path / "out" / "sample-grid" / "compare.md").is_file()
