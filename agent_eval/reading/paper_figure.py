"""The seeds' figure, from a PaperTable: accuracy against API cost per item (log scale), one marker shape and colour
per agent and model, the marker's size its effort, the tool modes of one model and effort joined by a line in the
table's column order, each point named by its mode. Written as PNG and SVG, made for print: the figure grows with
its legend, constrained layout keeps every label inside it, and the mode names sit on the side of their point that
faces the plot's centre. Runs whose cost is unknown are named under the plot, never placed at zero."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from agent_eval.reading.paper_table import PaperTable
from agent_eval.reading.plots import MARKERS, cost_axis

EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")  # smallest marker first
WIDTH_IN = 7.0  # a two-column page's text width
NEAR = 0.035  # points closer than this share of the axes' span share one label (labels would overlap)


def figure_paths(path: Path) -> list[Path]:
    """PATH as PNG and its twin as SVG (whichever of the two PATH names)."""
    if path.suffix.lower() in (".png", ".svg"):
        return [path.with_suffix(".png"), path.with_suffix(".svg")]
    return [path.with_name(path.name + ".png"), path.with_name(path.name + ".svg")]


def _sizes(efforts: list[str]) -> dict[str, float]:
    ordered = sorted(set(efforts), key=lambda e: (EFFORTS.index(e) if e in EFFORTS else len(EFFORTS), e))
    return {e: 30 + 170 * (k / max(1, len(ordered) - 1)) for k, e in enumerate(ordered)}


def build_figure(table: PaperTable) -> Figure:
    models = list(dict.fromkeys(f"{r.agent} · {r.model}" for r in table.rows))
    sizes = _sizes([r.effort for r in table.rows])
    unknown = [
        f"{r.agent} · {r.model} · {r.effort} · {column}"
        for r in table.rows
        for column, c in r.cells.items()
        if c.cost["mean"] is None
    ]
    note = textwrap.fill("cost unknown, not plotted: " + "; ".join(unknown), 120) if unknown else ""
    legend_rows = math.ceil(len(models) / 2) + math.ceil(len(sizes) / 4) + 1
    height = 4.2 + 0.2 * legend_rows + 0.16 * (note.count("\n") + 1 if note else 0)
    fig = Figure(figsize=(WIDTH_IN, height), dpi=200, layout="constrained")
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(2, 1, height_ratios=[4.2, height - 4.2])
    ax = fig.add_subplot(grid[0])
    points = []  # (x, y, text) of each placed run, labelled once the axes' limits are known
    for row in table.rows:
        model = models.index(f"{row.agent} · {row.model}")
        colour, marker = f"C{model % 10}", MARKERS[model % len(MARKERS)]
        line = [(c.cost["mean"], c.accuracy * 100, column) for column, c in row.cells.items() if c.cost["mean"]]
        line.sort(key=lambda p: table.columns.index(p[2]))
        if len(line) > 1:
            ax.plot([p[0] for p in line], [p[1] for p in line], color=colour, lw=1, alpha=0.6, zorder=2)
        for x, y, column in line:
            ax.scatter([x], [y], s=sizes[row.effort], marker=marker, color=colour, edgecolors="black", lw=0.4, zorder=3)
            points.append((x, y, column))
    xs = [x for x, _, _ in points]
    cost_axis(ax, xs)
    ax.set_ylim(-5, 105)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_xlabel("API cost per item (USD, log scale)")
    ax.set_ylabel(f"{table.accuracy_name} (%)")
    low, high = (math.log(v) for v in ax.get_xlim())
    spots: list[tuple[float, float, list[str]]] = []  # runs on (nearly) one spot share one label
    for x, y, column in points:
        near = next(
            (s for s in spots if abs(s[0] - math.log(x)) < NEAR * (high - low) and abs(s[1] - y) < NEAR * 110), None
        )
        if near is None:
            spots.append((math.log(x), y, [column]))
        elif column not in near[2]:
            near[2].append(column)
    for logx, y, names in spots:  # the label faces the centre: never past the axes' edge
        x, column = math.exp(logx), ", ".join(names)
        right = logx < (low + high) / 2
        ax.annotate(
            column,
            (x, y),
            xytext=(6 if right else -6, 4 if y < 90 else -10),
            textcoords="offset points",
            ha="left" if right else "right",
            fontsize=7,
        )
    handles = [
        Line2D([], [], ls="-", color=f"C{k % 10}", marker=MARKERS[k % len(MARKERS)], label=name, mec="black", mew=0.4)
        for k, name in enumerate(models)
    ]
    handles += [
        Line2D([], [], ls="", marker="o", color="grey", markersize=math.sqrt(s), label=f"effort {e}")
        for e, s in sizes.items()
    ]
    bottom = fig.add_subplot(grid[1])
    bottom.axis("off")
    bottom.legend(handles=handles, loc="upper center", ncol=2, fontsize=7, frameon=False, borderaxespad=0)
    if note:
        bottom.text(0, 0, note, fontsize=6, color="darkred", va="bottom", transform=bottom.transAxes)
    return fig


def write_figure(table: PaperTable, path: Path) -> list[Path]:
    fig = build_figure(table)
    written = figure_paths(path)
    for target in written:
        target.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(target)
    return written
