"""A PaperTable (reading/paper_table.py) as Markdown, LaTeX (booktabs) or CSV.

Markdown and LaTeX print one panel per measure, each with the same rows (agent, model, effort) and columns (tool
modes), and the notes under it; CSV is one line per run with every number and where it came from, for a script.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from typing import Any

from agent_eval.analysis.stats import ALPHA
from agent_eval.datamodel.pricing import price_data_of
from agent_eval.reading.comparison import item_scores
from agent_eval.reading.paper_table import Cell, PaperTable

DASH = "—"


def _pct(value: float | None) -> str:
    return DASH if value is None else f"{value * 100:.1f}"


def _signed(value: float | None, scale: float = 100, digits: int = 1) -> str:
    return DASH if value is None else f"{value * scale:+.{digits}f}"


def _p(stat: dict | None) -> str:
    if not stat:
        return DASH
    adjusted = stat.get("p_table_holm")
    return f"{stat['p_value']:.3g} ({adjusted:.3g})" if adjusted is not None else f"{stat['p_value']:.3g}"


def _star(stat: dict) -> str:
    adjusted = stat.get("p_table_holm")
    return "*" if adjusted is not None and adjusted < ALPHA else ""


def _change(stat: dict | None, scale: float = 100, digits: int = 1) -> str:
    if not stat or stat.get("diff") is None:
        return DASH
    text = _signed(stat["diff"], scale, digits) + _star(stat)
    if stat.get("ci_low") is not None and stat.get("ci_high") is not None:
        text += f" [{_signed(stat['ci_low'], scale, digits)}, {_signed(stat['ci_high'], scale, digits)}]"
    return text


def _money(e: dict) -> str:
    if e["mean"] is None:
        return "unknown"
    value = e["mean"]
    text = f"${value:.4f}" if value < 1 else f"${value:.2f}"
    return text + (f" ({e['unknown']} unknown)" if e["unknown"] else "")


def _tokens(e: dict) -> str:
    if e["mean"] is None:
        return "unknown"
    return f"{e['mean']:,.0f}" + (f" ({e['unknown']} unknown)" if e["unknown"] else "")


def _value(value: float | None, percent: bool, digits: int) -> str:
    if value is None:
        return DASH
    return f"{value * 100:.{digits}f}" if percent else f"{value:.{digits}f}"


Panel = tuple[str, Callable[[Cell], str]]


def panels(table: PaperTable) -> list[Panel]:
    """(title, cell text) per measure, in the order a paper reads them."""
    out: list[Panel] = [
        (
            f"{table.accuracy_name} (%) [95% CI]",
            lambda c: f"{_pct(c.accuracy)} [{_pct(c.interval[0])}, {_pct(c.interval[1])}]" if c.interval else DASH,
        ),
    ]
    if "accuracy" in table.changed:
        out += [
            ("change against none (pts) [95% CI]", lambda c: _change(c.change)),
            ("p against none (Holm)", lambda c: _p(c.change)),
        ]
    out += [("API cost per item (USD)", lambda c: _money(c.cost)), ("tokens per item", lambda c: _tokens(c.tokens))]
    for j, name in enumerate(table.measures):
        first = next(iter(table.rows[0].cells.values())).measures[j]
        unit = " (%)" if first.percent else ""

        def value(c: Cell, j: int = j) -> str:
            return _value(c.measures[j].values[0], c.measures[j].percent, c.measures[j].digits)

        out.append((f"{name}{unit}", value))
        if name in table.changed:
            scale = 100 if first.percent else 1
            change = first.change_name or name

            def stat(c: Cell, j: int = j) -> dict[str, Any] | None:
                vs_first = c.measures[j].vs_first
                return vs_first[0] if vs_first else None

            def changed(c: Cell, stat: Callable[[Cell], dict[str, Any] | None] = stat, scale: float = scale) -> str:
                return _change(stat(c), scale)

            def p_value(c: Cell, stat: Callable[[Cell], dict[str, Any] | None] = stat) -> str:
                return _p(stat(c))

            out += [
                (f"change in {change}{' (pts)' if first.percent else ''}", changed),
                (f"p, {change} ({first.test}; Holm)", p_value),
            ]
    return out


def _grid(table: PaperTable, text: Callable[[Cell], str]) -> list[list[str]]:
    return [
        [row.agent, row.model, row.effort, *(text(row.cells[c]) if c in row.cells else DASH for c in table.columns)]
        for row in table.rows
    ]


HEADER = ["agent", "model", "effort"]


def render_markdown(table: PaperTable) -> str:
    def md(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    parts = [f"**{table.benchmark}: rows agent × model × effort, columns tool modes**"]
    for title, text in panels(table):
        lines = [f"*{title}*", "", md(HEADER + table.columns), "|---|---|---|" + "---:|" * len(table.columns)]
        lines += [md(cells) for cells in _grid(table, text)]
        parts.append("\n".join(lines))
    parts.append("Notes:\n\n" + "\n".join(f"{n}. {note}" for n, note in enumerate(table.notes, start=1)))
    return "\n\n".join(parts) + "\n"


LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "—": "---",
    "−": "-",
    "–": "--",
    "×": r"$\times$",
    "·": r"$\cdot$",
    "α": r"$\alpha$",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "→": r"$\rightarrow$",
    "…": r"\ldots{}",
    "✓": "yes",
    "✗": "no",
}
_LATEX_RE = re.compile("|".join(re.escape(k) for k in LATEX_SPECIALS))


def latex_escape(text: str) -> str:
    escaped = _LATEX_RE.sub(lambda m: LATEX_SPECIALS[m.group(0)], text)
    return escaped.encode("ascii", "replace").decode()  # nothing a plain pdflatex cannot set


def render_latex(table: PaperTable, label: str = "tab:agent-eval") -> str:
    width = len(HEADER) + len(table.columns)
    lines = [
        "% agent-eval table: needs \\usepackage{booktabs} in the preamble",
        "\\begin{table}[t]",
        "\\centering",
        "\\small",
        f"\\begin{{tabular}}{{lll{'r' * len(table.columns)}}}",
        "\\toprule",
        " & ".join(latex_escape(h.capitalize()) for h in HEADER)
        + "".join(f" & {latex_escape(c)}" for c in table.columns)
        + " \\\\",
    ]
    for title, text in panels(table):
        lines += ["\\midrule", f"\\multicolumn{{{width}}}{{l}}{{\\textit{{{latex_escape(title)}}}}} \\\\"]
        lines += [" & ".join(latex_escape(c) for c in cells) + " \\\\" for cells in _grid(table, text)]
    lines += [
        "\\bottomrule",
        "\\end{tabular}",
        f"\\caption{{{latex_escape(table.benchmark)}: {latex_escape(table.accuracy_name)} and cost by agent, model "
        "and effort (rows) and tool mode (columns).}",
        f"\\label{{{label}}}",
        "\\par\\smallskip",
        "\\begin{minipage}{\\linewidth}\\footnotesize\\raggedright",
        *(f"{n}. {latex_escape(note)}\\par" for n, note in enumerate(table.notes, start=1)),
        "\\end{minipage}",
        "\\end{table}",
    ]
    return "\n".join(lines) + "\n"


def render_csv(table: PaperTable) -> str:
    """One line per run: its cell's numbers, the table's Holm, and where the run came from."""
    measure_keys = [re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") for name in table.measures]
    header = [
        "agent",
        "model",
        "effort",
        "column",
        "run",
        "path",
        "n",
        "accuracy",
        "ci_low",
        "ci_high",
        "diff_vs_none",
        "diff_ci_low",
        "diff_ci_high",
        "p_value",
        "p_holm_table",
        "cost_per_item_usd",
        "cost_unknown",
        "tokens_per_item",
        "tokens_unknown",
    ]
    for key, name in zip(measure_keys, table.measures):
        tested = [f"{key}_diff_vs_none", f"{key}_p_value", f"{key}_p_holm_table"]
        header += [key] + (tested if name in table.changed else [])
    header += ["repeats", "harness_version", "cli_version", "price_data", "started_at", "finished_at"]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    for row in table.rows:
        for column in table.columns:
            cell = row.cells.get(column)
            if cell is None:
                continue
            s = cell.change or {}
            m = cell.run.manifest
            values = [
                row.agent,
                row.model,
                row.effort,
                column,
                cell.run.name,
                str(cell.run.root),
                cell.n,
                cell.accuracy,
                *(cell.interval or (None, None)),
                s.get("diff"),
                s.get("ci_low"),
                s.get("ci_high"),
                s.get("p_value"),
                s.get("p_table_holm"),
                cell.cost["mean"],
                cell.cost["unknown"],
                cell.tokens["mean"],
                cell.tokens["unknown"],
            ]
            for measure, name in zip(cell.measures, table.measures):
                values.append(measure.values[0])
                if name in table.changed:
                    stat = (measure.vs_first or [None])[0] or {}
                    values += [stat.get("diff"), stat.get("p_value"), stat.get("p_table_holm")]
            values += [
                item_scores(cell.run.records)[1],
                m.project_version if m else None,
                cell.run.config.cli_version,
                price_data_of(cell.run.records, m.pricing if m else None),
                m.started_at if m else None,
                m.finished_at if m else None,
            ]
            writer.writerow(["" if v is None else v for v in values])
    return out.getvalue()
