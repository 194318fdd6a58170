"""`run --profile NAME`: a kind's named configuration. Every option it names is one of `run`'s own (so each value is
what a user could give, and checked as run checks it), `run --help` writes every profile out in full, an option on
the command line wins over the profile's, and a profile of another kind than the data's is refused."""

import click
import pytest
from click.testing import CliRunner

from agent_eval.benchmarks import registry
from agent_eval.commands.options import run_options
from agent_eval.commands.run import command as run_command

PROFILES = registry.profiles()


def parsed(*argv: str) -> dict:
    """What `run` would be called with (its options only: nothing runs)."""
    seen: dict = {}

    @click.command()
    @run_options
    def probe(**given):
        seen.update(given)

    result = CliRunner().invoke(probe, ["--agent", "codex", "--model", "gpt-5.5", *argv], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return seen


def test_vista_is_a_profile_of_the_games_and_names_only_run_options():
    assert PROFILES["vista"].kind == "arcgames"
    names = set(parsed())
    for profile in PROFILES.values():
        assert set(profile.options) <= names, set(profile.options) - names


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_a_profile_sets_each_of_its_options_each_checked_as_run_checks_it(name):
    given = parsed("--profile", name)
    for option, value in PROFILES[name].options.items():
        assert given[option] == value or str(given[option]) == str(value), option
    assert given["profile"] == name


def test_the_command_line_wins_over_the_profile():
    given = parsed("--profile", "vista", "--tools", "python", "--frame-scale", "4")
    assert given["tools"] == "python" and given["frame_scale"] == 4 and given["game_tools"] == "vista"
    assert parsed()["tools"] == "python" and parsed()["game_tools"] is None  # no profile: the usual defaults


def test_run_help_writes_each_profile_out_in_full():
    text = " ".join(CliRunner().invoke(run_command, ["--help"], terminal_width=400).output.split())
    for profile in PROFILES.values():
        assert f"{profile.name} ({profile.about}" in text
    assert "--tools image" in text and "--game-tools vista" in text and "--frame-scale 8" in text
    assert "prompts/arcgames/vista-system.md" in text
    assert "--timeout 2000000 " in text and "--silent-minutes 120." in text  # whole numbers written whole


def test_a_profile_of_another_kind_is_refused(sample_data, tmp_path):
    result = CliRunner().invoke(
        run_command,
        ["--agent", "codex", "--model", "gpt-5.5", "--data", str(sample_data), "--profile", "vista",
         "--out-dir", str(tmp_path), "--unpriced"],
    )  # fmt: skip
    assert result.exit_code == 2 and "--profile vista is a configuration of arcgames items" in result.output
