"""The items that changed between two runs: which side each lands on, the repeat shown, the commands that open
both transcripts, and the table and CSV rows, checked field by field against hand-built runs.
(Named apart from tests/commands/test_changes.py: test basenames are unique across tests/.)"""

from pathlib import Path

import pytest

from agent_eval.datamodel.records import ItemRecord
from agent_eval.reading.changes import changed_cells, changed_csv_rows, changed_items
from agent_eval.reading.runs import LoadedRun

LONG = "a" * 20 + "\n" + "b" * 30  # 51 characters once the newline is a space


def _rec(item, repeat, correct, prediction, status="ok", truth=None):
    return ItemRecord(
        id=item,
        task=f"task-{item}",
        category=f"cat-{item}",
        ground_truth=truth or {"i1": "H", "i2": "B", "i3": "7", "i4": "4", "i5": "C"}[item],
        status=status,
        prediction=prediction,
        correct=correct,
        repeat=repeat,
    )


A = LoadedRun(
    Path("/runs/run a"),  # a space: the show command must quote it
    None,
    [
        _rec("i1", 0, True, "H"),
        _rec("i2", 0, False, LONG),
        _rec("i3", 0, True, "7"),
        _rec("i4", 2, False, "8"),  # stored out of order: repeat 1 is the first wrong one
        _rec("i4", 0, True, "4"),
        _rec("i4", 1, False, "9"),
        _rec("i5", 0, False, "", status="timeout"),
    ],
)
B = LoadedRun(
    Path("/runs/b"),
    None,
    [
        _rec("i1", 0, False, "Z"),
        _rec("i2", 0, True, "B"),
        _rec("i3", 0, True, "7"),
        _rec("i4", 0, True, "4"),
        _rec("i4", 1, True, "4"),
        _rec("i4", 2, False, "5"),
        _rec("i5", 0, True, "C"),
    ],
)
C = LoadedRun(Path("/runs/c"), None, list(A.records))  # the same outcomes as A: nothing changes
# shares of right repeats, by hand: A i4 1 of 3, B i4 2 of 3
SCORES_A = {"i1": 1.0, "i2": 0.0, "i3": 1.0, "i4": 1 / 3, "i5": 0.0}
SCORES_B = {"i1": 0.0, "i2": 1.0, "i3": 1.0, "i4": 2 / 3, "i5": 1.0}
SHARED = ["i1", "i2", "i3", "i4", "i5"]


@pytest.fixture
def changed():
    return changed_items([A, B, C], ["A", "B", "C"], [SCORES_A, SCORES_B, dict(SCORES_A)], SHARED)


def test_one_entry_per_later_run_and_items_on_the_side_that_won(changed):
    assert [entry["pair"] for entry in changed] == [["A", "B"], ["A", "C"]]
    ab, ac = changed
    assert set(ab) == {"pair", "only_A", "only_B"}
    # i3 is right in both: not listed. B's: i2 and i5 moved by a whole item, i4 by 1/3 (biggest first, then by id)
    assert [e["id"] for e in ab["only_B"]] == ["i2", "i5", "i4"]
    assert [e["diff"] for e in ab["only_B"]] == [1.0, 1.0, pytest.approx(1 / 3)]
    assert [(e["id"], e["diff"]) for e in ab["only_A"]] == [("i1", -1.0)]
    assert ac == {"pair": ["A", "C"], "only_A": [], "only_C": []}


def test_each_side_shows_the_repeat_that_shows_the_change(changed):
    i1 = changed[0]["only_A"][0]
    assert {k: i1[k] for k in ("id", "task", "category", "truth")} == {
        "id": "i1",
        "task": "task-i1",
        "category": "cat-i1",
        "truth": "H",
    }
    assert i1["runs"] == {
        "A": {
            "share_right": 1.0,
            "predictions": ["H"],
            "correct": [True],
            "statuses": ["ok"],
            "repeat": 0,
            "prediction": "H",
            "show": "agent-eval show '/runs/run a' i1",
        },
        "B": {
            "share_right": 0.0,
            "predictions": ["Z"],
            "correct": [False],
            "statuses": ["ok"],
            "repeat": 0,
            "prediction": "Z",
            "show": "agent-eval show /runs/b i1",
        },
    }
    i4 = changed[0]["only_B"][2]
    # B won i4: A's first wrong repeat (1) and B's first right one (0), repeats listed in order
    assert i4["runs"]["A"] == {
        "share_right": pytest.approx(1 / 3),
        "predictions": ["4", "9", "8"],
        "correct": [True, False, False],
        "statuses": ["ok", "ok", "ok"],
        "repeat": 1,
        "prediction": "9",
        "show": "agent-eval show '/runs/run a' i4 --repeat 1",
    }
    assert (i4["runs"]["B"]["repeat"], i4["runs"]["B"]["prediction"]) == (0, "4")
    assert i4["runs"]["B"]["show"] == "agent-eval show /runs/b i4"
    assert changed[0]["only_B"][1]["runs"]["A"]["statuses"] == ["timeout"]


def test_changed_items_with_no_shared_items_or_one_run():
    assert changed_items([A, B], ["A", "B"], [SCORES_A, SCORES_B], []) == [
        {"pair": ["A", "B"], "only_A": [], "only_B": []}
    ]
    assert changed_items([A], ["A"], [SCORES_A], SHARED) == []


def test_changed_cells(changed):
    header, body, left_off = changed_cells(changed[0], "B")
    assert header == ["item", "task", "truth", "A predicted", "B predicted", "transcripts"]
    assert left_off == 0
    assert body == [
        [
            "i2",
            "task-i2",
            "B",
            "a" * 20 + " " + "b" * 18 + "…",  # newline made a space, cut to 39 characters and an ellipsis
            "B",
            "agent-eval show '/runs/run a' i2 ; agent-eval show /runs/b i2",
        ],
        ["i5", "task-i5", "C", "—", "C", "agent-eval show '/runs/run a' i5 ; agent-eval show /runs/b i5"],
        [
            "i4",
            "task-i4",
            "4",
            "9 (r1) ✓✗✗",  # several repeats: the one shown and every repeat's verdict
            "4 (r0) ✓✓✗",
            "agent-eval show '/runs/run a' i4 --repeat 1 ; agent-eval show /runs/b i4",
        ],
    ]


def test_changed_cells_limit_counts_what_was_left_off(changed):
    _, body, left_off = changed_cells(changed[0], "B", limit=2)
    assert ([row[0] for row in body], left_off) == (["i2", "i5"], 1)
    _, body, left_off = changed_cells(changed[0], "A", limit=10)
    assert ([row[0] for row in body], left_off) == (["i1"], 0)
    assert changed_cells(changed[1], "C")[1:] == ([], 0)


def test_a_prediction_of_exactly_forty_characters_is_kept_whole():
    forty = "x" * 40
    a = LoadedRun(Path("/r/a"), None, [_rec("i1", 0, False, forty)])
    b = LoadedRun(Path("/r/b"), None, [_rec("i1", 0, True, "H")])
    entry = changed_items([a, b], ["A", "B"], [{"i1": 0.0}, {"i1": 1.0}], ["i1"])[0]
    assert changed_cells(entry, "B")[1][0][3] == forty


def test_changed_csv_rows(changed):
    rows = list(changed_csv_rows(changed))
    assert rows[0] == [
        "pair",
        "only_right",
        "id",
        "task",
        "category",
        "truth",
        "A_share_right",
        "run_share_right",
        "A_predictions",
        "run_predictions",
        "A_show",
        "run_show",
    ]
    # B's wins first, then A's; C changed nothing
    assert [(row[0], row[1], row[2]) for row in rows[1:]] == [
        ("B:A", "B", "i2"),
        ("B:A", "B", "i5"),
        ("B:A", "B", "i4"),
        ("B:A", "A", "i1"),
    ]
    assert rows[3] == [
        "B:A",
        "B",
        "i4",
        "task-i4",
        "cat-i4",
        "4",
        pytest.approx(1 / 3),
        pytest.approx(2 / 3),
        "4 | 9 | 8",
        "4 | 4 | 5",
        "agent-eval show '/runs/run a' i4 --repeat 1",
        "agent-eval show /runs/b i4",
    ]
    assert rows[2][8] == ""  # a failed item's empty prediction


def test_changed_csv_rows_with_a_missing_prediction():
    # ItemRecord.prediction may be None (a kind that grades without one): the CSV writes it empty
    a = LoadedRun(Path("/r/a"), None, [_rec("i1", 0, False, None), _rec("i1", 1, False, "Z")])
    b = LoadedRun(Path("/r/b"), None, [_rec("i1", 0, True, "H")])
    changed = changed_items([a, b], ["A", "B"], [{"i1": 0.0}, {"i1": 1.0}], ["i1"])
    assert changed_cells(changed[0], "B")[1][0][3] == "— (r0) ✗✗"
    assert list(changed_csv_rows(changed))[1][8:10] == [" | Z", "H"]
