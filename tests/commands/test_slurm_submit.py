"""`agent-eval slurm submit --no-submit` without a cluster: the scripts it writes, the task -> cell x
shard mapping, and the options it refuses before anything is queued."""

import json
import subprocess

import yaml
from click.testing import CliRunner

from agent_eval.benchmarks.activevision.loader import load_dataset
from agent_eval.cli import main
from agent_eval.engine.selection import shard_of

ENV = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k"}


def submit(tmp_path, *args):
    return CliRunner().invoke(
        main, ["slurm", "submit", "--no-submit", "--out-dir", str(tmp_path / "out"), *args], env=ENV
    )


def test_no_submit_writes_scripts_that_map_tasks_to_shards(sample_data, tmp_path):
    result = submit(
        tmp_path,
        "--shards",
        "4",
        "--agent",
        "codex",
        "--model",
        "gpt-5.5",
        "--unpriced",
        "--data",
        str(sample_data),
        "--jobs",
        "3",
        "--outage-hold-minutes",
        "45",
        "--sbatch",
        "--partition=lab --time=1:00:00",
    )
    assert result.exit_code == 0, result.output
    folder = tmp_path / "out" / "codex-gpt-5.5-default-python.slurm"
    script = (folder / "array.sbatch").read_text()
    assert "#SBATCH --array=0-3" in script and "#SBATCH --open-mode=append" in script
    assert "#SBATCH --partition=lab --time=1:00:00" in script
    assert f"--data {sample_data}" in script and "--jobs 3 --unpriced" in script and "--redo" not in script
    assert "--outage-hold-minutes 45.0" in script  # an operational option, passed through like the others
    assert "not submitted" in result.output and "--array=0,1,2,3" in result.output
    plan = json.loads((folder / "job.json").read_text())
    items = load_dataset(sample_data).items
    assert {k: [i for i, _ in v] for k, v in plan["cells"][0]["expected"].items()} == {
        str(k): [i.id for i in shard_of(items, k, 4)] for k in (1, 2, 3, 4)
    }
    # Run the script's own dispatch (bash, with a stand-in for agent-eval) for every array task.
    fake = script.replace(plan["agent_eval"], "echo")
    for task in range(4):
        out = subprocess.run(
            ["bash", "-c", fake],
            env={"SLURM_ARRAY_TASK_ID": str(task), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert f"--shard {task + 1}/4 " in out and f"codex-gpt-5.5-default-python.shard{task + 1}of4" in out
    beyond = subprocess.run(["bash", "-c", fake], env={"SLURM_ARRAY_TASK_ID": "4"}, capture_output=True, text=True)
    assert beyond.returncode == 2 and "outside this submission" in beyond.stderr
    assert (folder / "merge.sbatch").read_text().rstrip().endswith(f"slurm merge {folder.resolve()}")


def test_sweep_cells_times_shards(sample_data, tmp_path):
    sweep = tmp_path / "grid.yaml"
    sweep.write_text(
        yaml.safe_dump(
            {
                "name": "g",
                "data": str(sample_data),
                "tools": ["none", "python"],
                "grid": [{"agent": "codex", "models": ["gpt-5.5"], "efforts": ["low", "high"]}],
                "unpriced": True,
                "outage_hold_minutes": 10,
                "out_dir": str(tmp_path / "s"),
            }
        )
    )
    result = CliRunner().invoke(
        main, ["slurm", "submit", "--no-submit", "--sweep", str(sweep), "--shards", "3"], env=ENV
    )
    assert result.exit_code == 0, result.output
    assert "4 cell(s) x 3 shard(s) = 12 array task(s)" in result.output
    script = (tmp_path / "s" / "g.slurm" / "array.sbatch").read_text()
    assert "#SBATCH --array=0-11" in script and script.count(" NAME=") == 4
    assert script.count("--outage-hold-minutes 10") == 4


def test_bad_submissions_are_refused_before_anything_is_written(sample_data, tmp_path):
    base = ["--shards", "2", "--data", str(sample_data), "--unpriced"]
    cases = [
        (["--agent", "codex", "--model", "gpt-5.5", "--sbatch", "--array=1-3"], "--array is set by agent-eval"),
        (["--agent", "codex", "--model", "gpt-5.5", "--effort", "max"], "effort 'max' is not valid for codex"),
        (["--agent", "codex"], "--agent and --model are required"),
        (["--agent", "codex", "--model", "gpt-5.5", "--tasks", "nope"], "unknown task(s) nope"),
        (["--agent", "codex", "--model", "gpt-5.5", "--outage-hold-minutes", "90"], "at most 50"),
        (["--agent", "codex", "--model", "gpt-unpriced-9", "--max-cost-usd", "5"], "--max-cost-usd 5 cannot be kept"),
    ]
    for args, message in cases:
        result = submit(tmp_path, *base, *args)
        assert result.exit_code == 2 and message in result.output, (args, result.output)
    sweep = tmp_path / "grid.yaml"
    sweep.write_text("grid: [{agent: codex, models: [gpt-5.5]}]\n")
    mixed = submit(tmp_path, "--shards", "2", "--sweep", str(sweep), "--model", "x")
    assert mixed.exit_code == 2 and "drop --model" in mixed.output
    assert not (tmp_path / "out").exists()
    shards = submit(tmp_path, "--shards", "0", "--agent", "codex", "--model", "gpt-5.5")
    assert shards.exit_code == 2 and "--shards" in shards.output


def test_a_folder_keeps_one_piece_of_work(sample_data, tmp_path):
    args = ["--agent", "codex", "--model", "gpt-5.5", "--unpriced", "--data", str(sample_data)]
    assert submit(tmp_path, "--shards", "2", *args).exit_code == 0
    assert submit(tmp_path, "--shards", "2", *args).exit_code == 0  # the same again: fine (resumes)
    other = submit(tmp_path, "--shards", "3", *args)
    assert other.exit_code == 2 and "different work" in other.output
