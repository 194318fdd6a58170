import json

import pytest

from agent_eval.benchmarks.activevision.loader import load_dataset
from agent_eval.datamodel.jsonl import DataError
from agent_eval.engine.selection import select
from support.datasets import write_manifest_layout, write_metadata_layout


def test_loads_the_real_bank_in_both_layouts(tmp_path, bank):
    a = load_dataset(write_metadata_layout(tmp_path / "a", bank))
    b = load_dataset(write_manifest_layout(tmp_path / "b", bank))
    assert a.layout == "metadata.jsonl" and b.layout == "manifest.json"
    assert len(a.items) == len(b.items) == 85
    assert len(a.tasks) == 17 and len(a.categories) == 3
    assert [i.answer for i in a.items] == [i.answer for i in b.items]
    assert a.items[0].image.is_file() and b.items[0].image.parent.name == "images"
    assert a.content_hash() == b.content_hash()


def test_manifest_with_items_key_and_image_paths(tmp_path, bank):
    root = write_manifest_layout(tmp_path / "m", bank[:3])
    records = json.loads((root / "manifest.json").read_text())
    for record in records:
        record["image"] = "images/" + record["image"]
    (root / "manifest.json").write_text(json.dumps({"items": records}))
    assert len(load_dataset(root).items) == 3


def test_filters(bank_dataset):
    dataset = load_dataset(bank_dataset)
    assert {i.task for i in select(dataset, tasks="maze_path_tracing,region_counting")} == {
        "maze_path_tracing",
        "region_counting",
    }
    assert [i.id for i in select(dataset, ids="ACF-0,MPT-3")] == ["ACF-0", "MPT-3"]
    assert len(select(dataset, limit=2)) == 34
    assert {i.category for i in select(dataset, categories="sequential_traversal")} == {"sequential_traversal"}
    assert len(select(dataset, categories="sequential_traversal", limit=1)) == 5


def test_content_hash_changes_with_answers(tmp_path, bank):
    a = load_dataset(write_metadata_layout(tmp_path / "a", bank[:5]))
    changed = [dict(r) for r in bank[:5]]
    changed[0]["answer"] = "Z"
    b = load_dataset(write_metadata_layout(tmp_path / "b", changed))
    assert a.content_hash() != b.content_hash()


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"tasks": "nope"}, "unknown task(s) nope; valid: arrow_chain_following"),
        ({"ids": "ACF-0,XX-9"}, "unknown id(s) XX-9"),
        ({"categories": "vibes"}, "unknown category(s) vibes; valid: distributed_scanning"),
        ({"limit": 0}, "--limit must be at least 1"),
    ],
)
def test_bad_filters(bank_dataset, kwargs, message):
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
        select(load_dataset(bank_dataset), **kwargs)


def test_missing_image_names_id_and_path(bank_dataset):
    (bank_dataset / "MPT-2.png").unlink()
    with pytest.raises(DataError, match=r"item MPT-2: image .*MPT-2.png is missing"):
        load_dataset(bank_dataset)


def test_empty_and_corrupt_images(bank_dataset):
    (bank_dataset / "ACF-1.png").write_bytes(b"")
    with pytest.raises(DataError, match=r"item ACF-1: image .* is empty \(0 bytes\)"):
        load_dataset(bank_dataset)
    (bank_dataset / "ACF-1.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    with pytest.raises(DataError, match=r"item ACF-1: image .* is not a readable image"):
        load_dataset(bank_dataset)


def test_duplicate_id(bank_dataset):
    lines = (bank_dataset / "metadata.jsonl").read_text().splitlines()
    (bank_dataset / "metadata.jsonl").write_text("\n".join(lines + [lines[3]]) + "\n")
    with pytest.raises(DataError, match=r"metadata.jsonl:86: duplicate id 'ACF-3' \(first at .*metadata.jsonl:4\)"):
        load_dataset(bank_dataset)


def test_malformed_json_names_file_and_line(bank_dataset):
    lines = (bank_dataset / "metadata.jsonl").read_text().splitlines()
    lines[6] = lines[6][:-5]
    (bank_dataset / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"metadata.jsonl:7: malformed JSON"):
        load_dataset(bank_dataset)


def test_missing_field_and_no_layout(tmp_path, bank):
    root = write_metadata_layout(tmp_path / "d", bank[:2])
    rows = [json.loads(line) for line in (root / "metadata.jsonl").read_text().splitlines()]
    del rows[1]["answer"]
    (root / "metadata.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(DataError, match=r"metadata.jsonl:2: missing field\(s\) answer"):
        load_dataset(root)
    with pytest.raises(DataError, match="no metadata.jsonl or manifest.json"):
        load_dataset(tmp_path)
    with pytest.raises(DataError, match="does not exist"):
        load_dataset(tmp_path / "absent")
