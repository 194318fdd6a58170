"""Active observation: geometry, rendering and ground truth, grading, data, the observe server."""

from __future__ import annotations

import base64
import json
import time

import anyio
import numpy as np
import pytest

from agent_eval.benchmarks.activeobs import geometry as g
from agent_eval.benchmarks.activeobs.generate import generate_dataset
from agent_eval.benchmarks.activeobs.grading import Rules, answer_correct, grade_active, rollup_active
from agent_eval.benchmarks.activeobs.loader import load_active_dataset
from agent_eval.benchmarks.activeobs.observe_server import ObservationServer
from agent_eval.benchmarks.activeobs.passive import sample_frames, write_passive_sample
from agent_eval.benchmarks.activeobs.prompting import answer_instructions
from agent_eval.benchmarks.activeobs.render import person_box, png_bytes, render_panorama, render_view
from agent_eval.benchmarks.activeobs.scene import Scene, load_scene
from agent_eval.benchmarks.activeobs.schema import ActiveItem, item_to_row
from agent_eval.datamodel.itemdir import ItemDir
from agent_eval.datamodel.jsonl import DataError
from agent_eval.engine.selection import select
from support.activeobs import seam_scene

W, H = g.PANO_WIDTH, g.PANO_HEIGHT


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return generate_dataset(tmp_path_factory.mktemp("activeobs"), sequences=2, n_frames=240, per_family=2, seed=3)


# --- geometry ---------------------------------------------------------------------------------


@pytest.mark.parametrize("angle, wrapped", [(0, 0), (360, 0), (-10, 350), (725, 5), (-1e-17, 0), (359.5, 359.5)])
def test_wrap_angle(angle, wrapped):
    assert g.wrap_angle(angle) == pytest.approx(wrapped) and 0 <= g.wrap_angle(angle) < 360


@pytest.mark.parametrize("a, b, error", [(350, 10, 20), (10, 350, 20), (0, 180, 180), (-90, 270, 0), (5, 725, 0)])
def test_angle_error_wraps(a, b, error):
    assert g.angle_error(a, b) == pytest.approx(error)


def test_view_spans_and_the_seam():
    middle = g.view_span(180)
    assert (middle.x0, middle.x1, middle.wraps) == (1640, 2120, False) and middle.pieces() == [(1640, 2120)]
    seam = g.view_span(0)
    assert (seam.x0, seam.wraps) == (W - 240, True)
    assert seam.pieces() == [(W - 240, W), (0, 240)]
    assert seam.columns()[:2] == [W - 240, W - 239] and seam.columns()[239:241] == [W - 1, 0]
    assert g.view_span(360).x0 == seam.x0 == g.view_span(-720).x0
    assert seam.describe() == {"x_start": W - 240, "x_end": 240, "wraps_seam": True, "pieces": [[W - 240, W], [0, 240]]}


def test_box_mapping_round_trip_including_the_seam():
    # A box straddling the seam in the view centred on 0°: columns 192..288 of the view.
    pano = g.view_box_to_pano((400, 100, 600, 900), 0)
    assert pano == pytest.approx((W - 48, 48, W + 48, 432))
    assert g.pano_box_to_view(pano, 0) == pytest.approx((192, 48, 288, 432))
    assert g.view_px_to_norm(g.pano_box_to_view(pano, 0)) == pytest.approx((400, 100, 600, 900))
    # The same box seen from 10° is shifted right by round(10 * W / 360) columns.
    shift = round(10 * W / 360)
    assert g.pano_box_to_view(pano, -10) == pytest.approx((192 + shift, 48, 288 + shift, 432))
    # A box on the other side of the circle is not in view; a half-visible one is clipped.
    assert g.pano_box_to_view((1800, 0, 1900, 100), 0) is None
    assert g.pano_box_to_view((200, 0, 300, 100), 0) == pytest.approx((440, 0, 480, 100))
    assert g.pano_box_to_view((200, 0, 300, 100), 0, clip=False) == pytest.approx((440, 0, 540, 100))
    # Reversed corners are sorted; a box starting past the seam is canonicalised.
    assert g.view_box_to_pano((600, 900, 400, 100), 0) == pytest.approx(pano)
    assert g.canonical_box((W + 10, 0, W + 50, 5)) == (10, 0, 50, 5)
    assert g.canonical_box((-40, 0, 10, 5)) == (W - 40, 0, W + 10, 5)


def test_circular_iou():
    assert g.circular_iou((W - 60, 0, W + 40, 100), (-60, 0, 40, 100)) == pytest.approx(1.0)
    assert g.circular_iou((W - 10, 0, W + 30, 10), (0, 0, 30, 10)) == pytest.approx(0.75)
    assert g.circular_iou((0, 0, 10, 10), (20, 0, 30, 10)) == 0
    assert g.circular_iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(1 / 3)
    assert g.circular_iou((0, 0, 0, 10), (0, 0, 10, 10)) == 0  # degenerate box
    assert g.interval_iou((100, 199), (100, 166)) == pytest.approx(0.67)
    assert g.interval_iou((199, 100), (100, 199)) == 1.0


# --- rendering and ground truth ------------------------------------------------------------------


def test_views_are_columns_of_the_panorama_across_the_seam():
    scene = seam_scene()
    for frame, angle in ((0, 0.0), (20, 355.0), (45, 5.0), (10, 180.0), (59, 359.9)):
        pano = np.asarray(render_panorama(scene, frame))
        view = np.asarray(render_view(scene, frame, angle))
        assert view.shape == (H, H, 3)
        assert np.array_equal(view, pano[:, g.view_span(angle).columns()]), (frame, angle)


def _diff_box(scene: Scene, frame: int, person_id: str):
    """Where the person's pixels are: with and without them rendered, independently of the box
    arithmetic. Columns are unrolled around the seam when the figure straddles it."""
    full = np.asarray(render_panorama(scene, frame)).astype(int)
    empty = np.asarray(render_panorama(scene, frame, without=person_id)).astype(int)
    mask = np.abs(full - empty).sum(axis=2) > 0
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    if cols.size and cols[0] == 0 and cols[-1] == scene.width - 1:  # straddles the seam
        gap = np.argmax(np.diff(cols))
        cols = np.concatenate([cols[gap + 1 :], cols[: gap + 1] + scene.width])
    return mask, (cols.min(), rows.min(), cols.max() + 1, rows.max() + 1)


def test_person_box_matches_the_rendered_pixels_including_the_seam():
    scene = seam_scene()
    for frame in (0, 30, 59):
        for person in scene.people:
            _, drawn = _diff_box(scene, frame, person.id)
            box = person_box(scene, person, frame)
            assert g.circular_iou(box, drawn) > 0.95, (frame, person.id, box, drawn)
            for got, want in zip(g.canonical_box(drawn), box):
                assert abs(got - want) <= 1.5
    walker = scene.person("p1")
    assert person_box(scene, walker, 30)[2] > W  # at 360° the figure straddles the seam


def test_generated_evidence_boxes_contain_the_figure(dataset):
    for item in dataset.items:
        scene = dataset.scene(item.sequence)
        frames = sorted(item.boxes)
        for frame in (frames[0], frames[len(frames) // 2], frames[-1]):
            mask, drawn = _diff_box(scene, frame, item.track)
            assert mask.sum() > 200, (item.id, frame)
            assert g.circular_iou(item.boxes[frame], drawn) > 0.9, (item.id, frame, item.boxes[frame], drawn)


def _centre_angle(box) -> float:
    return g.x_to_angle((box[0] + box[2]) / 2)


def test_generated_answers_by_an_independent_route(dataset):
    """Angles from rendered pixels, not from the scene's paths."""
    checked = set()
    for item in dataset.items:
        scene = dataset.scene(item.sequence)
        if item.family == "frame_viewpoint":
            frame, angle = item.answer
            _, drawn = _diff_box(scene, frame, item.track)
            assert g.angle_error(_centre_angle(drawn), angle) < 1.5, item.id
            checked.add(item.family)
        if item.family == "chain":
            frame, anchor = item.meta["frame"], item.meta["anchor"]
            centres = {p.id: _centre_angle(_diff_box(scene, frame, p.id)[1]) for p in scene.people}
            left = min((p for p in centres if p != anchor), key=lambda p: g.wrap_angle(centres[anchor] - centres[p]))
            assert left == item.track, item.id
            checked.add(item.family)
        if item.family in ("unique_anchor", "chain"):
            person = scene.person(item.track)
            asked = item.meta.get("query_frame", item.meta.get("frame"))
            assert item.choices[item.answer - 1].startswith(person.action_at(asked)[:5]), item.id
    assert checked == {"frame_viewpoint", "chain"}


def test_generation_is_deterministic(tmp_path):
    a = generate_dataset(tmp_path / "a", sequences=1, n_frames=150, seed=11)
    b = generate_dataset(tmp_path / "b", sequences=1, n_frames=150, seed=11)
    c = generate_dataset(tmp_path / "c", sequences=1, n_frames=150, seed=12)
    assert (a.root / "items.jsonl").read_bytes() == (b.root / "items.jsonl").read_bytes()
    assert (a.root / "scenes/seq00.json").read_bytes() == (b.root / "scenes/seq00.json").read_bytes()
    assert (a.root / "items.jsonl").read_bytes() != (c.root / "items.jsonl").read_bytes()
    assert a.content_hash() == b.content_hash() != c.content_hash()
    scene = a.scene("seq00")
    assert png_bytes(render_view(scene, 77, 123.4)) == png_bytes(
        render_view(load_scene(b.scene_path("seq00")), 77, 123.4)
    )
    assert {i.family for i in a.items} == {"unique_anchor", "action_boundary", "chain", "frame_viewpoint", "numeric"}
    assert {i.answer_mode for i in a.items} == {"choice", "frame", "span", "frame_angle", "numeric"}


def test_every_generated_sequence_crosses_the_seam(dataset):
    for sequence in {item.sequence for item in dataset.items}:
        scene = dataset.scene(sequence)
        boxes = [person_box(scene, p, f) for p in scene.people for f in range(0, scene.n_frames, 5)]
        assert any(b[0] > W - 400 or b[2] > W for b in boxes)


def test_a_view_renders_fast(dataset):
    scene = dataset.scene(dataset.items[0].sequence)
    render_view(scene, 0, 0)  # background cached once per scene
    started = time.process_time()  # CPU, not wall: the render's cost, not how busy other test workers keep the cores
    for step in range(10):
        png_bytes(render_view(scene, step * 20, step * 37.0))
    assert (time.process_time() - started) / 10 < 0.1


# --- grading -----------------------------------------------------------------------------------


def make_item(mode: str, answer, boxes=None, fps=15.0, choices=None) -> ActiveItem:
    return ActiveItem(
        id="x",
        sequence="s",
        family=f"fam_{mode}",
        question="?",
        answer_mode=mode,
        answer=answer,
        track="p1",
        boxes=boxes or {100: (1000.0, 100.0, 1096.0, 400.0)},
        fps=fps,
        n_frames=300,
        choices=choices,
    )


@pytest.mark.parametrize(
    "mode, truth, prediction, correct",
    [
        ("choice", 2, 2, True),
        ("choice", 2, "2", True),
        ("choice", 2, 2.0, True),
        ("choice", 2, 3, False),
        ("choice", 1, True, False),
        ("choice", 2, "standing", False),
        ("choice", 2, None, False),
        ("frame", 100, 115, True),
        ("frame", 100, 85, True),
        ("frame", 100, 116, False),
        ("frame", 100, 84, False),
        ("frame", 100, "110", True),
        ("frame", 100, [100], False),
        ("span", [100, 199], [100, 166], True),
        ("span", [100, 199], [150, 249], False),
        ("span", [100, 199], [199, 100], True),
        ("span", [100, 199], {"start": 110, "end": 200}, True),
        ("span", [100, 199], [100], False),
        ("span", [100, 199], 150, False),
        ("frame_angle", [100, 350.0], [110, 10], True),
        ("frame_angle", [100, 350.0], [110, 11], False),
        ("frame_angle", [100, 350.0], [116, 350], False),
        ("frame_angle", [100, 350.0], [85, -10], True),
        ("frame_angle", [100, 350.0], {"frame": 100, "angle": 340}, True),
        ("frame_angle", [100, 350.0], [100], False),
        ("numeric", 4.0, 2.0, True),
        ("numeric", 4.0, 8.0, True),
        ("numeric", 4.0, 1.99, False),
        ("numeric", 4.0, 8.01, False),
        ("numeric", 4.0, 0, False),
        ("numeric", 4.0, -4, False),
        ("numeric", 4.0, "4", True),
        ("numeric", 4.0, float("nan"), False),
    ],
)
def test_answer_modes(mode, truth, prediction, correct):
    assert answer_correct(mode, prediction, truth, fps=15.0) is correct


def test_time_tolerance_follows_fps_and_rules():
    assert answer_correct("frame", 30, 31, fps=1.0) is True and answer_correct("frame", 30, 32, fps=1.0) is False
    assert answer_correct("frame", 100, 125, fps=15.0, rules=Rules(time_tolerance_s=2.0)) is True


def answer_text(answer, frame=100, angle=None, bbox=None, item=None) -> str:
    evidence = {"frame": frame, "angle": angle, "bbox": bbox}
    return f"Looked around.\n<answer>{json.dumps({'answer': answer, 'evidence': evidence})}</answer>"


def exact_evidence(box, angle):
    """The view box (0-1000) that maps exactly onto a panorama box."""
    return list(g.view_px_to_norm(g.pano_box_to_view(box, angle, clip=False)))


def test_evidence_rule_and_its_edges():
    box = (1000.0, 100.0, 1096.0, 400.0)
    item = make_item("choice", 2, boxes={100: box}, choices=["a", "b"])
    angle = g.x_to_angle(1048)
    bbox = exact_evidence(box, angle)
    right = grade_active(answer_text(2, 100, angle, bbox), item)
    assert (right.answer_correct, right.evidence_correct, right.combined, right.status) == (True, True, True, "ok")
    assert right.detail["evidence_iou"] == pytest.approx(1.0)
    # The listed frames are the window: no time tolerance around them.
    assert grade_active(answer_text(2, 100.0, angle, bbox), item).evidence_correct
    for frame in (99, 101, 100.5, 115):
        late = grade_active(answer_text(2, frame, angle, bbox), item)
        assert not late.evidence_correct, frame
        assert late.detail["evidence_error"] == f"frame {frame:g} is outside the evidence window (frames 100)"
    # IoU threshold: a box shifted by a third of its width has IoU 0.5 exactly.
    shifted = [bbox[0] + (bbox[2] - bbox[0]) / 3, bbox[1], bbox[2] + (bbox[2] - bbox[0]) / 3, bbox[3]]
    half = grade_active(answer_text(2, 100, angle, shifted), item)
    assert half.detail["evidence_iou"] == pytest.approx(0.5, abs=1e-3) and half.evidence_correct
    assert not grade_active(answer_text(2, 100, angle, shifted), item, Rules(evidence_iou=0.6)).evidence_correct
    # Right box, wrong view: the same numbers seen from another angle point elsewhere.
    assert not grade_active(answer_text(2, 100, angle + 20, bbox), item).evidence_correct
    # Wrong answer, right evidence: combined is false.
    wrong = grade_active(answer_text(1, 100, angle, bbox), item)
    assert (wrong.answer_correct, wrong.evidence_correct, wrong.combined) == (False, True, False)


def test_evidence_across_the_seam():
    box = (W - 40.0, 150.0, W + 50.0, 420.0)
    item = make_item("frame", 100, boxes={100: box, 101: box})
    for angle in (0.0, 359.0, 2.0, -3.0):
        bbox = exact_evidence(box, angle)
        grade = grade_active(answer_text(100, 101, angle, bbox), item)
        assert grade.evidence_correct and grade.detail["evidence_iou"] > 0.99, angle


@pytest.mark.parametrize(
    "evidence, why",
    [
        (None, "no evidence object"),
        ({"frame": 100, "angle": 10}, "bbox"),
        ({"frame": "x", "angle": 10, "bbox": [0, 0, 1, 1]}, "numeric"),
        ({"frame": 100, "angle": 10, "bbox": [0, 0, 1]}, "bbox"),
        ({"frame": 100, "angle": 10, "bbox": [0, 0, "a", 1]}, "bbox"),
    ],
)
def test_bad_evidence_leaves_the_answer_graded(evidence, why):
    item = make_item("numeric", 4.0)
    grade = grade_active(f"<answer>{json.dumps({'answer': 4, 'evidence': evidence})}</answer>", item)
    assert grade.status == "ok" and grade.answer_correct and not grade.evidence_correct and not grade.combined
    assert why in grade.detail["evidence_error"]


@pytest.mark.parametrize(
    "text, tagged",
    [
        ('<answer>{"answer": 4, </answer>', True),
        ("<answer>4</answer>", True),
        ("<answer>[4]</answer>", True),
        ('<answer>{"evidence": {}}</answer>', True),
        ("The answer is 4.", False),
        ("", False),
        (None, False),
    ],
)
def test_malformed_answers_are_no_answer_with_raw_kept(text, tagged):
    grade = grade_active(text, make_item("numeric", 4.0))
    assert (grade.status, grade.answer_correct, grade.evidence_correct, grade.combined) == (
        "no_answer",
        False,
        False,
        False,
    )
    assert grade.has_answer_tag is tagged and grade.prediction is None and grade.detail["parse_error"]
    assert grade.raw == (text[len("<answer>") : -len("</answer>")].strip() if tagged else (text or ""))


def test_last_tag_wins_and_code_fences_are_tolerated():
    item = make_item("numeric", 4.0)
    text = '<answer>{"answer": 100}</answer> on second thought\n<ANSWER>\n```json\n{"answer": 4.5}\n```\n</ANSWER>'
    grade = grade_active(text, item)
    assert grade.status == "ok" and grade.prediction == 4.5 and grade.answer_correct


def test_rollup_per_family_with_hallucination_rate():
    records = (
        [{"family": "chain", "answer_correct": True, "evidence_correct": True, "status": "ok"}] * 2
        + [{"family": "chain", "answer_correct": True, "evidence_correct": False, "status": "ok"}] * 2
        + [{"family": "chain", "answer_correct": False, "evidence_correct": True, "status": "ok"}]
        + [{"family": "numeric", "answer_correct": False, "evidence_correct": False, "status": "no_answer"}]
    )
    rollup = rollup_active(records)
    chain = rollup["families"]["chain"]
    assert (chain["n"], chain["answer_acc"], chain["evidence_acc"], chain["combined_acc"]) == (5, 0.8, 0.6, 0.4)
    assert chain["hallucination_rate"] == 0.5
    numeric = rollup["families"]["numeric"]
    assert numeric["hallucination_rate"] is None and numeric["no_answer"] == 1 and numeric["answer_acc"] == 0
    assert rollup["overall"]["n"] == 6 and rollup["overall"]["hallucination_rate"] == 0.5

    class Record:  # objects work too; `category` stands in for `family`
        def __init__(self, category, answer_correct, evidence_correct):
            self.category, self.answer_correct, self.evidence_correct, self.status = (
                category,
                answer_correct,
                evidence_correct,
                "ok",
            )

    assert rollup_active([Record("x", True, False)])["families"]["x"]["hallucination_rate"] == 1.0


def test_generated_truth_grades_as_correct(dataset):
    """The truth itself, with evidence read off the target box, scores on every item."""
    for item in dataset.items:
        frame, box = next(iter(sorted(item.boxes.items())))
        angle = _centre_angle(box)
        grade = grade_active(answer_text(item.answer, frame, angle, exact_evidence(box, angle)), item)
        assert grade.combined, (item.id, grade)
        assert "<answer>" in answer_instructions(item) and "0-1000" in answer_instructions(item, passive=True)


# --- data ---------------------------------------------------------------------------------------


def _rows(dataset) -> list[dict]:
    return [json.loads(line) for line in (dataset.root / "items.jsonl").read_text().splitlines()]


def _write(root, rows):
    (root / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda r: r.pop("answer_mode"), "items.jsonl:1: missing field(s) answer_mode"),
        (lambda r: r.update(answer_mode="guess"), "answer_mode 'guess' is not one of"),
        (lambda r: r.update(sequence="nope"), "scene file"),
        (lambda r: r.update(fps=30), "differ from the scene's"),
        (lambda r: r.update(evidence={"track": "p99", "boxes": r["evidence"]["boxes"]}), "evidence track 'p99'"),
        (
            lambda r: r.update(evidence={"track": "p1", "boxes": [[0, 5000, 0, 5010, 10]]}),
            "not a canonical panorama box",
        ),
        (lambda r: r.update(evidence={"track": "p1", "boxes": [[9999, 0, 0, 10, 10]]}), "evidence frame 9999"),
        (lambda r: r.update(answer_mode="choice", choices=None), 'needs "choices"'),
        (lambda r: r.update(answer_mode="numeric", answer=-1, choices=None), "must be positive"),
        (lambda r: r.update(answer_mode="span", answer=[5, 2], choices=None), "0 <= first <= last"),
    ],
)
def test_loader_errors_name_file_line_and_fix(dataset, tmp_path, edit, message):
    import shutil

    root = tmp_path / "data"
    shutil.copytree(dataset.root, root)
    rows = _rows(dataset)
    edit(rows[0])
    if rows[0].get("choices") is None:
        rows[0].pop("choices", None)
    _write(root, rows)
    with pytest.raises(DataError) as caught:
        load_active_dataset(root)
    text = str(caught.value)
    assert message in text and "\n" not in text and str(root) in text


def test_loader_other_errors(dataset, tmp_path):
    import shutil

    with pytest.raises(DataError, match="not found; generate a dataset"):
        load_active_dataset(tmp_path / "missing")
    root = tmp_path / "data"
    shutil.copytree(dataset.root, root)
    rows = _rows(dataset)
    (root / "items.jsonl").write_text(json.dumps(rows[0]) + "\n{oops\n")
    with pytest.raises(DataError, match=r"items.jsonl:2: malformed JSON"):
        load_active_dataset(root)
    _write(root, [rows[0], rows[0]])
    with pytest.raises(DataError, match="duplicate id"):
        load_active_dataset(root)
    _write(root, rows)
    scene = root / "scenes" / f"{rows[0]['sequence']}.json"
    data = json.loads(scene.read_text())
    data["people"][0]["segments"][0]["action"] = "dancing"
    scene.write_text(json.dumps(data))
    with pytest.raises(DataError, match="action 'dancing' is not one of"):
        load_active_dataset(root)
    scene.write_text("{")
    with pytest.raises(DataError, match="malformed JSON at line 1"):
        load_active_dataset(root)
    shutil.copy(dataset.scene_path(rows[0]["sequence"]), scene)

    def shifted(b):  # 60 columns to the right, still canonical
        x1 = (b[1] + 60) % W
        return [b[0], x1, b[2], x1 + b[3] - b[1], b[4]]

    moved = [
        dict(r, evidence={"track": r["evidence"]["track"], "boxes": [shifted(b) for b in r["evidence"]["boxes"]]})
        for r in rows
    ]
    _write(root, moved)
    load_active_dataset(root)  # shapes are fine ...
    with pytest.raises(DataError, match="does not match person"):
        load_active_dataset(root, check_boxes=True)  # ... but the boxes are not where the person is


def test_dataset_works_with_the_shared_selection(dataset):
    assert dataset.tasks == ["activeobs"] and "chain" in dataset.categories
    chosen = select(dataset, categories="chain,numeric", limit=3)
    assert len(chosen) == 3 and {i.family for i in chosen} <= {"chain", "numeric"}
    public = chosen[0].public()
    assert "answer" not in public and "evidence" not in json.dumps(public) and public["question"]
    assert item_to_row(chosen[0])["evidence"]["track"] == chosen[0].track


# --- passive baseline ---------------------------------------------------------------------------


def test_passive_sample(tmp_path):
    assert sample_frames(300, 8) == [18, 56, 93, 131, 168, 206, 243, 281]
    assert sample_frames(3, 8) == [0, 1, 2]
    scene = seam_scene(60)
    frames = write_passive_sample(scene, tmp_path / "full", count=4)
    assert [f.frame for f in frames] == [7, 22, 37, 52] and all(f.path.is_file() for f in frames)
    from PIL import Image

    assert Image.open(frames[0].path).size == (W, H) and "frame 7 (t = 0.47 s)" in frames[0].caption
    small = write_passive_sample(scene, tmp_path / "small", count=2, width=1880)
    assert Image.open(small[0].path).size == (1880, 240) and "scaled from 3760" in small[0].caption


# --- the observe MCP server ---------------------------------------------------------------------


def _call_all(url: str, calls: list[dict]):
    from mcp import Client

    async def run():
        async with Client(url) as client:
            tools = (await client.list_tools()).tools
            return tools, [await client.call_tool("observe", args) for args in calls]

    return anyio.run(run)


def test_observe_server_over_streamable_http(tmp_path):
    scene = seam_scene(60)
    scene.save(tmp_path / "seam.json")
    log_dir = tmp_path / "item" / "observations"
    with ObservationServer(tmp_path / "seam.json", log_dir) as server:
        assert server.url.startswith("http://127.0.0.1:") and server.port > 0
        assert server.endpoint == server.url.removesuffix("mcp") + "*"  # its own path on the host, only
        tools, (ok, wrapped, bad_frame, bad_angle, bad_type) = _call_all(
            server.url,
            [
                {"frame_index": 10, "angle_deg": 355},
                {"frame_index": 59, "angle_deg": -5.0},
                {"frame_index": 60, "angle_deg": 0},
                {"frame_index": 1, "angle_deg": "inf"},
                {"frame_index": "ten", "angle_deg": 0},
            ],
        )
    assert [t.name for t in tools] == ["observe"]
    schema = json.dumps(tools[0].input_schema)
    assert "$ref" not in schema and "anyOf" not in schema and "sequence" not in schema
    assert "3760x480" in tools[0].description and "wrap" in tools[0].description
    assert not ok.is_error and [c.type for c in ok.content] == ["text", "image"]
    meta = json.loads(ok.content[0].text)
    assert meta | {"observation": 1} == meta and meta["frame_index"] == 10 and meta["time_s"] == pytest.approx(0.667)
    assert meta["angle_deg"] == 355 and meta["wraps_seam"] and meta["x_start"] == g.view_span(355).x0
    png = base64.b64decode(ok.content[1].data)
    assert png == png_bytes(render_view(scene, 10, 355))
    assert json.loads(wrapped.content[0].text)["angle_deg"] == 355
    assert bad_frame.is_error and "frame_index 60 is out of range" in bad_frame.content[0].text
    assert "0..59" in bad_frame.content[0].text
    assert bad_angle.is_error and "finite" in bad_angle.content[0].text
    assert bad_type.is_error and "frame_index" in bad_type.content[0].text
    entries = [json.loads(line) for line in (log_dir / "observations.jsonl").read_text().splitlines()]
    assert [e["ok"] for e in entries] == [True, True, False, False]  # type errors never reach the tool
    assert entries[0]["image"] == "001-f0010-a355.0.png" and (log_dir / entries[0]["image"]).read_bytes() == png
    assert entries[1]["image"] == "002-f0059-a355.0.png" and entries[1]["request"]["angle_deg"] == -5.0
    assert entries[2]["request"] == {"frame_index": 60, "angle_deg": 0} and "out of range" in entries[2]["error"]
    assert entries[3]["request"]["angle_deg"] == "inf"
    assert sorted(p.name for p in log_dir.glob("*.png")) == ["001-f0010-a355.0.png", "002-f0059-a355.0.png"]


def test_observe_server_with_several_sequences(tmp_path, dataset):
    paths = [dataset.scene_path(s) for s in sorted({i.sequence for i in dataset.items})]
    with ObservationServer(paths, tmp_path / "obs") as server:
        tools, (ok, unknown) = _call_all(
            server.url,
            [
                {"sequence": "seq01", "frame_index": 3, "angle_deg": 90},
                {"sequence": "seq09", "frame_index": 3, "angle_deg": 90},
            ],
        )
    assert "sequence" in tools[0].input_schema["required"]
    assert json.loads(ok.content[0].text)["sequence"] == "seq01"
    assert unknown.is_error and "unknown sequence 'seq09'; use one of seq00, seq01" in unknown.content[0].text


def test_observe_server_copies_views_into_the_workdir_for_mode_python(tmp_path):
    seam_scene(20).save(tmp_path / "s.json")
    work = tmp_path / "work"
    with ObservationServer(tmp_path / "s.json", tmp_path / "obs", views_dir=work / "views") as server:
        tools, (ok, bad) = _call_all(
            server.url, [{"frame_index": 3, "angle_deg": 10}, {"frame_index": 30, "angle_deg": 1}]
        )
    assert "saved as a PNG in your working directory" in tools[0].description
    meta = json.loads(ok.content[0].text)
    assert meta["saved_as"] == "views/001-f0003-a010.0.png"
    assert (work / meta["saved_as"]).read_bytes() == base64.b64decode(ok.content[1].data)
    assert bad.is_error and [p.name for p in (work / "views").iterdir()] == ["001-f0003-a010.0.png"]
    assert (
        json.loads((tmp_path / "obs" / "observations.jsonl").read_text().splitlines()[0])["saved_as"]
        == meta["saved_as"]
    )


def test_observe_server_stops_and_its_path_is_gone(tmp_path):
    from urllib.error import HTTPError
    from urllib.request import urlopen

    scene = seam_scene(10)
    scene.save(tmp_path / "s.json")
    server = ObservationServer(tmp_path / "s.json", tmp_path / "obs").start()
    _call_all(server.url, [{"frame_index": 1, "angle_deg": 0}])
    server.stop()
    with pytest.raises(HTTPError) as gone:
        urlopen(server.url, timeout=5)
    assert gone.value.code == 404


def test_observe_server_on_a_fixed_port_stops_and_frees_it(tmp_path):
    import socket

    seam_scene(10).save(tmp_path / "s.json")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = ObservationServer(tmp_path / "s.json", tmp_path / "obs", port=port).start()
    assert server.port == port and server.url.startswith(f"http://127.0.0.1:{port}/")
    _call_all(server.url, [{"frame_index": 1, "angle_deg": 0}])
    server.stop()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0


# --- both real CLIs reach the observe server over HTTP (scripted model) --------------------------


def test_evidence_that_misses_says_so_and_names_the_window():
    from agent_eval.benchmarks.activeobs.grading import evidence_check
    from agent_eval.benchmarks.activeobs.schema import ActiveItem

    boxes = {f: (100, 100, 150, 300) for f in (28, 29, 30, 31, 40)}
    item = ActiveItem(
        id="x",
        sequence="s",
        family="chain",
        question="q",
        answer_mode="frame",
        answer=30,
        track="p1",
        boxes=boxes,
        fps=15,
        n_frames=60,
    )
    ok, detail = evidence_check({"frame": 30, "angle": 180, "bbox": [0, 0, 100, 100]}, item)
    assert not ok and detail["evidence_matched_frame"] == 30
    assert detail["evidence_error"] == "the box misses the target at frame 30"
    ok, detail = evidence_check({"frame": 32, "angle": 180, "bbox": [0, 0, 100, 100]}, item)
    assert not ok and detail["evidence_error"] == "frame 32 is outside the evidence window (frames 28-31, 40)"


def test_the_kinds_metrics_are_typed_on_the_record(tmp_path):
    """grade() stores ActiveObsMetrics; readers get it back typed, a newer key is kept, a bad value refused."""
    from agent_eval.benchmarks.activeobs.benchmark import ActiveObservation
    from agent_eval.benchmarks.activeobs.metrics import ActiveObsMetrics
    from agent_eval.datamodel.records import ItemRecord

    box = (1000.0, 100.0, 1096.0, 400.0)
    item = make_item("choice", 2, boxes={100: box}, choices=["a", "b"])
    angle = g.x_to_angle(1048)
    benchmark = ActiveObservation()
    graded = benchmark.grade(answer_text(2, 100, angle, exact_evidence(box, angle)), item, ItemDir(tmp_path))
    assert isinstance(graded.metrics, ActiveObsMetrics)
    stored = json.loads(json.dumps(graded.metrics_json()))
    record = ItemRecord.from_json(
        {"id": item.id, "task": "activeobs", "ground_truth": "2", "status": "ok", "metrics": {**stored, "newer": 1}}
    )
    metrics = ActiveObsMetrics.of(record)
    assert (metrics.answer_correct, metrics.evidence_correct, metrics.combined) == (True, True, True)
    assert metrics.grade_detail["evidence_iou"] == pytest.approx(1.0) and metrics.to_json()["newer"] == 1
    assert set(stored) == {"family", "answer_correct", "evidence_correct", "combined", "evidence", "grade_detail"} | {
        "evidence_view_observed",
        "evidence_in_graph",
        "graph_entities",
        "graph_attributes",
        "graph_relations",
        "graph_size",
        "graph_refused",
    }  # what the evidence rests on (seen.py): unknown here, nothing was logged
    assert stored["evidence_view_observed"] is None and stored["graph_size"] is None
    unread = ActiveObsMetrics.of(ItemRecord.from_json({"id": "x", "task": "activeobs", "ground_truth": "1"}))
    assert (unread.answer_correct, unread.combined, unread.evidence) == (None, False, None)
    with pytest.raises(ValueError):
        ActiveObsMetrics.from_json({"combined": "perhaps"})
    garbled = ItemRecord.from_json(
        {"id": "x", "task": "activeobs", "ground_truth": "1", "metrics": {"combined": "perhaps"}}
    )
    assert ActiveObsMetrics.of(garbled).combined is False and ActiveObsMetrics.of(garbled).extra == {
        "combined": "perhaps"
    }
    nulls = ItemRecord.from_json(
        {
            "id": "x",
            "task": "activeobs",
            "ground_truth": "1",
            "metrics": {"evidence_correct": None, "grade_detail": None, "answer_correct": None},
        }
    )
    assert (ActiveObsMetrics.of(nulls).evidence_correct, ActiveObsMetrics.of(nulls).grade_detail) == (False, {})
