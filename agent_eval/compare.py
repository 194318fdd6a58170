"""`agent-eval compare RUN_A RUN_B [RUN...]`: accuracy side by side with paired statistics.

Every run is compared with the first on the items all runs share: exact McNemar p and a
bootstrap 95% CI for the paired accuracy difference, per task, per category and overall;
then cost, time, turns and tool calls per item. Results of the benchmark's own no-tool
evaluation (no run.json) are accepted, with a note that their hashes are unknown.
Active-observation runs add answer/evidence/combined/hallucination per family (compare_activeobs);
runs of different benchmarks are refused.
"""
from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .records import ItemRecord
from .show import ACTIVE, LoadedRun, RunError, fmt_cost, fmt_time, load_run, run_warnings
from .stats import ALPHA, N_RESAMPLES, SEED, median_total, min_possible_p, paired

HASH_KEYS = ("scorer_hash", "dataset_hash")
EFFICIENCY = (("cost_usd", "cost"), ("elapsed_s", "time"), ("num_turns", "turns"), ("tool_calls", "tool calls"))


def item_scores(records: list[ItemRecord]) -> tuple[dict[str, float], int]:
    """Score per item id, and the most repeats any item has. The one place that decides pairing:
    with repeats, an item's score is its mean correctness across them."""
    by_id: dict[str, list[float]] = defaultdict(list)
    for record in records:
        by_id[record.id].append(float(record.correct))
    return {i: sum(v) / len(v) for i, v in by_id.items()}, max((len(v) for v in by_id.values()), default=0)


def check_hashes(runs: list[LoadedRun], letters: list[str], force: bool) -> list[str]:
    notes = []
    for key in HASH_KEYS:
        known = [(letter, run.name, run.config.get(key)) for letter, run in zip(letters, runs) if run.config.get(key)]
        if len({value for *_, value in known}) > 1:
            values = ", ".join(f"{letter} ({name}) = {value}" for letter, name, value in known)
            if not force:
                fix = ("run `agent-eval regrade RUN` on the older runs to grade them with the current scorer, or "
                       if key == "scorer_hash" else "")
                raise RunError(f"runs differ in {key}: {values}; their grades are not comparable ({fix}"
                               f"pass --force to compare anyway)")
            notes.append(f"--force: runs differ in {key} ({values}); compared anyway")
    for letter, run in zip(letters, runs):
        missing = [key for key in HASH_KEYS if not run.config.get(key)]
        if missing:
            notes.append(f"{letter} ({run.name}) has unknown {' and '.join(missing)}"
                         f"{' (no run.json)' if run.manifest is None else ''}: check it used the same data and scorer")
    return notes


def _meta(runs: list[LoadedRun]) -> dict[str, tuple[str, str]]:
    """task and category per item id, from whichever run records them (no-tool records may lack a category)."""
    meta: dict[str, tuple[str, str]] = {}
    for run in runs:
        for r in run.records:
            task, category = meta.get(r.id, ("", ""))
            meta[r.id] = (task or r.task, category or r.category)
    return meta


def item_image_received(record: ItemRecord) -> tuple[int, int] | None:
    """The size at which the item's own image (attached, or opened with the file viewer) reached the model."""
    for image in record.images:
        if image.get("via") in ("inline", "file_view") and image.get("received"):
            return tuple(image["received"])
    return None


def received_size_warnings(runs: list[LoadedRun], letters: list[str], shared: list[str]) -> list[str]:
    """Arms that saw the same item's image at different sizes are not comparing like with like."""
    sizes = [{r.id: item_image_received(r) for r in run.records if r.repeat == 0} for run in runs]
    notes = []
    for (a, sa), (b, sb) in zip(zip(letters, sizes), list(zip(letters, sizes))[1:]):
        differ = [i for i in shared if sa.get(i) and sb.get(i) and sa[i] != sb[i]]
        if differ:
            first = differ[0]
            notes.append(f"WARNING: the model received the item's image at different sizes in {a} and {b} on "
                         f"{len(differ)} item(s), e.g. {first}: {a} {sa[first][0]}×{sa[first][1]}, "
                         f"{b} {sb[first][0]}×{sb[first][1]} (a CLI reduced it): the arms did not see the same pixels")
    return notes


def check_kinds(runs: list[LoadedRun], letters: list[str]) -> str:
    kinds = {run.benchmark for run in runs}
    if len(kinds) > 1:
        named = ", ".join(f"{letter} ({run.name}) is {run.benchmark}" for letter, run in zip(letters, runs))
        raise RunError(f"cannot compare runs of different benchmarks: {named}; they share no items "
                       "(compare runs of one benchmark with each other)")
    return kinds.pop()


def build(runs: list[LoadedRun], force: bool = False, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> dict:
    letters = [chr(ord("A") + i) for i in range(len(runs))]
    benchmark = check_kinds(runs, letters)
    notes = check_hashes(runs, letters, force)
    scored = [item_scores(run.records) for run in runs]
    shared = sorted(set.intersection(*(set(s) for s, _ in scored)))
    union = set.union(*(set(s) for s, _ in scored))
    missing = {letter: sorted(union - set(s)) for letter, (s, _) in zip(letters, scored) if union - set(s)}
    for letter, ids in missing.items():
        notes.append(f"{letter} lacks {len(ids)} item(s) other runs have: {', '.join(ids[:10])}{' ...' if len(ids) > 10 else ''}")
    if missing:
        notes.append(f"all numbers below are on the {len(shared)} items every run has")
    for letter, (_, most) in zip(letters, scored):
        if most > 1:
            notes.append(f"{letter} has repeats (up to {most} per item): items are paired on their mean correctness "
                         "across repeats, and the exact test is the sign test on items whose means differ (it "
                         "is McNemar's test when each item ran once; repeats of one item are not independent "
                         "samples, so the item stays the unit of pairing), with the bootstrap resampling items")
    if not shared:
        raise RunError("the runs share no items: nothing to compare")
    notes += received_size_warnings(runs, letters, shared)
    meta = _meta(runs)
    groups = [("overall", "all", shared)]
    for scope, index in (("category", 1), ("task", 0)):
        names = sorted({meta[i][index] for i in shared})
        groups += [(scope, name or "?", [i for i in shared if meta[i][index] == name]) for name in names]
    rows = []
    for scope, name, ids in groups:
        columns = [[s[i] for i in ids] for s, _ in scored]
        rows.append({"scope": scope, "group": name, "n": len(ids),
                     "accuracy": [sum(c) / len(c) for c in columns],
                     "vs_first": [None] + [paired(columns[0], c, n_resamples, seed).to_json() for c in columns[1:]]})
    shared_set = set(shared)
    efficiency = [{key: median_total([getattr(r, key) for r in run.records if r.id in shared_set]) for key, _ in EFFICIENCY}
                  for run in runs]
    data = {"benchmark": benchmark, "alpha": ALPHA, "n_resamples": n_resamples, "seed": seed, "shared": len(shared),
            "runs": [_run_entry(letter, run, eff) for letter, run, eff in zip(letters, runs, efficiency)],
            "notes": notes, "rows": rows, "verdicts": _verdicts(letters, rows, groups)}
    if benchmark == ACTIVE:  # answer, evidence, combined, hallucination; tests on answer and on combined
        from .compare_activeobs import active_verdicts, build_active
        families = [("family", name, ids) for scope, name, ids in groups if scope == "category"]
        data["active"] = build_active(runs, [groups[0], *families], n_resamples, seed)
        data["verdicts"] = active_verdicts(letters, data["active"])
    return data


def _run_entry(letter: str, run: LoadedRun, efficiency: dict) -> dict:
    scores, _ = item_scores(run.records)
    return {"letter": letter, "name": run.name, "path": str(run.root), "label": run.label, "config": run.config,
            "n_items": len(scores), "own_accuracy": sum(scores.values()) / len(scores),
            "warnings": [note for _, note in run_warnings(run)], "efficiency": efficiency}


def _verdict(letter: str, stat: dict, what: str = "") -> str:
    sig = f"significant at α={ALPHA}" if stat["significant"] else f"not significant at α={ALPHA}"
    same = "; the two runs agree on every shared item" if stat["discordant"] == 0 else ""
    return (f"{letter} vs A{', ' + what if what else ''}: {_pts(stat['diff'])} [95% CI {_pts(stat['ci_low'])}, "
            f"{_pts(stat['ci_high'])}], exact McNemar p = {stat['p_value']:.3g} on {stat['discordant']} discordant items "
            f"({letter} alone right on {stat['b_only']}, A alone on {stat['a_only']}): {sig}{same}")


def _verdicts(letters: list[str], rows: list[dict], groups) -> list[str]:
    """Plain sentences for the overall rows, and what small groups can and cannot show."""
    out = [_verdict(letter, stat) for letter, stat in zip(letters[1:], rows[0]["vs_first"][1:])]
    small = [len(ids) for scope, _, ids in groups if scope != "overall" and min_possible_p(len(ids)) >= ALPHA]
    if small:
        out.append(f"{len(small)} per-category/per-task groups have at most {max(small)} items: even if every item "
                   f"differed one way the exact p could not go below {min_possible_p(max(small)):.3g}, so no difference "
                   f"there can be significant at α={ALPHA}")
    if len(groups) > 1 and len(letters) > 1:
        out.append("per-category and per-task p-values are not corrected for multiple comparisons")
    return out


def _pts(diff: float | None, unit: str = " pts") -> str:
    return "?" if diff is None else f"{diff * 100:+.1f}{unit}"


def _pct(value: float | None) -> str:
    return "?" if value is None else f"{value:.1%}"


def _pval(stat: dict) -> str:
    return f"{stat['p_value']:.3g}{'' if stat['significant'] else ' n.s.'} ({stat['discordant']})"


def _accuracy_cells(data: dict) -> tuple[list[str], list[list[str]]]:
    letters = [r["letter"] for r in data["runs"]]
    header = ["scope", "group", "n", *letters]
    for letter in letters[1:]:
        header += [f"{letter}−A pts [95% CI]", f"p {letter}:A (disc.)"]
    body = []
    for row in data["rows"]:
        cells = [row["scope"], row["group"], str(row["n"]), *map(_pct, row["accuracy"])]
        for stat in row["vs_first"][1:]:
            cells += [f"{_pts(stat['diff'], '')} [{_pts(stat['ci_low'], '')}, {_pts(stat['ci_high'], '')}]", _pval(stat)]
        body.append(cells)
    return header, body


def _efficiency_cells(data: dict) -> tuple[list[str], list[list[str]]]:
    header = ["per item", *[r["letter"] for r in data["runs"]]]
    fmt = {"cost_usd": fmt_cost, "elapsed_s": fmt_time, "num_turns": lambda v: "?" if v is None else f"{v:g}",
           "tool_calls": lambda v: "?" if v is None else f"{v:g}"}
    body = []
    for key, name in EFFICIENCY:
        for stat in ("median", "total"):
            cells = []
            for run in data["runs"]:
                e = run["efficiency"][key]
                cells.append(fmt[key](e[stat]) + (f" ({e['unknown']} unknown)" if e["unknown"] and e[stat] is not None else ""))
            body.append([f"{name} {stat}", *cells])
    return header, body


def _run_lines(data: dict) -> list[str]:
    what = "answer accuracy" if data.get("active") else "accuracy"
    return [f"{r['letter']} = {r['name']}: {r['label']} ({r['n_items']} items, {what} {_pct(r['own_accuracy'])} on its own items)"
            for r in data["runs"]]


def _warning_lines(data: dict) -> list[str]:
    return [f"{r['letter']}: {w}" for r in data["runs"] for w in r["warnings"]] + data["notes"]


def _rich_table(title: str, header: list[str], body: list[list[str]]) -> Table:
    """Scope column dropped on screen (sections separate the scopes); numbers never fold, names may."""
    scoped = header[0] == "scope"
    table = Table(title=title, header_style="bold", title_style="bold")
    for i, name in enumerate(header[scoped:]):
        widest = max(len(cells[scoped + i]) for cells in body)
        table.add_column(name, justify="right" if i else "left", overflow="ellipsis",
                         no_wrap=True, min_width=widest if i else min(widest, 14))
    for index, cells in enumerate(body):
        last = index + 1 == len(body) or (scoped and body[index + 1][0] != cells[0])
        table.add_row(*cells[scoped:], end_section=bool(scoped and last))
    return table


def _fits(header: list[str], body: list[list[str]], width: int) -> bool:
    widths = [max(len(c) for c in column) for column in zip(header, *body)]
    return sum(widths[1:]) + min(widths[1], 14) + 3 * len(widths) < width


def render_table(data: dict, console: Console) -> None:
    for line in _run_lines(data):
        console.print(Text(line, style="bold"))
    for line in _warning_lines(data):
        console.print(Text(f"note: {line}", style="yellow"))
    header, body = _accuracy_cells(data)
    title = f"accuracy on {data['shared']} shared items"
    k = len(data["runs"])
    if data.get("active"):
        from .compare_activeobs import render_active_table
        render_active_table(data, console)
    elif _fits(header, body, console.width) or k == 2:
        console.print(_rich_table(title, header, body))
    else:  # too wide: accuracies first, then one table per comparison with A
        console.print(_rich_table(title, header[:3 + k], [cells[:3 + k] for cells in body]))
        for j, letter in enumerate(h for h in header[4:3 + k]):
            cols = [0, 1, 2, 3, 4 + j, 3 + k + 2 * j, 4 + k + 2 * j]
            console.print(_rich_table(f"{letter} vs A", [header[c] for c in cols], [[cells[c] for c in cols] for cells in body]))
    console.print(_rich_table("cost, time, turns, tool calls", *_efficiency_cells(data)))
    for line in data["verdicts"]:
        console.print(Text(line, style="bold" if " vs A" in line.split(":")[0] else ""))


def render_markdown(data: dict) -> str:
    def md(header, body):
        return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
                          *("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |" for cells in body)])
    parts = ["\n".join(f"- {line}" for line in _run_lines(data))]
    if _warning_lines(data):
        parts.append("\n".join(f"- note: {line}" for line in _warning_lines(data)))
    if data.get("active"):
        from .compare_activeobs import markdown_parts
        parts += markdown_parts(data, md)
    else:
        parts += [f"Accuracy on {data['shared']} shared items:", md(*_accuracy_cells(data))]
    parts += ["Cost, time, turns and tool calls per item:", md(*_efficiency_cells(data)),
              "\n".join(f"- {line}" for line in data["verdicts"])]
    return "\n\n".join(parts) + "\n"


def render_csv(data: dict) -> str:
    """One row per (group, run): accuracy and the paired stats vs A; overall rows carry cost/time/turns/tools."""
    out = io.StringIO()
    writer = csv.writer(out)
    if data.get("active"):
        from .compare_activeobs import csv_rows
        writer.writerows(csv_rows(data))
        return out.getvalue()
    eff = [f"{key}_{stat}" for key, _ in EFFICIENCY for stat in ("median", "total", "unknown")]
    writer.writerow(["scope", "group", "n", "run", "name", "label", "accuracy", "diff_vs_A", "ci_low", "ci_high",
                     "p_value", "discordant", "A_only", "run_only", *eff])
    for row in data["rows"]:
        for run, acc, stat in zip(data["runs"], row["accuracy"], row["vs_first"]):
            s = stat or {}
            cells = [row["scope"], row["group"], row["n"], run["letter"], run["name"], run["label"], f"{acc:.6g}",
                     *(s.get(k, "") for k in ("diff", "ci_low", "ci_high", "p_value", "discordant", "a_only", "b_only"))]
            if row["scope"] == "overall":
                cells += [run["efficiency"][key][stat] for key, _ in EFFICIENCY for stat in ("median", "total", "unknown")]
            writer.writerow(["" if c is None else c for c in cells])
    return out.getvalue()


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "csv", "json"]), default="table", show_default=True)
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write an accuracy-vs-cost PNG.")
@click.option("--force", is_flag=True, help="Compare even when scorer or dataset hashes differ.")
@click.option("--resamples", default=N_RESAMPLES, show_default=True, help="Bootstrap resamples for the CI.")
@click.option("--seed", default=SEED, show_default=True, help="Bootstrap seed (fixed: same CI every time).")
def command(runs, fmt, plot, force, resamples, seed):
    """Compare RUN_A with RUN_B [RUN...]: per-task/category/overall accuracy, paired tests, cost and time."""
    if len(runs) < 2:
        raise RunError("compare needs at least two runs")
    data = build([load_run(path) for path in runs], force=force, n_resamples=resamples, seed=seed)
    if fmt == "table":
        render_table(data, Console(highlight=False))
    else:
        click.echo({"markdown": render_markdown, "csv": render_csv,
                    "json": lambda d: json.dumps(d, indent=1, ensure_ascii=False) + "\n"}[fmt](data), nl=False)
    if plot:
        from .plots import accuracy_cost_plot
        accuracy_cost_plot(data, plot)
        click.echo(f"plot written to {plot}", err=True)
