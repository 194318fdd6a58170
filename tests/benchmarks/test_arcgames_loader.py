"""Reading a games directory: both layouts, the newest version, pins, bad metadata, the recorded versions."""

import json

import pytest

from agent_eval.benchmarks.arcgames.loader import is_games_dataset, load_games
from agent_eval.datamodel.jsonl import DataError


def write_game(root, game, version, baselines=(3, 4), when="2026-01-01T00:00:00Z", source="class Fk01: pass\n"):
    folder = root / game / version
    folder.mkdir(parents=True)
    meta = {"game_id": f"{game}-{version}", "title": game.upper(), "date_downloaded": when, "class_name": "Fk01"}
    if baselines is not None:
        meta["baseline_actions"] = list(baselines)
    (folder / "metadata.json").write_text(json.dumps(meta))
    (folder / "fk01.py").write_text(source)
    return folder


def test_detects_the_layout_itself_or_under_environment_files(tmp_path):
    write_game(tmp_path / "a", "fk01", "v1")
    write_game(tmp_path / "b" / "environment_files", "fk01", "v1")
    assert is_games_dataset(tmp_path / "a") and is_games_dataset(tmp_path / "b")
    assert not is_games_dataset(tmp_path) and not is_games_dataset(tmp_path / "nothing")
    assert load_games(tmp_path / "b").root == tmp_path / "b" / "environment_files"


def test_newest_version_unless_pinned(tmp_path):
    write_game(tmp_path, "fk01", "old", when="2026-01-01T00:00:00Z")
    write_game(tmp_path, "fk01", "new", when="2026-03-01T00:00:00Z", baselines=(5,))
    write_game(tmp_path, "fk02", "v1")
    dataset = load_games(tmp_path)
    assert [(i.id, i.version) for i in dataset.items] == [("fk01", "new"), ("fk02", "v1")]
    assert "fk01@old" in dataset.tasks and "fk01" in dataset.tasks
    hash_new = dataset.content_hash()
    assert dataset.pin(["fk01@old", "fk02"]) == ["fk01", "fk02"]
    assert [(i.id, i.version) for i in dataset.items] == [("fk01", "old"), ("fk02", "v1")]
    assert dataset.content_hash() != hash_new
    assert dataset.versions()["fk01"]["baseline_actions"] == [3, 4]
    with pytest.raises(DataError, match="unknown game version 'fk01@nope'.*fk01@old"):
        dataset.pin(["fk01@nope"])


def test_a_changed_game_file_changes_the_hash(tmp_path):
    folder = write_game(tmp_path, "fk01", "v1")
    before = load_games(tmp_path).content_hash()
    (folder / "fk01.py").write_text("class Fk01: level = 2\n")
    assert load_games(tmp_path).content_hash() != before


def test_missing_baselines_load_as_none(tmp_path):
    write_game(tmp_path, "fk01", "v1", baselines=None)
    assert load_games(tmp_path).items[0].baseline_actions is None


@pytest.mark.parametrize(
    "text,message",
    [
        ("{not json", "not readable JSON"),
        ("[1]", "JSON object"),
        ('{"baseline_actions": [0]}', "positive integers"),
        ('{"game_id": "zz99-v1"}', "does not match its folder"),
    ],
)
def test_bad_metadata_names_the_file(tmp_path, text, message):
    folder = write_game(tmp_path, "fk01", "v1")
    (folder / "metadata.json").write_text(text)
    with pytest.raises(DataError, match=message) as caught:
        load_games(tmp_path)
    assert str(folder / "metadata.json") in str(caught.value)


def test_no_games_says_how_to_get_some(tmp_path):
    with pytest.raises(DataError, match="sample-data DIR --kind arcgames"):
        load_games(tmp_path)


def test_tasks_pick_games_and_pin_versions_through_select(tmp_path):
    from agent_eval.engine.selection import select

    write_game(tmp_path, "fk01", "old", when="2026-01-01T00:00:00Z")
    write_game(tmp_path, "fk01", "new", when="2026-03-01T00:00:00Z")
    write_game(tmp_path, "fk02", "v1")
    assert [(i.id, i.version) for i in select(load_games(tmp_path), tasks="fk01@old")] == [("fk01", "old")]
    assert [i.id for i in select(load_games(tmp_path), tasks="fk02")] == ["fk02"]
    with pytest.raises(DataError, match="unknown task.*nope"):
        select(load_games(tmp_path), tasks="nope")
