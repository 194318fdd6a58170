"""GameWorld's catalog and action spaces (agent_eval/benchmarks/gameworld: catalog.py, loader.py, actions.py): the
files read as GameWorld's runtime reads them, every bad value an error naming its file and line; actions checked
against a role's controls as its executor checks them, and compiled into timed inputs."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from agent_eval.benchmarks.gameworld.actions import (
    FRAME_MS,
    InvalidAction,
    check_action,
    compile_action,
    key_name,
    semantic_action,
)
from agent_eval.benchmarks.gameworld.catalog import (
    GameDef,
    Role,
    RoleControls,
    SemanticControl,
    append_url_suffix,
    read_game,
    read_task,
)
from agent_eval.benchmarks.gameworld.loader import is_gameworld_dataset, load_gameworld
from agent_eval.datamodel.jsonl import DataError
from agent_eval.engine.selection import print_notes, print_problems

SAMPLES = Path(__file__).resolve().parents[2] / "agent_eval" / "benchmarks" / "gameworld" / "samples"
SCREEN = GameDef("screen", "", (), width=480, height=360)  # check_action reads its width and height


@pytest.fixture
def checkout(tmp_path) -> Path:
    root = tmp_path / "gameworld"
    shutil.copytree(SAMPLES, root)
    return root


def task_file(root: Path, text: str, name: str = "90_03") -> Path:
    path = root / "catalog" / "tasks" / "90_beacon" / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


GOOD_TASK = """task_id: "90_03"
game_id: 90_beacon
evaluator_id: game_api_metric
max_steps: 100
task_target_score_field: 5
task_prompt: |
  Light five.
evaluator_config:
  score_field: game_state.score
"""


def test_the_samples_are_a_checkout_with_two_tasks(checkout):
    dataset = load_gameworld(checkout)
    assert is_gameworld_dataset(checkout)
    assert [item.id for item in dataset.items] == ["90_01", "90_02"]
    assert dataset.tasks == ["90_beacon"] and not dataset.absent
    item = dataset.items[1]
    assert item.task_def.url_suffix == "?guard=off" and item.task_def.rules.max_steps == 20
    assert item.task_def.rules.config["aggregate_score_fields"] == ["metrics.lit_by_key", "metrics.lit_by_click"]
    assert item.game.width == 480 and item.game.roles[0].controls.hold_duration == 0.05
    assert set(dataset.versions()["90_01"]) >= {"game_files_sha256", "catalog_sha256"}


def test_a_game_missing_from_the_library_is_a_note_said_once_not_a_problem(checkout):
    shutil.copy(checkout / "catalog" / "games" / "90_beacon.yaml", checkout / "catalog" / "games" / "91_other.yaml")
    text = (
        (checkout / "catalog" / "games" / "91_other.yaml")
        .read_text()
        .replace("game_name: 90_beacon", "game_name: 91_other")
    )
    (checkout / "catalog" / "games" / "91_other.yaml").write_text(text)
    (checkout / "catalog" / "tasks" / "91_other").mkdir()
    task_file(checkout, GOOD_TASK.replace("90_03", "91_01").replace("90_beacon", "91_other"), "91_01").rename(
        checkout / "catalog" / "tasks" / "91_other" / "91_01.yaml"
    )
    dataset = load_gameworld(checkout)
    assert [item.id for item in dataset.items] == ["90_01", "90_02"]
    said = io.StringIO()
    console = Console(file=said, width=100)
    print_problems(console, dataset)  # nothing to fix: no "left out; fix them"
    print_notes(console, dataset, dataset.items[:1])  # said even when the selection is installed games only
    lines = said.getvalue().strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("note: 1 of the catalog's games are not installed (1 tasks): 91_other.")
    assert "git clone https://github.com/gameworld-dev/gameworld-games" in lines[0] and "fix" not in lines[0]
    shutil.rmtree(checkout / "games")
    with pytest.raises(DataError, match="no task's game is in"):
        load_gameworld(checkout)


def test_the_dataset_hash_follows_the_game_files(checkout):
    before = load_gameworld(checkout).content_hash()
    page = checkout / "games" / "benchmark" / "90_beacon" / "game.js"
    page.write_text(page.read_text() + "\n// changed\n")
    assert load_gameworld(checkout).content_hash() != before


@pytest.mark.parametrize(
    "text, line, words",
    [
        (GOOD_TASK.replace("task_target_score_field: 5", "task_target_score_field: lots"), 5, "must be a number"),
        (GOOD_TASK.replace("evaluator_id: game_api_metric", "evaluator_id: noop"), 3, "scores only 'game_api_metric'"),
        (GOOD_TASK.replace("max_steps: 100", "max_steps: 2.5"), 4, "whole number"),
        (
            GOOD_TASK.replace("  score_field: game_state.score", "  end_field: terminal.isTerminal"),
            8,
            "needs score_field",
        ),
        (GOOD_TASK.replace("  score_field: game_state.score", "  aggregate_score_fields: []"), 9, "non-empty list"),
        (GOOD_TASK.replace("task_prompt: |\n  Light five.\n", ""), None, "task_prompt is missing"),
        (GOOD_TASK.replace("task_prompt", "task_goal"), 6, "call it task_prompt"),
        (GOOD_TASK.replace('task_id: "90_03"', 'task_id: "90_04"'), 1, "lies at 90_beacon/90_03.yaml"),
        (GOOD_TASK + "  metrics_fields: {a: 1}\n", 10, "metrics_fields must be a list"),
        (GOOD_TASK.replace("max_steps: 100", "max_steps: [100"), 5, "not valid YAML"),
    ],
)
def test_a_bad_task_file_is_an_error_naming_its_file_and_line(checkout, text, line, words):
    path = task_file(checkout, text)
    with pytest.raises(DataError) as caught:
        read_task(path)
    message = str(caught.value)
    assert words in message
    assert message.startswith(f"{path}:{line}:" if line else f"{path}")


def test_a_bad_game_file_is_an_error_naming_its_file_and_line(checkout):
    path = checkout / "catalog" / "games" / "90_beacon.yaml"
    text = path.read_text()
    path.write_text(text.replace("allow_clicks: true", "allow_clicks: 3"))
    with pytest.raises(DataError, match=rf"^{path}:\d+: allow_clicks must be true or false"):
        read_game(path)
    path.write_text(text.replace("game_name: 90_beacon", "game_name: 2048"))
    with pytest.raises(DataError, match=rf"^{path}:2: game_name '2048' does not match"):
        read_game(path)
    path.write_text(
        text.replace(
            "        description: Do nothing.\n", "        description: Do nothing.\n        action: wait\n", 1
        )
    )
    with pytest.raises(DataError, match="'action' is no longer read by GameWorld"):
        read_game(path)


def test_the_url_suffix_is_appended_as_the_launcher_does():
    """env/game_launcher.py append_url_suffix: `#` as is; `?a=b`, `&a=b` or `a=b` as a query; else appended."""
    base = "http://127.0.0.1:8101/index.html"
    assert append_url_suffix(base, "#infinite/1") == base + "#infinite/1"
    assert append_url_suffix(base, "?level=2") == base + "?level=2"
    assert append_url_suffix(base + "?a=1", "&level=2") == base + "?a=1&level=2"
    assert append_url_suffix(base, "level=3") == base + "?level=3"
    assert append_url_suffix(base, None) == base


# -- the action spaces

ROLE = Role(
    "player",
    RoleControls(("ArrowUp", "ArrowDown", "a", "Space"), 0.2, {"ArrowUp": 0.5}, True),
    (
        SemanticControl("move_up", "", {"action": "press_key", "key": "ArrowUp"}),
        SemanticControl("wait", "", {"action": "wait", "duration": 1.0}),
        SemanticControl(
            "reveal",
            "",
            {"action": "click", "cell_param": True, "cell_bindings": {"a1": {"x": 10, "y": 20}}},
            required=("cell",),
        ),
    ),
)
KEYS_ONLY = Role("p2", RoleControls(("d",), 0.2, {}, False), ())


def test_keys_are_named_as_the_executor_names_them_and_limited_to_the_roles():
    """action_executor.py KEY_ALIASES (`up` -> ArrowUp, `spacebar` -> Space); one character lower-cased."""
    assert key_name("up") == "ArrowUp" and key_name("SPACEBAR") == "Space" and key_name("A") == "a"
    assert check_action({"action": "press_key", "key": "up"}, ROLE, SCREEN)["key"] == "ArrowUp"
    with pytest.raises(
        InvalidAction, match="key ArrowLeft is not allowed; this role's keys: ArrowUp, ArrowDown, a, Space"
    ):
        check_action({"action": "press_key", "key": "ArrowLeft"}, ROLE, SCREEN)


def test_a_key_holds_for_its_own_duration_else_the_roles_hold():
    """`if key in self.key_durations: return self.key_durations[key]`; press_keys: the largest override."""
    assert check_action({"action": "press_key", "key": "ArrowUp"}, ROLE, SCREEN)["duration"] == 0.5
    assert check_action({"action": "press_key", "key": "a"}, ROLE, SCREEN)["duration"] == 0.2
    both = check_action({"action": "press_keys", "keys": ["a", "ArrowUp"]}, ROLE, SCREEN)
    assert both["keys"] == ["a", "ArrowUp"] and both["duration"] == 0.5
    combo = check_action({"action": "press_key", "key": "a+space"}, ROLE, SCREEN)  # split as the executor splits
    assert combo["action"] == "press_keys" and combo["keys"] == ["a", "Space"]
    assert check_action({"action": "press_key", "key": "a", "duration": 1.5}, ROLE, SCREEN)["duration"] == 1.5


def test_mouse_actions_only_where_the_role_allows_clicks_and_on_the_screen():
    with pytest.raises(InvalidAction, match="may not use the mouse"):
        check_action({"action": "click", "x": 5, "y": 5}, KEYS_ONLY, SCREEN)
    with pytest.raises(InvalidAction, match="off the 480x360 screen"):
        check_action({"action": "click", "x": 480, "y": 5}, ROLE, SCREEN)
    click = check_action({"action": "click", "x": 5, "y": 6, "button": "Right"}, ROLE, SCREEN)
    assert click == {"action": "click", "x": 5.0, "y": 6.0, "button": "right", "duration": 0.2}
    # mouse_move is not a mouse action in the executor's sense: allowed without clicks
    assert check_action({"action": "mouse_move", "x": 1, "y": 2}, KEYS_ONLY, SCREEN)["action"] == "mouse_move"


def test_durations_and_malformed_actions_are_refused():
    with pytest.raises(InvalidAction, match="longer than the 5 s"):
        check_action({"action": "wait", "duration": 60}, ROLE, SCREEN)
    with pytest.raises(InvalidAction) as caught:
        check_action({"action": "fly"}, ROLE, SCREEN)
    assert caught.value.kind == "out_of_space"
    with pytest.raises(InvalidAction) as caught:
        check_action({}, ROLE, SCREEN)
    assert caught.value.kind == "no_function_call"
    assert check_action({"action": "wait"}, ROLE, SCREEN) == {"action": "wait", "duration": 0.2}


def test_typing_sends_only_the_roles_keys():
    assert check_action({"action": "type", "text": "aa"}, ROLE, SCREEN)["duration"] == 1.0
    with pytest.raises(InvalidAction, match="b, Enter not among"):
        check_action({"action": "type", "text": "ab", "press_enter": True}, ROLE, SCREEN)


def test_a_semantic_control_is_its_binding_with_the_calls_arguments():
    """semantic_controls.py: `_merge_runtime_arguments` (keys the binding does not set) and `_apply_cell_binding`
    (`cell_bindings.get(cell)` -> x, y)."""
    assert semantic_action("move_up", {"reasoning": "go"}, ROLE) == {"action": "press_key", "key": "ArrowUp"}
    assert semantic_action("wait", {"duration": 0.1}, ROLE) == {"action": "wait", "duration": 1.0}  # binding wins
    clicked = semantic_action("reveal", {"cell": "A1"}, ROLE)
    assert clicked == {"action": "click", "x": 10, "y": 20}
    with pytest.raises(InvalidAction, match="reveal needs a cell"):
        semantic_action("reveal", {"cell": "z9"}, ROLE)
    with pytest.raises(InvalidAction, match="no control 'jump'; this role's controls: move_up, wait, reveal"):
        semantic_action("jump", {}, ROLE)


def test_actions_compile_into_inputs_on_the_games_clock_in_the_executors_order():
    """The executor: press_key = `keyboard.down`, sleep(hold), `keyboard.up`; press_keys releases in reverse; drag
    moves in `steps` equal parts over its duration; a click here holds for one frame before its wait."""
    key = check_action({"action": "press_key", "key": "ArrowUp"}, ROLE, SCREEN)
    assert compile_action(key) == [("key_down", "ArrowUp"), ("advance", 500.0), ("key_up", "ArrowUp")]
    keys = compile_action(check_action({"action": "press_keys", "keys": "a+Space", "duration": 0.1}, ROLE, SCREEN))
    assert keys == [("key_down", "a"), ("key_down", "Space"), ("advance", 100.0), ("key_up", "Space"), ("key_up", "a")]
    click = compile_action(check_action({"action": "click", "x": 10, "y": 20}, ROLE, SCREEN))
    assert click == [
        ("move", 10.0, 20.0),
        ("mouse_down", "left"),
        ("advance", FRAME_MS),
        ("mouse_up", "left"),
        ("advance", pytest.approx(200 - FRAME_MS)),
    ]
    drag = compile_action(
        check_action(
            {"action": "drag", "x1": 0, "y1": 0, "x2": 40, "y2": 20, "steps": 2, "duration": 0.2}, ROLE, SCREEN
        )
    )
    assert drag == [
        ("move", 0.0, 0.0),
        ("mouse_down", "left"),
        ("move", 20.0, 10.0),
        ("advance", 100.0),
        ("move", 40.0, 20.0),
        ("advance", 100.0),
        ("mouse_up", "left"),
    ]
    typed = compile_action(check_action({"action": "type", "text": "a", "press_enter": False}, ROLE, SCREEN))
    assert typed[:3] == [("key_down", "a"), ("advance", FRAME_MS), ("key_up", "a")]
    assert sum(step[1] for step in typed if step[0] == "advance") == pytest.approx(1000.0)
