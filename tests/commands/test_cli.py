"""The command line as a user meets it: click's runner for options and errors, real subprocesses
for a run that is killed with SIGKILL and resumed with no duplicate and no loss."""

import pytest

from support.clirun import invoke


def test_help_lists_the_commands():
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("run", "show", "report", "compare", "doctor", "demo", "sample-data"):
        assert command in result.output
    run_help = invoke("run", "--help").output
    for option in (
        "--agent",
        "--model",
        "--effort",
        "--tools",
        "--data",
        "--tasks",
        "--ids",
        "--limit",
        "--jobs",
        "--timeout",
        "--max-turns",
        "--out-dir",
        "--redo",
        "--sandbox",
    ):
        assert option in run_help


def test_a_kind_options_values_are_checked_where_run_parses_them():
    """Every kind option with a fixed set of values (registry.KindOption.choices) refuses another on the command
    line before anything runs, naming the flag, the value given and the values it takes; `run --help` lists them."""
    from agent_eval.benchmarks import registry

    options = [option for _, option in registry.kind_options().values() if option.choices]
    assert {"--world-model", "--protocol", "--arc-mode", "--grade", "--roles", "--early-stop"} <= {
        option.flag for option in options
    }
    run_help = invoke("run", "--help").output
    for option in options:
        result = invoke("run", option.flag, "maybe")
        allowed = ", ".join(repr(choice) for choice in option.choices)
        assert result.exit_code == 2, result.output
        assert f"Invalid value for '{option.flag}': 'maybe' is not one of {allowed}." in result.output
        assert f"{option.flag} [{'|'.join(option.choices)}]" in run_help


@pytest.mark.parametrize(
    "args,message",
    [
        (["--agent", "codex", "--model", "m", "--effort", "max"], "effort 'max' is not valid for codex"),
        (["--agent", "claude-code", "--model", "m", "--tasks", "nope"], "unknown task(s) nope; valid:"),
        (["--agent", "claude-code", "--model", "m", "--ids", "ZZ-1"], "unknown id(s) ZZ-1"),
        (["--agent", "claude-code", "--model", "m", "--jobs", "0"], "--jobs must be at least 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, bank_dataset, tmp_path):
    env = {"ANTHROPIC_API_KEY": "x", "OPENAI_API_KEY": "x"}
    result = invoke("run", *args, "--data", bank_dataset, "--out-dir", tmp_path, env=env)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_missing_credential_names_what_it_looked_for(bank_dataset, tmp_path):
    env = {"ANTHROPIC_API_KEY": "", "ANTHROPIC_AUTH_TOKEN": "", "CLAUDE_CODE_OAUTH_TOKEN": "", "HOME": str(tmp_path)}
    result = invoke(
        "run", "--agent", "claude-code", "--model", "m", "--data", bank_dataset, "--out-dir", tmp_path, env=env
    )
    assert result.exit_code == 2
    assert "claude-code: no credential found. Set ANTHROPIC_API_KEY" in result.output


def test_sample_data_command(tmp_path):
    result = invoke("sample-data", tmp_path / "s", "--per-task", "1", "--seed", "3")
    assert result.exit_code == 0 and "wrote 6 items" in result.output
    again = invoke("sample-data", tmp_path / "s")
    assert again.exit_code == 2 and "error:" in again.output


def test_sample_data_active_observation(tmp_path):
    result = invoke("sample-data", tmp_path / "a", "--kind", "activeobs", "--per-task", "1")
    assert result.exit_code == 0 and "active-observation items" in result.output and "validation: " in result.output
    from agent_eval.benchmarks import load_benchmark

    benchmark, dataset = load_benchmark(tmp_path / "a")
    assert benchmark.name == "activeobs" and len(dataset.items) >= 5
    assert invoke("sample-data", tmp_path / "a", "--kind", "activeobs").exit_code == 2
