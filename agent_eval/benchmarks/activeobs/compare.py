"""The active-observation part of `agent-eval compare`: per family and overall, each run's answer, evidence and
combined accuracy and hallucination rate side by side, with paired tests (exact McNemar, bootstrap CI) on the answer
and on combined. With repeats an item's score is its mean (as reading/comparison.py item_scores). Hallucination
(right answers whose evidence fails, as a share of right answers) is descriptive: its denominator differs between
runs, so it gets no paired test."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from rich.console import Console
from rich.table import Table

from agent_eval.analysis.comparison_result import Comparison, KindComparison, Markdown, Measure, PlotPoints
from agent_eval.analysis.efficiency import EFFICIENCY
from agent_eval.analysis.group_tests import holm_sentence
from agent_eval.analysis.stats import ALPHA, min_possible_p, paired
from agent_eval.analysis.verdicts import pct, pholm, pts, pval, verdict
from agent_eval.benchmarks.activeobs.grading import seen_summary
from agent_eval.benchmarks.activeobs.metrics import ActiveObsMetrics

METRICS = ("answer", "evidence", "combined")
TESTED = (("answer", "answer"), ("combined", "combined (answer and evidence)"))


def metric_scores(records) -> dict[str, dict[str, float]]:
    """metric -> item id -> score (mean over repeats); harness failures count as wrong."""
    by: dict[str, dict[str, list[float]]] = {m: defaultdict(list) for m in METRICS}
    for r in records:
        metrics = ActiveObsMetrics.of(r)
        answer, evidence = metrics.answer_right(r), metrics.evidence_correct
        for metric, value in zip(METRICS, (answer, evidence, answer and evidence)):
            by[metric][r.id].append(float(value))
    return {m: {i: sum(v) / len(v) for i, v in d.items()} for m, d in by.items()}


# What the evidence rests on (seen.py), descriptive like hallucination: each has its own denominator (records with
# evidence placed, records with a world model), so no paired test. (key, seen_summary's name, label)
SEEN = (
    ("unseen_view", "unseen_evidence_rate", "evidence in a view never obtained"),
    ("in_graph", "evidence_in_graph_rate", "evidence box written into the graph"),
    ("graph_size", "graph_size_mean", "graph size (mean)"),
)


def build_active(runs, groups, n_resamples: int, seed: int) -> dict:
    """`groups`: (scope, name, ids) with scope overall or family, on the shared items."""
    scores = [metric_scores(run.records) for run in runs]
    rows = []
    for scope, name, ids in groups:
        row = {"scope": scope, "group": name, "n": len(ids)}
        sums = {m: [sum(s[m][i] for i in ids) for s in scores] for m in METRICS}
        for metric in METRICS:
            row[metric] = [total / len(ids) for total in sums[metric]]
        row["hallucination"] = [(a - c) / a if a else None for a, c in zip(sums["answer"], sums["combined"])]
        wanted = set(ids)
        seen = [seen_summary([ActiveObsMetrics.of(r) for r in run.records if r.id in wanted]) for run in runs]
        for key, name, _ in SEEN:
            row[key] = [values[name] for values in seen]
        for metric, _ in TESTED:
            columns = [[s[metric][i] for i in ids] for s in scores]
            row[f"{metric}_vs_first"] = [None] + [
                paired(columns[0], c, n_resamples, seed).to_json() for c in columns[1:]
            ]
        rows.append(row)
    return {"metrics": list(METRICS), "tested": [m for m, _ in TESTED], "rows": rows}


def active_verdicts(letters: list[str], active: dict) -> list[str]:
    overall = active["rows"][0]
    out = [
        verdict(letter, overall[f"{metric}_vs_first"][j], label)
        for j, letter in enumerate(letters[1:], start=1)
        for metric, label in TESTED
    ]
    out.append(
        "hallucination (right answers without supporting evidence, as a share of right answers) is "
        "descriptive: its denominator differs between runs, so it has no paired test"
    )
    if any(v is not None for v in overall.get("unseen_view", [])):
        out.append(
            "evidence in a view never obtained (of the answers whose evidence could be placed), evidence box written "
            "into the graph and graph size (runs with the world model) are descriptive too"
        )
    small = [row["n"] for row in active["rows"][1:] if min_possible_p(row["n"]) >= ALPHA]
    if small:
        out.append(
            f"{len(small)} families have at most {max(small)} items: even if every item differed one way "
            f"the exact p could not go below {min_possible_p(max(small)):.3g}, so no difference there can be "
            f"significant at α={ALPHA}"
        )
    sentence = holm_sentence(active["rows"], letters, tuple(f"{m}_vs_first" for m, _ in TESTED), "per-family")
    return out + ([sentence] if sentence else [])


def _lead(row: dict, letter: str) -> list[str]:
    """The cells every table's row starts with: its group and the run."""
    return [row["scope"], row["group"], str(row["n"]), letter]


def _cell(key: str, value) -> str:
    """A rate as a percentage, the graph's size as a mean; "—" where none is known."""
    if value is None:
        return "—"
    return f"{value:.1f}" if key == "graph_size" else pct(value)


def _screen_table(title: str, header: list[str], body: list[list[str]]) -> Table:
    """Scope dropped; the group and n shown once per group, groups in sections."""
    table = Table(title=title, header_style="bold", title_style="bold")
    for i, name in enumerate(header[1:]):
        widest = max(len(cells[1 + i]) for cells in body)
        table.add_column(
            name,
            justify="left" if i in (0, 2) else "right",
            no_wrap=True,
            min_width=min(widest, 14) if i == 0 else widest,
            overflow="ellipsis",
        )
    for index, cells in enumerate(body):
        first = index == 0 or body[index - 1][1] != cells[1]
        last = index + 1 == len(body) or body[index + 1][1] != cells[1]
        shown = cells[1:] if first else ["", "", *cells[3:]]
        table.add_row(*shown, end_section=last and len(body) > 1)
    return table


@dataclass
class ActiveComparison(KindComparison):
    """Answer, evidence, combined and hallucination per family (build_active's tables), with paired tests on answer
    and combined."""

    active: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"active": self.active}

    def table_measures(self) -> list[Measure]:
        row = self.active["rows"][0]
        return [
            Measure("evidence accuracy", row["evidence"], percent=True),
            Measure(
                "combined (answer and evidence)",
                row["combined"],
                percent=True,
                vs_first=row["combined_vs_first"],
                test="exact McNemar test",
            ),
            Measure("hallucination (right answers without evidence)", row["hallucination"], percent=True),
        ]

    def metric_cells(self, data: Comparison) -> tuple[list[str], list[list[str]]]:
        header = ["scope", "group", "n", "run", "answer", "evidence", "combined", "hallucination"]
        body = [
            [*_lead(row, run["letter"]), *(pct(row[m][k]) for m in METRICS), _cell("rate", row["hallucination"][k])]
            for row in self.active["rows"]
            for k, run in enumerate(data.runs)
        ]
        return header, body

    def seen_cells(self, data: Comparison) -> tuple[list[str], list[list[str]]] | None:
        """What the evidence rests on, per group and run; None for runs made before it was measured."""
        rows = self.active["rows"]
        if not any(v is not None for row in rows for key, _, _ in SEEN for v in row.get(key, [])):
            return None
        header = ["scope", "group", "n", "run", *(label for _, _, label in SEEN)]
        body = [
            [*_lead(row, run["letter"]), *(_cell(k, row[k][j]) for k, _, _ in SEEN)]
            for row in rows
            for j, run in enumerate(data.runs)
        ]
        return header, body

    def paired_cells(self, data: Comparison) -> tuple[list[str], list[list[str]]]:
        header = ["scope", "group", "n", "run"]
        for metric, _ in TESTED:
            header += [f"{metric} −A pts [95% CI]", f"p {metric} (disc.)", f"p Holm {metric}"]
        body = []
        for row in self.active["rows"]:
            for k, run in enumerate(data.runs[1:], start=1):
                cells = _lead(row, f"{run['letter']}:A")
                for metric, _ in TESTED:
                    s = row[f"{metric}_vs_first"][k]
                    cells += [
                        f"{pts(s['diff'], '')} [{pts(s['ci_low'], '')}, {pts(s['ci_high'], '')}]",
                        pval(s),
                        pholm(s.get("p_holm")),
                    ]
                body.append(cells)
        return header, body

    def _tables(self, data: Comparison) -> list[tuple[str, str, list[str], list[list[str]]]]:
        """(printed title, markdown heading, header, body): the rates; what the evidence rests on, once measured; the
        paired tests, with two runs or more."""
        rates = f"answer, evidence, combined and hallucination on {data.shared} shared items"
        tables = [(rates, rates.capitalize() + ":", *self.metric_cells(data))]
        seen = self.seen_cells(data)
        if seen:
            tables.append(
                ("what the evidence rests on (descriptive)", "What the evidence rests on (descriptive):", *seen)
            )
        if len(data.runs) > 1:
            heading = "Paired tests against A (exact McNemar, bootstrap 95% CI), on the answer and on combined:"
            tables.append(("paired tests against A: answer, and combined", heading, *self.paired_cells(data)))
        return tables

    def print_table(self, data: Comparison, console: Console) -> bool:
        for title, _, header, body in self._tables(data):
            widths = [max(len(c) for c in column) for column in zip(*[header[1:], *(cells[1:] for cells in body)])]
            if not title.startswith("paired") or sum(widths) + 3 * len(widths) + 1 <= console.width:
                console.print(_screen_table(title, header, body))
                continue
            for j, (_metric, label) in enumerate(TESTED):  # too wide: one table per tested metric
                cols = [0, 1, 2, 3, 4 + 3 * j, 5 + 3 * j, 6 + 3 * j]
                shown = [[cells[c] for c in cols] for cells in body]
                console.print(_screen_table(f"paired tests against A: {label}", [header[c] for c in cols], shown))
        return True

    def markdown_parts(self, data: Comparison, md: Markdown) -> list[str] | None:
        return [part for _, heading, header, body in self._tables(data) for part in (heading, md(header, body))]

    def csv_rows(self, data: Comparison) -> list[list] | None:
        """One row per (group, run): the four rates, the paired stats on answer and combined vs A; cost etc. on
        overall rows."""
        stat_keys = ("diff", "ci_low", "ci_high", "p_value", "discordant", "a_only", "b_only", "p_holm")
        names = {"a_only": "A_only", "b_only": "run_only", "diff": "diff_vs_A"}
        stats = ("median", "total", "unknown")
        eff = [f"{key}_{stat}" for key, _ in EFFICIENCY for stat in stats]
        rates = ["answer_acc", "evidence_acc", "combined_acc", "hallucination_rate"]
        tested = [f"{m}_{names.get(k, k)}" for m, _ in TESTED for k in stat_keys]
        seen = ["unseen_view_rate", "in_graph_rate", "graph_size_mean"]
        out = [["scope", "group", "n", "run", "name", "label", *rates, *tested, *eff, *seen]]
        for row in self.active["rows"]:
            for k, run in enumerate(data.runs):
                cells = [row["scope"], row["group"], row["n"], run["letter"], run["name"], run["label"]]
                cells += [*(f"{row[m][k]:.6g}" for m in METRICS), row["hallucination"][k]]
                for metric, _ in TESTED:
                    s = row[f"{metric}_vs_first"][k] or {}
                    cells += [s.get(key, "") for key in stat_keys]
                efficiency = [run["efficiency"][key][stat] for key, _ in EFFICIENCY for stat in stats]
                cells += efficiency if row["scope"] == "overall" else [""] * len(eff)
                cells += [(row.get(key) or [None] * len(data.runs))[k] for key, _, _ in SEEN]
                out.append(["" if c is None else c for c in cells])
        return out

    def plot_points(self, data: Comparison) -> PlotPoints:
        return PlotPoints(self.active["rows"][0]["combined"], "filled: answer; hollow: combined (answer and evidence)")
