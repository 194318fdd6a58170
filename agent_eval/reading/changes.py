"""The items that changed: for each run compared with the first, the items only it got right and
the items only the first got right, with both predictions, the truth and the commands that open
both transcripts.

"Only B got right" is decided on the same per-item scores the paired test uses (reading/comparison.py item_scores):
B's share of right repeats is higher than A's (without repeats: B right, A wrong). Each side names the
repeat that shows the change (B's first right one, A's first wrong one, and the other way round).
"""

from __future__ import annotations

import shlex
from typing import Any

from agent_eval.datamodel.records import ItemRecord

SCREEN_ROWS = 10  # per direction in the terminal; json, markdown and csv list them all


def _side(run, records: list[ItemRecord], score: float, want_right: bool) -> dict:
    ordered = sorted(records, key=lambda r: r.repeat)
    shown = next((r for r in ordered if r.correct == want_right), ordered[0])
    command = f"agent-eval show {shlex.quote(str(run.root))} {shlex.quote(shown.id)}"
    return {
        "share_right": score,
        "predictions": [r.prediction for r in ordered],
        "correct": [r.correct for r in ordered],
        "statuses": [r.status for r in ordered],
        "repeat": shown.repeat,
        "prediction": shown.prediction,
        "show": command + (f" --repeat {shown.repeat}" if shown.repeat else ""),
    }


def changed_items(runs, letters: list[str], scores: list[dict[str, float]], shared: list[str]) -> list[dict]:
    """One entry per run after A: {"pair": [A, X], "only_A": [...], "only_X": [...]}, biggest changes first."""
    by_run = []
    for run in runs:
        records: dict[str, list[ItemRecord]] = {}
        for record in run.records:
            records.setdefault(record.id, []).append(record)
        by_run.append(records)
    out = []
    for j in range(1, len(runs)):
        entry: dict[str, Any] = {"pair": [letters[0], letters[j]], "only_A": [], f"only_{letters[j]}": []}
        for item in shared:
            a, b = scores[0][item], scores[j][item]
            if a == b:
                continue
            winner = letters[j] if b > a else letters[0]
            first = by_run[0][item][0]
            entry[f"only_{winner}"].append(
                {
                    "id": item,
                    "task": first.task,
                    "category": first.category,
                    "truth": first.ground_truth,
                    "diff": b - a,
                    "runs": {
                        letters[0]: _side(runs[0], by_run[0][item], a, want_right=winner == letters[0]),
                        letters[j]: _side(runs[j], by_run[j][item], b, want_right=winner == letters[j]),
                    },
                }
            )
        for key in ("only_A", f"only_{letters[j]}"):
            entry[key].sort(key=lambda e: (-abs(e["diff"]), e["id"]))
        out.append(entry)
    return out


def _verdicts(side: dict) -> str:
    marks = "".join("✓" if c else "✗" for c in side["correct"])
    return marks if len(marks) > 1 else ""


def _prediction(side: dict) -> str:
    """The prediction of the repeat shown, with every repeat's verdict when there are several."""
    text = (side["prediction"] or "—").replace("\n", " ")
    text = text if len(text) <= 40 else text[:39] + "…"
    marks = _verdicts(side)
    return f"{text} (r{side['repeat']}) {marks}" if marks else text


def changed_cells(entry: dict, which: str, limit: int | None = None) -> tuple[list[str], list[list[str]], int]:
    """Rows for the items only `which` got right: (header, body, how many were left off)."""
    a, b = entry["pair"]
    items = entry[f"only_{which}"]
    shown = items if limit is None else items[:limit]
    header = ["item", "task", "truth", f"{a} predicted", f"{b} predicted", "transcripts"]
    body = [
        [
            e["id"],
            e["task"],
            e["truth"],
            _prediction(e["runs"][a]),
            _prediction(e["runs"][b]),
            f"{e['runs'][a]['show']} ; {e['runs'][b]['show']}",
        ]
        for e in shown
    ]
    return header, body, len(items) - len(shown)


def changed_csv_rows(changed: list[dict]):
    yield [
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
    for entry in changed:
        a, b = entry["pair"]
        for which in (b, a):
            for e in entry[f"only_{which}"]:
                sa, sb = e["runs"][a], e["runs"][b]
                yield [
                    f"{b}:{a}",
                    which,
                    e["id"],
                    e["task"],
                    e["category"],
                    e["truth"],
                    sa["share_right"],
                    sb["share_right"],
                    " | ".join(p or "" for p in sa["predictions"]),  # None: a kind that grades without one
                    " | ".join(p or "" for p in sb["predictions"]),
                    sa["show"],
                    sb["show"],
                ]
