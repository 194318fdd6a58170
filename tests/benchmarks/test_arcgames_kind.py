"""The kind's registry line and what it adds to the shared run path: its own run options (recorded, refused
for another kind), sample-data, detection, and a mode-none run whose play calls are no broken ablation."""

from click.testing import CliRunner

from agent_eval.benchmarks import load_benchmark, registry
from agent_eval.benchmarks.arcgames.benchmark import ArcGames
from agent_eval.benchmarks.arcgames.games import WINNING
from agent_eval.commands.run import command as run_command
from agent_eval.commands.sample_data import command as sample_data_command


def test_kind_options_fill_defaults_and_belong_to_their_kind():
    # the episode's protocol is always recorded: runs made before it existed measured another one (no first frame,
    # blind batches, early stops graded), so they are not resumed as if they had
    protocol = {"initial_frame": "on", "action_batches": "off", "early_stop": "continue", "recoveries": 5}
    assert registry.options_of("arcgames", {"max_actions": 7}) == {"max_actions": 7, "frame_scale": 4, **protocol}
    assert registry.options_of("activevision", {"max_actions": 7}) is None  # its identity reads as before
    assert registry.foreign_options("activevision", {"max_actions": 7, "frame_scale": None}) == ["--max-actions"]
    assert registry.foreign_options("arcgames", {"max_actions": 7}) == []


def test_run_refuses_a_game_option_for_another_kind(sample_data, tmp_path):
    result = CliRunner().invoke(
        run_command,
        [
            "--agent",
            "codex",
            "--model",
            "gpt-5.5",
            "--data",
            str(sample_data),
            "--max-actions",
            "5",
            "--out-dir",
            str(tmp_path),
            "--unpriced",
        ],
    )
    assert result.exit_code == 2 and "--max-actions do(es) nothing for activevision items" in result.output


def test_sample_data_writes_the_projects_games_in_the_toolkits_layout(tmp_path):
    out = tmp_path / "games"
    result = CliRunner().invoke(sample_data_command, [str(out), "--kind", "arcgames"])
    assert result.exit_code == 0, result.output
    benchmark, dataset = load_benchmark(out)
    assert benchmark.name == "arcgames"
    assert {f"{i.id}-{i.version}" for i in dataset.items} == set(WINNING)
    assert all(i.baseline_actions for i in dataset.items)


def test_configure_refuses_bad_values():
    games = ArcGames()
    games.configure({"max_actions": 12, "frame_scale": 2})
    assert (games.max_actions, games.frame_scale) == (12, 2)
    for bad in ({"max_actions": 0}, {"frame_scale": 40}):
        try:
            ArcGames().configure(bad)
        except ValueError as error:
            assert "must be" in str(error)
        else:
            raise AssertionError(f"{bad} was accepted")
