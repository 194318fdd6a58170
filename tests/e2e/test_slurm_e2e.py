"""`agent-eval slurm` against a real single-node Slurm (tests/support/slurmcluster.py), the real CLIs and the
scripted model: sharded runs merge into the single-machine run, a requeued task resumes its shard,
a failed task is named with its missing items and resubmit command, a sweep is one array."""

import json
import os
import re
import subprocess
import threading
import time
from pathlib import Path

import pytest
import yaml

from agent_eval.agents.registry import scripted_environ
from agent_eval.benchmarks.activevision.loader import load_dataset
from agent_eval.datamodel.results import RunStore
from agent_eval.datamodel.run_session import SESSION
from agent_eval.engine.selection import shard_of
from agent_eval.scripted import ScriptedServer
from support.agentrun import AGENTS, MODELS, processes_mentioning
from support.slurmcluster import ClusterUnavailable, SlurmCluster

# One cluster per machine (its fixed folder, one slurmd for the host): under xdist these tests share one worker.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("slurm")]

AGENT_EVAL = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "agent-eval")
SCENARIO = {"turns": [{"call": "shell", "input": {"command": "echo looked"}}, "<answer>3</answer>"]}
ENDED = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED")


@pytest.fixture(scope="session")
def slurm():
    cluster = SlurmCluster()
    try:
        cluster.start()
    except ClusterUnavailable as why:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the Slurm tests: {why}")
        pytest.skip(f"this machine cannot run a Slurm cluster: {why}")
    yield cluster
    cluster.stop()  # only what this session started


@pytest.fixture(autouse=True)
def no_jobs_left_behind(slurm, tmp_path):
    yield
    slurm.cancel_jobs_under(tmp_path)  # a failed test's jobs would hold the node for the next one


def job_env(cluster: SlurmCluster, agent: str, server: ScriptedServer) -> dict:
    return {**os.environ, **cluster.env, **scripted_environ(agent, server.url)}


def agent_eval(env: dict, cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([AGENT_EVAL, *map(str, args)], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def plan_of(folder: Path) -> dict:
    return json.loads((folder / "job.json").read_text())


def job_state(cluster: SlurmCluster, job: str) -> str:
    return cluster.run("squeue", "-h", "-t", "all", "-j", job, "-o", "%T", check=False).stdout.strip()


def wait_for_job(cluster: SlurmCluster, job: str, folder: Path, timeout_s: float = 150) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = job_state(cluster, job)
        if state in ENDED:
            return state
        time.sleep(0.5)
    logs = "\n".join(f"--- {p.name}\n{p.read_text()[-1500:]}" for p in sorted((folder / "logs").glob("*")))
    queue = cluster.run("squeue", "-t", "all", "-r", check=False).stdout
    pytest.fail(f"job {job} did not end in {timeout_s:.0f} s (state {job_state(cluster, job)!r})\n{queue}\n{logs}")


def merge_job(folder: Path) -> str:
    return plan_of(folder)["submissions"][-1]["merge_job"]


def records_by_key(run: Path) -> dict:
    return {r.key: r for r in RunStore(run).records()}


def record_lines(run: Path) -> list[tuple[str, int]]:
    """Every record ever appended (not only the latest per item): to see nothing was graded twice."""
    keys = []
    for path in run.glob("*/items.jsonl"):
        keys += [(row["id"], row["repeat"]) for row in map(json.loads, path.read_text().splitlines())]
    return keys


def layout(run: Path) -> set[str]:
    """The run's files, less the sandboxes and the runner's live session.json (a merged run has none: no runner)."""
    return {
        str(p.relative_to(run))
        for p in run.rglob("*")
        if p.is_file() and p.relative_to(run).parts[0] != "sandboxes" and p.relative_to(run) != Path(SESSION)
    }


@pytest.mark.parametrize("agent", AGENTS)
def test_three_shards_merge_into_the_single_machine_run(slurm, agent, sample_data, tmp_path):
    """`slurm submit --shards 3`: three array tasks each grade their own slice, the merge job merges them, and the
    merged run is the single-machine `run` of the same options (records, files, manifest); `slurm status` says
    so. The single-machine run goes on while the cluster works (it needs nothing of it)."""
    options = [
        "--agent",
        agent,
        "--model",
        MODELS[agent],
        "--tools",
        "python",
        "--data",
        sample_data,
        "--unpriced",
        "--jobs",
        "2",
        "--timeout",
        "90",
    ]
    with ScriptedServer(SCENARIO) as server:
        env = job_env(slurm, agent, server)
        submitted = agent_eval(
            env,
            tmp_path,
            "slurm",
            "submit",
            "--shards",
            "3",
            "--out-dir",
            tmp_path / "cluster",
            "--sbatch",
            "--cpus-per-task=1",
            *options,
        )
        name = f"{agent}-{MODELS[agent]}-default-python"
        folder = tmp_path / "cluster" / f"{name}.slurm"
        assert "submitted array job" in submitted.stdout and "3 array task(s)" in submitted.stdout
        single_run: dict = {}
        alongside = threading.Thread(
            target=lambda: single_run.update(
                done=agent_eval(env, tmp_path, "run", *options, "--out-dir", tmp_path / "single", check=False)
            )
        )
        alongside.start()
        assert wait_for_job(slurm, merge_job(folder), folder) == "COMPLETED"
        alongside.join()
        assert single_run["done"].returncode == 0, single_run["done"].stdout + single_run["done"].stderr
    merged, single = tmp_path / "cluster" / name, tmp_path / "single" / name
    assert records_by_key(merged).keys() == records_by_key(single).keys() and len(records_by_key(merged)) == 6
    for key, record in records_by_key(single).items():
        twin = records_by_key(merged)[key]
        assert (twin.status, twin.prediction, twin.correct, twin.task) == (
            record.status,
            record.prediction,
            record.correct,
            record.task,
        )
        assert (merged / twin.transcript).is_file()
    assert layout(merged) == layout(single)
    manifest_m, manifest_s = (json.loads((run / "run.json").read_text()) for run in (merged, single))
    for key in ("run_name", "config", "dataset", "scripted_model"):
        assert manifest_m[key] == manifest_s[key], key
    assert len(manifest_m["merged_from"]) == 3
    # Each shard ran in its own array task, graded only its own slice.
    items = load_dataset(sample_data).items
    for k in (1, 2, 3):
        shard = folder / "shards" / f"{name}.shard{k}of3"
        assert sorted(i for i, _ in record_lines(shard)) == sorted(i.id for i in shard_of(items, k, 3))
    status = agent_eval(env, tmp_path, "slurm", "status", merged)
    assert status.stdout.count("COMPLETED") >= 4 and f"merged: {merged} (6 item record(s))" in status.stdout


@pytest.mark.parametrize("interrupt", ["requeue", "preempt"])
def test_requeued_or_preempted_task_resumes_its_shard(slurm, interrupt, sample_data, tmp_path):
    """Requeued (scontrol requeue) or preempted (a job in a higher-tier partition needs both cores)
    while its agent is mid-item: the task resumes (the graded item is not run again, the
    interrupted one is), the merge has every item once, and nothing is left running."""
    items = load_dataset(sample_data).items
    k = max((1, 2), key=lambda k: len(shard_of(items, k, 2)))  # the shard with at least two items
    ids = [i.id for i in shard_of(items, k, 2)][:3]  # three items there are enough
    assert len(ids) >= 2
    items = [i for i in items if i.id in ids or i in shard_of(items, 3 - k, 2)]
    # every model answer takes 4 s: what is left once an item is seen talking (its answer, the third item: >= 12 s)
    # outlasts `slurm status` and the requeue on a loaded machine (at 1.5 s a fresh-clone run saw the shard finish
    # its three items first, and no requeue in its log)
    slow = {**SCENARIO, "faults": {"delay": 4.0}}
    name = "codex-gpt-5.5-default-python"
    folder = tmp_path / "out" / f"{name}.slurm"
    shard = folder / "shards" / f"{name}.shard{k}of2"
    with ScriptedServer(slow) as server:
        env = job_env(slurm, "codex", server)
        agent_eval(
            env,
            tmp_path,
            "slurm",
            "submit",
            "--shards",
            "2",
            "--out-dir",
            tmp_path / "out",
            "--agent",
            "codex",
            "--model",
            "gpt-5.5",
            "--data",
            sample_data,
            "--unpriced",
            "--jobs",
            "1",
            "--timeout",
            "90",
            "--ids",
            ",".join(i.id for i in items),
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:  # one item graded, the next one's agent already talking
            done = {key[0] for key in record_lines(shard)} if shard.is_dir() else set()
            talking = (
                [
                    d.name
                    for d in (shard / "sandboxes").glob("*")
                    if d.name not in done
                    and (d / "transcript.jsonl").is_file()
                    and (d / "transcript.jsonl").stat().st_size > 0
                ]
                if done
                else []
            )
            if talking:
                break
            time.sleep(0.2)
        else:
            pytest.fail(f"shard {k} never got mid-item: {sorted(shard.rglob('*'))}")
        status = agent_eval(env, tmp_path, "slurm", "status", folder).stdout
        assert re.search(rf"{k}/2 .*RUNNING", status) and "resubmit" not in status, status  # no gaps while running
        if interrupt == "requeue":
            slurm.run("scontrol", "requeue", plan_of(folder)["submissions"][-1]["array_job"] + f"_{k - 1}")
        else:
            slurm.run("sbatch", "--partition=urgent", "--cpus-per-task=2", "--output=/dev/null", "--wrap", "sleep 1")
        # The slow answers were there to be interrupted; once the task has started again (its log says so, the
        # interruption is behind it) the rest of its shard is answered at once.
        restarted_log = folder / "logs" / f"task-{k - 1}.out"
        deadline = time.monotonic() + 150
        while "restart 1)" not in (restarted_log.read_text() if restarted_log.is_file() else ""):
            if time.monotonic() > deadline:
                pytest.fail(f"task {k - 1} never started again:\n{restarted_log.read_text()}")
            time.sleep(0.2)
        server.faults = None
        assert wait_for_job(slurm, merge_job(folder), folder) == "COMPLETED"
        leftovers = processes_mentioning(server.url)
    assert leftovers == []
    log = restarted_log.read_text()
    assert "restart 0)" in log and "restart 1)" in log, log  # one log, appended across the requeue
    assert ("DUE TO JOB REQUEUE" if interrupt == "requeue" else "DUE TO PREEMPTION") in log, log
    assert "Terminated (SIGTERM)" in log and "already graded" in log, log
    assert sorted(record_lines(shard)) == sorted((i, 0) for i in ids)  # nothing graded twice or lost
    # An item cut off by the requeue starts over (its folder moved aside): usually the one seen talking, but on a
    # loaded machine that one may finish first and the cut may fall on the next one, or between two items. An item
    # graded before the requeue is never run again.
    attempts = shard / "sandboxes" / ".attempts"
    restarted = {p.name.split(".")[0] for p in attempts.iterdir()} if attempts.is_dir() else set()
    assert restarted <= set(ids) - done, (restarted, done, talking)
    merged = tmp_path / "out" / name
    assert sorted(record_lines(merged)) == sorted((i.id, 0) for i in items)
    assert all(r.status == "ok" for r in RunStore(merged).records())


def test_failed_task_is_named_with_its_items_and_resubmit_command(slurm, sample_data, tmp_path):
    items = load_dataset(sample_data).items
    name = "codex-gpt-5.5-default-none"
    folder = tmp_path / "out" / f"{name}.slurm"
    blocker = folder / "shards" / f"{name}.shard2of3"  # a file where shard 2's folder must go
    blocker.parent.mkdir(parents=True)
    blocker.write_text("not a directory\n")
    missing = sorted(i.id for i in shard_of(items, 2, 3))
    with ScriptedServer({"turns": ["<answer>3</answer>"]}) as server:
        env = job_env(slurm, "codex", server)
        agent_eval(
            env,
            tmp_path,
            "slurm",
            "submit",
            "--shards",
            "3",
            "--out-dir",
            tmp_path / "out",
            "--agent",
            "codex",
            "--model",
            "gpt-5.5",
            "--tools",
            "none",
            "--data",
            sample_data,
            "--unpriced",
        )
        first_merge = merge_job(folder)
        assert wait_for_job(slurm, first_merge, folder) == "FAILED"
        merge_log = (folder / "logs" / f"merge-{first_merge}.out").read_text()
        resubmit = (
            f"sbatch --dependency=afterany:$(sbatch --parsable --array=1 {folder}/array.sbatch) {folder}/merge.sbatch"
        )
        assert f"{name} shard 2/3 (array task 1): {len(missing)} of {len(missing)} item(s) missing" in merge_log
        assert ", ".join(missing) in merge_log and resubmit in merge_log, merge_log
        assert "cannot write" in (folder / "logs" / "task-1.out").read_text()
        assert not (tmp_path / "out" / name).exists()  # nothing half merged
        status = agent_eval(env, tmp_path, "slurm", "status", folder).stdout
        assert re.search(r"2/3 .*\b1 .*FAILED", status) and ", ".join(missing) in status and resubmit in status
        # The printed command, as a user would paste it, once the cause is gone.
        blocker.unlink()
        again = subprocess.run(["bash", "-c", resubmit], env=env, cwd=tmp_path, capture_output=True, text=True)
        second_merge = re.search(r"Submitted batch job (\d+)", again.stdout).group(1)
        assert wait_for_job(slurm, second_merge, folder) == "COMPLETED"
    assert sorted(record_lines(tmp_path / "out" / name)) == sorted((i.id, 0) for i in items)


@pytest.mark.timeout(900)  # 12 array tasks, 6 of them agents playing a game, two at a time on this node
def test_a_sweep_files_run_and_kind_options_reach_every_shard(slurm, tmp_path):
    """sweeps/sample-grid.yaml (both CLIs, every tool mode) on the project's own games, from a copy that sets kinds'
    options (max_actions, observation) and run's (retry_wait, timeout): the sweep is one array of cells x shards,
    every shard's command line carries the options, every cell merges its shards (shard 2 has no item) with its own
    tool mode, every merged cell's game kept the bound, and the sweep's compare.md is written. (Was also
    test_sweep_is_one_array_of_cells_by_shards, a smaller sweep of its own.)"""
    from agent_eval.agents.registry import scripted_environ as environ_of
    from agent_eval.benchmarks.registry import get_benchmark

    games = tmp_path / "games"
    get_benchmark("arcgames").write_samples(games, seed=0, per_task=1, difficulty="")
    settings = yaml.safe_load((Path(__file__).resolve().parents[2] / "sweeps" / "sample-grid.yaml").read_text())
    settings.update(data=str(games), ids="ae02", out_dir=str(tmp_path / "sweeps"), jobs=1, timeout=120, retry_wait=1)
    settings.update(max_actions=2, observation="text")
    sweep = tmp_path / "sample-grid.yaml"
    sweep.write_text(yaml.safe_dump(settings, sort_keys=False))
    turns = [{"call": "play", "input": {"action": a}} for a in ("RESET", "ACTION1", "ACTION2")]
    with ScriptedServer({"rules": [{"turns": [*turns, {"final": "<answer>DONE</answer>"}]}]}) as server:
        env = {**os.environ, **slurm.env, **environ_of("claude-code", server.url), **environ_of("codex", server.url)}
        out = agent_eval(env, tmp_path, "slurm", "submit", "--sweep", sweep, "--shards", "2").stdout
        assert "6 cell(s) x 2 shard(s) = 12 array task(s)" in out
        folder = tmp_path / "sweeps" / "sample-grid.slurm"
        assert "#SBATCH --array=0-11" in (folder / "array.sbatch").read_text()
        for cell in plan_of(folder)["cells"]:
            args = " ".join(cell["args"])
            assert "--max-actions 2 --observation text" in args and "--retry-wait 1" in args, args
        assert wait_for_job(slurm, merge_job(folder), folder, timeout_s=800) == "COMPLETED"
    cells = sorted(p for p in (tmp_path / "sweeps" / "sample-grid").iterdir() if (p / "run.json").is_file())
    assert len(cells) == 6
    tools_of = {cell["name"]: cell["args"][cell["args"].index("--tools") + 1] for cell in plan_of(folder)["cells"]}
    assert sorted(tools_of.values()) == ["image", "image", "none", "none", "python", "python"]
    for cell in cells:
        config = json.loads((cell / "run.json").read_text())["config"]
        assert config["kind_options"]["max_actions"] == 2 and config["tools"] == tools_of[cell.name]
        assert sorted(record_lines(cell)) == [("ae02", 0)]  # graded once, merged from its shards
        records = RunStore(cell).records()
        assert [r.id for r in records] == ["ae02"], cell.name  # from shard 1; shard 2 had no item
        for record in records:
            assert record.status == "ok", (cell.name, record.status, record.error)
            assert record.metrics["plays"] == 2 and record.metrics["observations"]["images"] == 0
    assert (tmp_path / "sweeps" / "sample-grid" / "compare.md").is_file()
