"""`agent-eval compare RUN_A RUN_B [RUN...]`: accuracy side by side with paired statistics.

Every run is compared with the first on the items all runs share: exact McNemar p and a
bootstrap 95% CI for the paired accuracy difference, per task, per category and overall;
then cost, time, turns and tool calls per item. Results of the benchmark's own no-tool
evaluation (no run.json) are accepted, with a note that their hashes are unknown.
Active-observation runs add answer/evidence/combined/hallucination per family (compare_activeobs);
runs of different benchmarks are refused. Item by item (docs/compare.md names the JSON fields):
the items that changed (changes.py), tool use and broken ablations (tool_use.py), repeats and
noise (repeats.py), cost per right answer (efficiency.py); compare_sections.py lays them out.
Group p-values get a Holm-adjusted column; with repeats a permutation test joins the sign test.
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

from . import compare_sections as sections
from .changes import changed_items
from .efficiency import PER_CORRECT, per_correct, task_efficiency
from .records import ItemRecord
from .repeats import noise_check, noise_sentences, repeat_summary, share_rows
from .tool_use import tool_sentences, tool_use
from .show import ACTIVE, LoadedRun, RunError, fmt_cost, fmt_time, load_run, run_warnings
from .group_tests import add_holm, holm_sentence
from .stats import ALPHA, N_RESAMPLES, SEED, median_total, min_possible_p, paired, sign_flip_test

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
        size = image.get("at_api") or image.get("received")  # the gateway's view is the authority
        if image.get("via") in ("inline", "file_view") and size:
            return tuple(size)
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
    repeated = any(most > 1 for _, most in scored)
    rows = []
    for scope, name, ids in groups:
        columns = [[s[i] for i in ids] for s, _ in scored]
        vs_first = [None] + [paired(columns[0], c, n_resamples, seed).to_json() for c in columns[1:]]
        if repeated:  # the permutation test weighs how far each item's share of right repeats moved
            for stat, column in zip(vs_first[1:], columns[1:]):
                stat["permutation"] = sign_flip_test(columns[0], column, n_resamples, seed)
        rows.append({"scope": scope, "group": name, "n": len(ids),
                     "accuracy": [sum(c) / len(c) for c in columns], "vs_first": vs_first})
    add_holm(rows, ("category", "task"), ("vs_first",))
    shared_set = set(shared)
    efficiency = [{key: median_total([getattr(r, key) for r in run.records if r.id in shared_set]) for key, _ in EFFICIENCY}
                  for run in runs]
    entries = [_run_entry(letter, run, eff, shared_set) for letter, run, eff in zip(letters, runs, efficiency)]
    scores = [s for s, _ in scored]
    noise = noise_check(letters, [e["repeats"] for e in entries], scores, shared)
    data = {"benchmark": benchmark, "alpha": ALPHA, "n_resamples": n_resamples, "seed": seed, "shared": len(shared),
            "runs": entries, "notes": notes, "rows": rows, "verdicts": _verdicts(letters, rows, groups),
            "changed": changed_items(runs, letters, scores, shared), "noise": noise,
            "item_shares": dict(zip(("header", "rows"), share_rows(letters, scores, shared)))}
    if benchmark == ACTIVE:  # answer, evidence, combined, hallucination; tests on answer and on combined
        from .compare_activeobs import TESTED, active_verdicts, build_active
        families = [("family", name, ids) for scope, name, ids in groups if scope == "category"]
        data["active"] = build_active(runs, [groups[0], *families], n_resamples, seed)
        add_holm(data["active"]["rows"], ("family",), tuple(f"{m}_vs_first" for m, _ in TESTED))
        data["verdicts"] = active_verdicts(letters, data["active"])
    data["verdicts"] += noise_sentences(noise) + tool_sentences(entries)
    return data


def _run_entry(letter: str, run: LoadedRun, efficiency: dict, shared: set[str]) -> dict:
    scores, _ = item_scores(run.records)
    records = [r for r in run.records if r.id in shared]
    warnings = run_warnings(run)
    return {"letter": letter, "name": run.name, "path": str(run.root), "label": run.label, "config": run.config,
            "n_items": len(scores), "own_accuracy": sum(scores.values()) / len(scores),
            "warnings": [note for _, note in warnings],
            "loud_warnings": [note for loud, note in warnings if loud], "efficiency": efficiency,
            "per_correct": per_correct(records), "task_efficiency": task_efficiency(records),
            "repeats": repeat_summary(run.records, shared), "tool_use": tool_use(run, shared)}


def _verdict(letter: str, stat: dict, what: str = "") -> str:
    sig = f"significant at α={ALPHA}" if stat["significant"] else f"not significant at α={ALPHA}"
    same = "; the two runs agree on every shared item" if stat["discordant"] == 0 else ""
    return (f"{letter} vs A{', ' + what if what else ''}: {_pts(stat['diff'])} [95% CI {_pts(stat['ci_low'])}, "
            f"{_pts(stat['ci_high'])}], exact McNemar p = {stat['p_value']:.3g} on {stat['discordant']} discordant items "
            f"({letter} alone right on {stat['b_only']}, A alone on {stat['a_only']}): {sig}{same}"
            + (_permutation_clause(stat["permutation"]) if "permutation" in stat else ""))


def _permutation_clause(perm: dict) -> str:
    how = "exact" if perm["exact"] else "Monte Carlo"
    sig = "significant" if perm["p_value"] < ALPHA else "not significant"
    return (f"; on per-item shares of right repeats the paired permutation test gives p = {perm['p_value']:.3g} "
            f"({how}, {perm['nonzero']} items differ): {sig}")


def _verdicts(letters: list[str], rows: list[dict], groups) -> list[str]:
    """Plain sentences for the overall rows, and what small groups can and cannot show."""
    out = [_verdict(letter, stat) for letter, stat in zip(letters[1:], rows[0]["vs_first"][1:])]
    small = [len(ids) for scope, _, ids in groups if scope != "overall" and min_possible_p(len(ids)) >= ALPHA]
    if small:
        out.append(f"{len(small)} per-category/per-task groups have at most {max(small)} items: even if every item "
                   f"differed one way the exact p could not go below {min_possible_p(max(small)):.3g}, so no difference "
                   f"there can be significant at α={ALPHA}")
    sentence = holm_sentence(rows, letters, ("vs_first",), "per-category and per-task")
    return out + ([sentence] if sentence else [])


def _pts(diff: float | None, unit: str = " pts") -> str:
    return "?" if diff is None else f"{diff * 100:+.1f}{unit}"


def _pct(value: float | None) -> str:
    return "?" if value is None else f"{value:.1%}"


def _pval(stat: dict) -> str:
    return f"{stat['p_value']:.3g}{'' if stat['significant'] else ' n.s.'} ({stat['discordant']})"


def _per_comparison(data: dict) -> list[str]:
    """The cells each comparison with A adds to a row: CI, p, p Holm, and with repeats the permutation p."""
    extra = ["perm. p"] if any("permutation" in (s or {}) for s in data["rows"][0]["vs_first"]) else []
    return ["pts [95% CI]", "p (disc.)", "p Holm", *extra]


def _accuracy_cells(data: dict) -> tuple[list[str], list[list[str]]]:
    letters = [r["letter"] for r in data["runs"]]
    header = ["scope", "group", "n", *letters]
    names = _per_comparison(data)
    for letter in letters[1:]:
        header += [f"{letter}−A {names[0]}", f"p {letter}:A (disc.)", f"Holm {letter}",
                   *([f"perm. p {letter}"] if len(names) > 3 else [])]
    body = []
    for row in data["rows"]:
        cells = [row["scope"], row["group"], str(row["n"]), *map(_pct, row["accuracy"])]
        for stat in row["vs_first"][1:]:
            cells += [f"{_pts(stat['diff'], '')} [{_pts(stat['ci_low'], '')}, {_pts(stat['ci_high'], '')}]", _pval(stat),
                      _pholm(stat.get("p_holm"))]
            if len(names) > 3:
                cells.append(f"{stat['permutation']['p_value']:.3g}")  # its Holm-adjusted p: json and csv
        body.append(cells)
    return header, body


def _pholm(p: float | None) -> str:
    return "—" if p is None else f"{p:.3g}{'' if p < ALPHA else ' n.s.'}"


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
                         no_wrap=bool(i), min_width=widest if i else min(widest, 14))
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
    loud = {f"{r['letter']}: {w}" for r in data["runs"] for w in r.get("loud_warnings", [])}
    for line in _warning_lines(data):
        console.print(Text(f"!! {line}", style="bold red") if line in loud else Text(f"note: {line}", style="yellow"))
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
        w = len(_per_comparison(data))
        for j, letter in enumerate(h for h in header[4:3 + k]):
            cols = [0, 1, 2, 3, 4 + j, *range(3 + k + w * j, 3 + k + w * (j + 1))]
            console.print(_rich_table(f"{letter} vs A", [header[c] for c in cols], [[cells[c] for c in cols] for cells in body]))
    console.print(_rich_table("cost, time, turns, tool calls", *_efficiency_cells(data)))
    sections.render_table(data, console)
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
              *sections.markdown_parts(data, md), "\n".join(f"- {line}" for line in data["verdicts"])]
    return "\n\n".join(parts) + "\n"


def render_csv(data: dict, table: str = "accuracy") -> str:
    """accuracy: one row per (group, run): accuracy and the paired stats vs A; overall rows carry
    cost/time/turns/tools and cost/time/turns per right answer. Other tables: compare_sections.csv_table."""
    out = io.StringIO()
    writer = csv.writer(out)
    if table != "accuracy":
        writer.writerows(sections.csv_table(data, table))
        return out.getvalue()
    if data.get("active"):
        from .compare_activeobs import csv_rows
        writer.writerows(csv_rows(data))
        return out.getvalue()
    eff = [f"{key}_{stat}" for key, _ in EFFICIENCY for stat in ("median", "total", "unknown")]
    writer.writerow(["scope", "group", "n", "run", "name", "label", "accuracy", "diff_vs_A", "ci_low", "ci_high",
                     "p_value", "discordant", "A_only", "run_only", "p_holm", "perm_p_value", "perm_p_holm", *eff,
                     *(f"{key}_per_correct" for key, _ in PER_CORRECT)])
    for row in data["rows"]:
        for run, acc, stat in zip(data["runs"], row["accuracy"], row["vs_first"]):
            s = stat or {}
            perm = s.get("permutation") or {}
            cells = [row["scope"], row["group"], row["n"], run["letter"], run["name"], run["label"], f"{acc:.6g}",
                     *(s.get(k, "") for k in ("diff", "ci_low", "ci_high", "p_value", "discordant", "a_only", "b_only",
                                              "p_holm")), perm.get("p_value", ""), perm.get("p_holm", "")]
            if row["scope"] == "overall":
                cells += [run["efficiency"][key][stat] for key, _ in EFFICIENCY for stat in ("median", "total", "unknown")]
                cells += [run["per_correct"][key] for key, _ in PER_CORRECT]
            writer.writerow(["" if c is None else c for c in cells])
    return out.getvalue()


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "csv", "json"]), default="table", show_default=True)
@click.option("--table", "csv_table", type=click.Choice(sections.CSV_TABLES), default="accuracy", show_default=True,
              help="Which table --format csv writes: accuracy and paired tests per group; changed (the items only one "
                   "run got right); tools (tool use per run); repeats (flip rate, majority and all-K accuracy); "
                   "items (each item's share of right repeats per run).")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write an accuracy-vs-cost PNG.")
@click.option("--plot-by", type=click.Choice(["run", "task"]), default="run", show_default=True,
              help="--plot: one point per run, or one per run per task (tasks joined across runs).")
@click.option("--force", is_flag=True, help="Compare even when scorer or dataset hashes differ.")
@click.option("--resamples", default=N_RESAMPLES, show_default=True,
              help="Resamples for the bootstrap CI, and for the permutation test when its 2^m sign patterns do not fit.")
@click.option("--seed", default=SEED, show_default=True, help="Resampling seed (fixed: same CI and p every time).")
def command(runs, fmt, csv_table, plot, plot_by, force, resamples, seed):
    """Compare RUN_A with RUN_B [RUN...]: per-task/category/overall accuracy with paired tests (Holm-adjusted
    per group), cost and time per item and per right answer, repeats (flip rate, majority and all-K
    accuracy, a permutation test on per-item shares), tool use per run (answered blind, broken ablations),
    and the items only one run got right with the commands that open both transcripts."""
    if len(runs) < 2:
        raise RunError("compare needs at least two runs")
    if csv_table != "accuracy" and fmt != "csv":
        raise RunError(f"--table {csv_table} chooses the table of --format csv; add --format csv "
                       "(the other formats show every table)")
    data = build([load_run(path) for path in runs], force=force, n_resamples=resamples, seed=seed)
    if fmt == "table":
        render_table(data, Console(highlight=False))
    else:
        click.echo({"markdown": render_markdown, "csv": lambda d: render_csv(d, csv_table),
                    "json": lambda d: json.dumps(d, indent=1, ensure_ascii=False) + "\n"}[fmt](data), nl=False)
    if plot:
        from .plots import accuracy_cost_plot
        accuracy_cost_plot(data, plot, by=plot_by)
        click.echo(f"plot written to {plot}", err=True)
