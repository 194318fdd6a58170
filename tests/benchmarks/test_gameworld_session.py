"""A GameWorld task on a real page (the shared browser host: headless Chromium on the harness's clock), without an
agent: the start as GameWorld's runtime makes it (and 2048's race handled), every action primitive reaching the
page, the evaluator after each step, the reset after a failed terminal, identical screens for identical actions,
and the replay of a task left by a killed harness (agent_eval/benchmarks/gameworld: session.py, gameapi.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_eval.benchmarks.games.folder import read_restores
from agent_eval.benchmarks.gameworld import gameapi
from agent_eval.benchmarks.gameworld.recheck import NotRecheckable, recheck_folder
from agent_eval.benchmarks.gameworld.records import read_steps
from agent_eval.benchmarks.gameworld.session import HostPage, NotReplayable
from support import gameworld
from support.gameworld import CAUGHT, WIN, open_session, task

# the module's checkout and page host (pytest fixtures `checkout` and `host`)
checkout_fixture, host_fixture = gameworld.checkout_fixture, gameworld.host_fixture


def beacons(session) -> list[dict]:
    return gameapi.read_state(session.page)["game_state"]["beacons"]


def test_the_start_runs_the_pages_first_frames_before_init(checkout, host, tmp_path):
    """2048's race, reproduced by the test game: init before the game's first frames leaves another board. The
    harness's start gives the same board every time."""
    item = task(checkout)
    first = open_session(host, item, tmp_path / "a")
    board = beacons(first)
    again = open_session(host, item, tmp_path / "b")
    assert beacons(again) == board == [{"x": 7, "y": 0}, {"x": 7, "y": 1}, {"x": 7, "y": 4}]
    assert again.steps == [] and (tmp_path / "b" / "frames" / "0001.png").is_file()
    # GameWorld's own order (init at once, then the readiness wait) on a fresh page: the race shows
    host.open("index.html")
    page = HostPage(host)
    gameapi.call(page, "init")
    gameapi.wait_until_ready(page, "init")
    assert gameapi.read_state(page)["game_state"]["beacons"] != board


def test_the_same_actions_give_the_same_screens(checkout, host, tmp_path):
    item = task(checkout)
    moves = [
        {"action": "press_key", "key": "ArrowRight", "duration": 0.3},
        {"action": "wait", "duration": 1.0},
        *WIN[:1],
        {"action": "drag", "x1": 10, "y1": 10, "x2": 200, "y2": 100, "steps": 4},
    ]
    runs = []
    for name in ("a", "b"):
        session = open_session(host, item, tmp_path / name)
        for move in moves:
            session.act(0, move, "computer_use")
        runs.append([(s.frame_hash, s.game_ms) for s in session.steps])
        session.finish()
    assert runs[0] == runs[1]
    assert len({h for h, _ in runs[0]}) >= 3  # the screens move on: the lamp, the guard, the beacon lit


def test_every_primitive_reaches_the_page(checkout, host, tmp_path):
    """Keys held and released, clicks, pointer moves, the wheel: the game counts the events it received."""
    session = open_session(host, task(checkout, "90_02"), tmp_path / "t")  # ?guard=off
    for move in (
        {"action": "press_key", "key": "ArrowRight"},
        {"action": "press_keys", "keys": ["ArrowDown", "ArrowRight"], "duration": 0.05},
        {"action": "click", "x": 30, "y": 30},
        {"action": "mouse_move", "x": 100, "y": 100, "from_x": 50, "from_y": 50},
        {"action": "scroll", "delta_y": 120},
        {"action": "click_hold", "x": 30, "y": 30, "duration": 0.1},
        {"action": "wait"},
    ):
        status, png = session.act(0, move, "computer_use")
        assert png and "invalid" not in status, status
    metrics = gameapi.read_state(session.page)["metrics"]
    assert metrics["key_presses"] == 3 and metrics["clicks"] == 2 and metrics["wheel_events"] == 1
    assert metrics["pointer_moves"] >= 3
    assert gameapi.read_state(session.page)["game_state"]["player"] == {"x": 2, "y": 1}


def test_the_evaluator_scores_each_step_and_stops_at_the_target(checkout, host, tmp_path):
    session = open_session(host, task(checkout), tmp_path / "t")
    progress = []
    for move in WIN:
        status, _ = session.act(0, move, "computer_use")
        progress.append(session.steps[-1].evaluation["progress"])
    assert progress == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert status["stop"].startswith("the task has ended") and "success" not in json.dumps(status)  # score hidden
    assert session.act(0, {"action": "wait"}, "computer_use")[0]["stop"].startswith("No step taken")
    end = session.finish()
    assert (end.status, end.progress, end.stop_reason, end.steps) == ("success", 1.0, "target_reached", 3)
    assert json.loads((tmp_path / "t" / "result.json").read_text())["status"] == "success"


def test_a_failed_terminal_resets_the_game_within_the_budget(checkout, host, tmp_path):
    """GameWorld: a terminal with outcome fail resets the game (continue_on_fail) and the task goes on; the screen
    before the reset is archived."""
    session = open_session(host, task(checkout), tmp_path / "t", max_steps=5)
    for move in CAUGHT:
        status, _ = session.act(0, move, "computer_use")
    step = session.steps[-1]
    assert step.evaluation["stop_reason"] == "terminal_fail_reset" and step.evaluation["status"] == "fail"
    assert step.reset_frame == step.frame - 1 and "reset" in status
    assert gameapi.read_state(session.page)["terminal"]["isTerminal"] is False  # a new episode
    for _ in range(3):
        session.act(0, {"action": "wait"}, "computer_use")
    end = session.finish()
    assert (end.status, end.stop_reason, end.resets, end.steps) == ("fail", "max_steps_exhausted", 1, 5)


def test_an_invalid_action_sends_nothing_and_counts_a_step(checkout, host, tmp_path):
    session = open_session(host, task(checkout), tmp_path / "t")
    status, png = session.act(0, {"action": "press_key", "key": "Space"}, "computer_use")
    assert "invalid" in status and png
    none, _ = session.act(0, None, "none")
    assert session.steps[0].invalid_kind == "out_of_space" and session.steps[1].invalid_kind == "no_function_call"
    assert none["steps_left"] == 98 and gameapi.read_state(session.page)["metrics"]["key_presses"] == 0


def test_a_semantic_control_plays_its_binding(checkout, host, tmp_path):
    session = open_session(host, task(checkout), tmp_path / "t")
    session.act(0, {"control": "light_cell", "cell": "h1"}, "semantic")
    session.act(0, {"control": "move_right"}, "semantic")
    assert [s.action["action"] for s in session.steps] == ["click", "press_key"]
    state = gameapi.read_state(session.page)
    assert state["metrics"]["lit_by_click"] == 1 and state["game_state"]["player"] == {"x": 1, "y": 0}


def test_a_task_left_by_a_killed_harness_is_replayed_screen_by_screen(checkout, host, tmp_path):
    item = task(checkout)
    first = open_session(host, item, tmp_path / "t")
    for move in [*CAUGHT, WIN[0]]:
        first.act(0, move, "computer_use")
    recorded = [s.frame_hash for s in first.steps]
    # the harness dies here: no finish(); a new process opens the page again over the same folder
    again = open_session(host, item, tmp_path / "t")
    assert [s.frame_hash for s in again.steps] == recorded and again.resets == 1
    assert again.restored["outcome"] == "replayed" and again.restored["steps"] == 3
    again.act(0, {"action": "wait"}, "computer_use")
    assert [s.step for s in read_steps(tmp_path / "t")] == [1, 2, 3, 4]
    assert again.archive.count == again.steps[-1].frame
    assert read_restores(tmp_path / "t")[0]["steps"] == 3


def test_a_record_that_does_not_replay_is_refused(checkout, host, tmp_path):
    item = task(checkout)
    first = open_session(host, item, tmp_path / "t")
    first.act(0, WIN[0], "computer_use")
    lines = (tmp_path / "t" / "timeline.jsonl").read_text().splitlines()
    changed = json.loads(lines[0]) | {"frame_hash": "0" * 16}
    (tmp_path / "t" / "timeline.jsonl").write_text(json.dumps(changed) + "\n")
    with pytest.raises(NotReplayable, match="step 1: its screen differs"):
        open_session(host, item, tmp_path / "t")


def test_real_time_runs_the_game_while_the_model_thinks_and_replays_it(checkout, host, tmp_path):
    """--realtime on: the wall time before a step runs on the game's clock (recorded); a replay runs it again."""
    item = task(checkout)
    session = open_session(host, item, tmp_path / "t", realtime=True)
    time.sleep(0.3)  # the model thinks
    session.act(0, {"action": "wait", "duration": 0.05}, "computer_use")
    step = session.steps[0]
    assert step.realtime_ms >= 300 and step.game_ms >= 400
    again = open_session(host, item, tmp_path / "t", realtime=True)
    assert [s.frame_hash for s in again.steps] == [step.frame_hash] and again.page.ms == pytest.approx(session.page.ms)


def test_a_game_of_two_roles_evaluates_the_first_and_bounds_each(checkout, host, tmp_path):
    """GameWorld evaluates its first agent's steps (coordinator: `_evaluation_agent_id = self.agents[0]`) and
    counts the step budget on it; here one agent plays both roles, each limited to its own controls."""
    game = checkout / "catalog" / "games" / "90_beacon.yaml"
    text = game.read_text()
    duo = text + (
        "  - name: helper\n"
        "    computer_use_controls:\n"
        '      allowed_keys: ["ArrowLeft", "ArrowRight"]\n'
        "      allow_clicks: false\n"
    )
    game.write_text(duo)
    try:
        item = task(checkout)
        assert [r.name for r in item.game.roles] == ["player", "helper"]
        session = open_session(host, item, tmp_path / "t", max_steps=2)
        session.act(1, {"action": "press_key", "key": "ArrowRight"}, "computer_use")
        assert session.steps[0].evaluation is None and session.role_steps == [0, 1]
        refused, _ = session.act(1, {"action": "click", "x": 450, "y": 30}, "computer_use")
        assert "may not use the mouse" in refused["invalid"]
        session.act(0, WIN[0], "computer_use")
        assert session.steps[-1].evaluation["progress"] == pytest.approx(1 / 3)
        assert session.over is None and session.steps_left(1) == 0  # the helper's budget, not the task's
        spent, _ = session.act(1, {"action": "wait"}, "computer_use")
        assert (
            spent["stop"].startswith("No step taken: role 1 (helper) has used its 2 steps") and len(session.steps) == 3
        )
        status, _ = session.act(0, WIN[1], "computer_use")
        assert status["stop"].startswith("the task has ended")  # the first role's budget: max_steps_exhausted
        assert session.finish().stop_reason == "max_steps_exhausted"
    finally:
        game.write_text(text)


def test_the_kept_states_give_the_recorded_verdicts_again(checkout, host, tmp_path):
    """Every step keeps the state getState() gave: the evaluator run over them again (a reset where the task was
    reset) gives every recorded verdict; a kept state changed gives another verdict, named by its step."""
    item = task(checkout)
    session = open_session(host, item, tmp_path / "t", max_steps=8)
    for move in CAUGHT:  # a failed terminal, and the reset
        session.act(0, move, "computer_use")
    for beacon in beacons(session):  # the new board's beacons lit: the target reached
        session.act(0, {"action": "click", "x": 30 + 60 * beacon["x"], "y": 30 + 60 * beacon["y"]}, "computer_use")
    session.finish()
    steps = read_steps(tmp_path / "t")
    assert all(isinstance(s.state, dict) and "game_state" in s.state for s in steps)
    assert steps[1].evaluation["stop_reason"] == "terminal_fail_reset" and steps[1].reset_frame is not None
    assert steps[-1].evaluation["status"] == "success"
    checked = recheck_folder(tmp_path / "t", item.task_def.rules)
    assert (checked.task, checked.verdicts, checked.differences) == ("90_01", 5, [])
    # a state that is not what the game gave: its verdict differs from the one recorded
    lines = [json.loads(line) for line in (tmp_path / "t" / "timeline.jsonl").read_text().splitlines()]
    lines[-1]["state"]["game_state"]["score"] = 2  # one beacon short of the target
    (tmp_path / "t" / "timeline.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    differences = recheck_folder(tmp_path / "t", item.task_def.rules).differences
    assert len(differences) == 1 and differences[0].startswith("step 5: status 'unknown', recorded 'success'")
    # a task played before the states were kept says so
    record = json.loads((tmp_path / "t" / "task.json").read_text())
    (tmp_path / "t" / "task.json").write_text(json.dumps({k: v for k, v in record.items() if k != "states_kept"}))
    with pytest.raises(NotRecheckable, match="before the states were kept"):
        recheck_folder(tmp_path / "t", item.task_def.rules)


# A stand-in for GameWorld's env/task_evaluator.py (not shipped: no licence), with its two entry points as
# scripts/gameworld_reference_check.py calls them, over this project's evaluator: it checks the script's wiring
# (which settings, which steps, which resets); the equality of the two evaluators is the script's own trials' work.
STAND_IN = """
from agent_eval.benchmarks.gameworld.evaluator import TaskRules, evaluate, reset_episode

def build_task_evaluator(evaluator_id, config, start, target, max_steps, keep_going):
    assert evaluator_id == "game_api_metric"
    rules = TaskRules(config, start, target, max_steps, keep_going)
    async def run(state, step, metrics, finalized=False):
        return evaluate(rules, state, step, metrics, finalized=finalized)
    return run

def reset_task_evaluator_episode_metrics(metrics):
    return reset_episode(metrics)
"""


def test_the_reference_check_evaluates_a_runs_kept_states_again(checkout, host, tmp_path):
    item = task(checkout)
    folder = tmp_path / "run" / "sandboxes" / "90_01" / "game"
    session = open_session(host, item, folder, max_steps=4)
    for move in [*CAUGHT, WIN[0], WIN[1]]:  # a reset, then the budget spent
        session.act(0, move, "computer_use")
    session.finish()
    (checkout / "env").mkdir(exist_ok=True)
    (checkout / "env" / "task_evaluator.py").write_text(STAND_IN)
    script = Path(__file__).resolve().parents[2] / "scripts" / "gameworld_reference_check.py"

    def check() -> subprocess.CompletedProcess:
        argv = [sys.executable, str(script), str(checkout), "--trials", "0", "--run", str(tmp_path / "run")]
        return subprocess.run(argv, capture_output=True, text=True, timeout=120)

    done = check()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "run: 1 of 1 task(s) gave their recorded verdicts again (4 in all)" in done.stdout
    lines = [json.loads(line) for line in (folder / "timeline.jsonl").read_text().splitlines()]
    lines[1]["state"]["terminal"]["outcome"] = None  # as if the game had not said it failed: no reset
    (folder / "timeline.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = check()
    assert done.returncode == 1 and "DIFFERENT 90_01" in done.stdout and "step 2: status" in done.stdout


def test_errors_the_page_throws_are_counted_and_those_while_it_loads_kept(checkout, tmp_path):
    copy = tmp_path / "checkout"
    shutil.copytree(checkout, copy)
    page = copy / "games" / "benchmark" / "90_beacon" / "index.html"
    page.write_text(page.read_text().replace("<script", "<script>export const unused = 1;</script><script", 1))
    item = task(copy)
    with gameworld.page_host(item, tmp_path / "host") as host:
        session = open_session(host, item, tmp_path / "t")
        session.act(0, WIN[0], "computer_use")
        end = session.finish()
    assert end.page_errors == 1 and len(end.load_errors) == 1 and "Unexpected token 'export'" in end.load_errors[0]
    assert json.loads((tmp_path / "t" / "result.json").read_text())["load_errors"] == end.load_errors
