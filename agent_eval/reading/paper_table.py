"""`agent-eval table`: runs laid out as the seeds' papers print them. Rows are agent x model x effort, columns the
tool modes (a kind's options not at their default join the mode's name); one panel per measure: accuracy with its
95% interval, the change against `none` of the same row with its paired test, cost and tokens per item, and the
kind's own measures (KindComparison.table_measures: a game's score, levels and actions; active observation's
evidence, combined and hallucination).

Every number comes from compare's own build (reading/comparison.py), run once per row on [none, other modes...],
so a row's numbers are the ones `agent-eval compare NONE IMAGE PYTHON` prints. The table adds only what a paper
needs beyond that: a Wilson interval per accuracy, and Holm's correction over the changes the whole table tests
(one family per measure), with analysis/stats.py's own holm(). The notes say what a reader must know to trust it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_eval.analysis.comparison_result import Comparison, Measure
from agent_eval.analysis.stats import ALPHA, holm, median_total, wilson_interval
from agent_eval.datamodel.records import FAILURE_STATUSES, ItemRecord
from agent_eval.reading.comparison import build, item_scores
from agent_eval.reading.runs import LoadedRun, RunError

BASELINE = "none"
MODE_ORDER = ("none", "image", "python")


def tokens_of(record: ItemRecord) -> int | None:
    """Input (cached included) and output tokens of one item run; None when the run recorded neither."""
    u = record.usage
    if u.input_tokens is None and u.output_tokens is None:
        return None
    return (u.input_tokens or 0) + (u.output_tokens or 0)


@dataclass
class Cell:
    """One run in the table: compare's numbers for it, and the table's own additions."""

    run: LoadedRun
    letter: str  # its letter in its row's comparison
    accuracy: float
    n: int  # the items its row's runs share
    interval: tuple[float, float] | None
    change: dict | None  # compare's paired stats against the row's none run (None: it is that run, or none exists)
    cost: dict  # median/mean/total/unknown of cost_usd per item run, as compare computes it
    tokens: dict
    measures: list[Measure] = field(default_factory=list)  # the kind's, one value per run of the row
    index: int = 0  # its place in the row's comparison


@dataclass
class Row:
    agent: str
    model: str
    effort: str
    comparison: Comparison
    cells: dict[str, Cell]  # column -> cell
    has_baseline: bool


@dataclass
class PaperTable:
    benchmark: str
    accuracy_name: str
    columns: list[str]
    rows: list[Row]
    notes: list[str]
    measures: list[str]  # the kind's measure names, in order
    changed: dict[str, int]  # measure name -> how many changes the table tests (Holm's family size)


def column_of(run: LoadedRun) -> str:
    return run.condition or "?"


def row_of(run: LoadedRun) -> tuple[str, str, str]:
    c = run.config
    return (c.agent or "?", c.model or "?", c.effort or "default")


def _ordered_columns(runs: list[LoadedRun]) -> list[str]:
    seen = list(dict.fromkeys(column_of(r) for r in runs))
    first = [m for m in MODE_ORDER if m in seen]
    return first + [c for c in seen if c not in first]


def build_table(runs: list[LoadedRun], force: bool, n_resamples: int, seed: int) -> PaperTable:
    columns = _ordered_columns(runs)
    grouped: dict[tuple[str, str, str], dict[str, LoadedRun]] = {}
    for run in runs:
        row = grouped.setdefault(row_of(run), {})
        column = column_of(run)
        if column in row:
            raise RunError(
                f"{row[column].name} and {run.name} are both {' · '.join(row_of(run))} in tool mode {column}: a table "
                "has one run per cell (merge them with `agent-eval merge`, or leave one out)"
            )
        row[column] = run
    rows = []
    for (agent, model, effort), by_column in grouped.items():
        ordered = [c for c in columns if c in by_column]
        comparison = build([by_column[c] for c in ordered], force=force, n_resamples=n_resamples, seed=seed)
        rows.append(
            Row(agent, model, effort, comparison, _cells(comparison, ordered, by_column), BASELINE in by_column)
        )
    kinds = {r.comparison.benchmark for r in rows}
    if len(kinds) > 1:
        raise RunError(f"cannot lay runs of different benchmarks in one table: {', '.join(sorted(kinds))}")
    measures = [m.name for m in next(iter(rows[0].cells.values())).measures]
    changed = _holm_over_table(rows, measures)
    return PaperTable(
        benchmark=kinds.pop(),
        accuracy_name=runs[0].hooks.accuracy_name,
        columns=columns,
        rows=rows,
        notes=table_notes(rows, n_resamples, seed, changed),
        measures=measures,
        changed=changed,
    )


def _cells(data: Comparison, ordered: list[str], by_column: dict[str, LoadedRun]) -> dict[str, Cell]:
    runs = [by_column[c] for c in ordered]
    shared = set.intersection(*(set(item_scores(r.records)[0]) for r in runs))
    measures = data.kind.table_measures() if data.kind else []
    baseline = ordered[0] == BASELINE
    cells = {}
    for k, (column, run, entry) in enumerate(zip(ordered, runs, data.runs)):
        accuracy = data.rows[0]["accuracy"][k]
        change = data.rows[0]["vs_first"][k] if baseline else None
        cells[column] = Cell(
            run=run,
            letter=entry["letter"],
            accuracy=accuracy,
            n=data.shared,
            interval=wilson_interval(accuracy, data.shared),
            change=dict(change) if change else None,  # a copy: the table's Holm is its own
            cost=entry["efficiency"]["cost_usd"],
            tokens=median_total([tokens_of(r) for r in run.records if r.id in shared]),
            measures=[
                Measure(
                    m.name,
                    [m.values[k]],
                    m.percent,
                    m.digits,
                    [dict(m.vs_first[k])] if baseline and m.vs_first and m.vs_first[k] else None,
                    m.test,
                    m.change_name,
                )
                for m in measures
            ],
            index=k,
        )
    return cells


def _holm_over_table(rows: list[Row], measures: list[str]) -> dict[str, int]:
    """Holm over every change the table tests, one family per measure: `p_table_holm` on each change."""
    families: dict[str, list[dict]] = {"accuracy": [c.change for r in rows for c in r.cells.values() if c.change]}
    for j, name in enumerate(measures):
        families[name] = [c.measures[j].vs_first[0] for r in rows for c in r.cells.values() if c.measures[j].vs_first]
    for stats in families.values():
        for stat, adjusted in zip(stats, holm([s["p_value"] for s in stats])):
            stat["p_table_holm"] = adjusted
    return {name: len(stats) for name, stats in families.items() if stats}


def _dates(runs: list[LoadedRun]) -> str:
    started = sorted(r.manifest.started_at[:10] for r in runs if r.manifest and r.manifest.started_at)
    finished = sorted(r.manifest.finished_at[:10] for r in runs if r.manifest and r.manifest.finished_at)
    unfinished = [r.name for r in runs if not (r.manifest and r.manifest.finished_at)]
    span = f"{started[0]} to {(finished or started)[-1]}" if started else "unknown (no run.json)"
    return f"runs made {span}" + (f"; not finished: {', '.join(unfinished)}" if unfinished else "")


def _versions(values: list[str | None]) -> str:
    known = sorted({v for v in values if v})
    unknown = sum(v is None for v in values)
    return (", ".join(known) or "unknown") + (f" ({unknown} run(s) unknown)" if unknown and known else "")


def _prices(runs: list[LoadedRun]) -> str:
    found = set()
    for run in runs:
        pricing = run.manifest.pricing if run.manifest else {}
        data = pricing.get("price_data")
        overrides = pricing.get("overrides")
        if data:
            found.add(data + (f" with $AGENT_EVAL_PRICING sha256 {overrides['sha256'][:12]}" if overrides else ""))
    return "; ".join(sorted(found)) or "not recorded (runs of a version before it was)"


def _left_out(row: Row, label: str) -> list[str]:
    """Items left out of a row, or counted wrong, and why: compare's own notes, then failures."""
    names = {c.letter: column for column, c in row.cells.items()}
    legend = ", ".join(f"{letter} = {column}" for letter, column in names.items())
    out = [f"{label} ({legend}): {note}" for note in row.comparison.notes if "has repeats (up to" not in note]
    for column, cell in row.cells.items():
        failed: dict[str, int] = {}
        for r in cell.run.records:
            if r.status in FAILURE_STATUSES:
                failed[r.status] = failed.get(r.status, 0) + 1
        if failed:
            what = ", ".join(f"{n} {status}" for status, n in sorted(failed.items()))
            out.append(
                f"{label}, {column}: {sum(failed.values())} item run(s) failed in the harness ({what}): "
                "counted wrong, as compare counts them"
            )
        ungraded = sum(r.status == "ungraded" for r in cell.run.records)
        if ungraded:
            out.append(f"{label}, {column}: {ungraded} item run(s) ungraded (no judge model): left out")
        for warning in row.comparison.runs[cell.index]["loud_warnings"]:
            out.append(f"{label}, {column}: {warning}")
    return out


def table_notes(rows: list[Row], n_resamples: int, seed: int, changed: dict[str, int]) -> list[str]:
    runs = [c.run for r in rows for c in r.cells.values()]
    repeats = sorted({max(item_scores(r.records)[1], 1) for r in runs})
    sizes = sorted({r.comparison.shared for r in rows})
    notes = [
        f"Accuracy on the items every run of a row has ({' or '.join(map(str, sizes))} items); with repeats an item "
        "scores its mean over them. [low, high]: 95% Wilson score interval over items.",
    ]
    if "accuracy" in changed:
        notes.append(
            f"Change: against tools={BASELINE} of the same agent, model and effort, in points, with the paired "
            f"bootstrap 95% CI over items ({n_resamples} resamples, seed {seed}); p: exact McNemar test (the sign "
            f"test on per-item means when there are repeats); Holm: p adjusted over the {changed['accuracy']} "
            f"changes this table tests (one family per measure); * significant at α={ALPHA} after Holm."
        )
    missing = [f"{r.agent} · {r.model} · {r.effort}" for r in rows if not r.has_baseline]
    if missing:
        notes.append(f"No tools={BASELINE} run, so no change shown, for: {'; '.join(missing)}.")
    notes += [
        "Cost: API dollars per item run, the mean over item runs whose cost is known (an unknown cost is never "
        "counted as 0; how many are unknown is said in the cell); tokens: input (cached included) plus output.",
        f"Harness: agent-eval {_versions([r.manifest.project_version if r.manifest else None for r in runs])}; "
        f"CLIs: {_versions([_cli(r) for r in runs])}; price data: {_prices(runs)}; {_dates(runs)}; "
        f"repeats per item: {' or '.join(map(str, repeats))}.",
    ]
    for row in rows:
        notes += _left_out(row, f"{row.agent} · {row.model} · {row.effort}")
    return notes


def _cli(run: LoadedRun) -> str | None:
    c = run.config
    return f"{c.agent} {c.cli_version}" if c.agent and c.cli_version else None
