"""Accuracy versus cost per item, one marker per run (matplotlib, no display needed).

Built on `Figure` + the Agg canvas rather than pyplot: no global state, no backend choice.
Runs whose cost is unknown are named in a note on the plot, never placed at zero.
A kind may add a second marker per run (its KindComparison's plot_points; active observation: combined,
answer and evidence, hollow), joined to the first by a line.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from agent_eval.analysis.comparison_result import Comparison

MARKERS = "osD^vP*Xh<>p"


def run_label(run: dict) -> str:
    c = run["config"]
    parts = [
        c.get("agent"),
        c.get("model"),
        c.get("effort") and f"effort {c['effort']}",
        c.get("tools") and f"tools {c['tools']}",
    ]
    text = ", ".join(p for p in parts if p)
    return f"{run['letter']}: {text}" if text else f"{run['letter']}: {run['name']} (config unknown)"


def dollars(value: float, _=None) -> str:
    return f"${value:.2g}" if value < 1 else f"${value:,.0f}"


def cost_axis(ax, xs: list[float]) -> None:
    """A log-scale dollars axis spanning xs with room either side (for labels), or a default span."""
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(dollars))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: dollars(v) if str(f"{v:.0e}")[0] in "25" else ""))
    ax.set_xlim(*((min(xs) / 2, max(xs) * 2) if xs else (1e-3, 1)))


def unknown_lines(unknown: list[str]) -> int:
    return len(_unknown_text(unknown).splitlines())


def _unknown_text(unknown: list[str]) -> str:
    return textwrap.fill("cost unknown, not plotted: " + "; ".join(unknown), 130)  # folded: never past the edge


def note_unknown(fig: Figure, unknown: list[str]) -> None:
    fig.text(0.01, 0.01, _unknown_text(unknown), fontsize=7, color="darkred", va="bottom")


def accuracy_cost_plot(data: Comparison, path: Path, by: str = "run") -> tuple[list[str], list[str]]:
    """Plot compare.build()'s `data`: accuracy on the shared items vs mean known cost per item.
    Returns the letters of the runs placed and the labels of those left off for unknown cost.
    by="task": one point per run per task instead (task_plot)."""
    if by == "task":
        return task_plot(data, path)
    fig = Figure(figsize=(8, 5), dpi=150)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    placed, unknown, xs = [], [], []
    spots: dict[tuple[float, float], list[str]] = {}
    second = data.kind.plot_points(data) if data.kind is not None else None  # e.g. combined beside answer accuracy
    combined = second.values if second else [None] * len(data.runs)
    for index, (run, accuracy, both) in enumerate(zip(data.runs, data.rows[0]["accuracy"], combined)):
        cost = run["efficiency"]["cost_usd"]
        label = run_label(run)
        if cost["mean"] is None:
            unknown.append(label)
            continue
        if cost["unknown"]:
            label += f" (cost known for {data.shared - cost['unknown']}/{data.shared} items)"
        xs.append(cost["mean"])
        placed.append(run["letter"])
        dots = ax.scatter(
            [cost["mean"]], [accuracy * 100], marker=MARKERS[index % len(MARKERS)], s=70, zorder=3, label=label
        )
        if both is not None:
            colour = dots.get_facecolor()[0]
            ax.plot([cost["mean"]] * 2, [accuracy * 100, both * 100], color=colour, lw=1, alpha=0.6, zorder=2)
            ax.scatter(
                [cost["mean"]],
                [both * 100],
                marker=MARKERS[index % len(MARKERS)],
                s=70,
                zorder=3,
                facecolors="none",
                # matplotlib's stub types a colour as possibly a float; a scatter's facecolors are RGBA rows
                edgecolors=[colour],  # type: ignore[list-item]
            )
        spots.setdefault((round(cost["mean"], 6), round(accuracy * 100, 3)), []).append(run["letter"])
    for (x, y), letters in spots.items():  # runs on the same spot share one label
        ax.annotate(", ".join(letters), (x, y), xytext=(7, 5), textcoords="offset points", fontsize=10, weight="bold")
    cost_axis(ax, xs)
    ax.set_ylim(0, 100)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_xlabel("mean cost per item (USD, log scale)")
    ax.set_ylabel(f"accuracy on {data.shared} shared items (%)" + (f"\n{second.legend}" if second else ""))
    ax.set_title("Accuracy versus cost")
    if xs:
        ax.legend(fontsize=7, loc="lower right")
    if unknown:
        note_unknown(fig, unknown)
    fig.tight_layout(rect=(0, 0.025 * (unknown_lines(unknown) + 1) if unknown else 0, 1, 1))
    fig.savefig(path)
    return placed, unknown


def task_plot(data: Comparison, path: Path) -> tuple[list[str], list[str]]:
    """One point per run per task: colour = run, marker = task, a grey line joins a task across runs
    (how far the tools moved it). Per-task accuracy is compare's (shared items, mean over repeats)."""
    fig = Figure(figsize=(9, 6), dpi=150)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    tasks = [row for row in data.rows if row["scope"] == "task"]
    placed, unknown, xs = [], [], []
    colours = [f"C{i % 10}" for i in range(len(data.runs))]
    for t, row in enumerate(tasks):
        points = []
        for k, run in enumerate(data.runs):
            cost = run["task_efficiency"].get(row["group"], {}).get("cost_usd", {}).get("mean")
            if cost is None:
                continue
            points.append((cost, row["accuracy"][k] * 100))
            ax.scatter(
                [cost], [row["accuracy"][k] * 100], marker=MARKERS[t % len(MARKERS)], color=colours[k], s=50, zorder=3
            )
        if len(points) > 1:
            ax.plot(*zip(*points), color="grey", lw=0.8, alpha=0.5, zorder=2)
        xs += [x for x, _ in points]
    for k, run in enumerate(data.runs):
        known = any(e["cost_usd"]["mean"] is not None for e in run["task_efficiency"].values())
        (placed.append(run["letter"]) if known else unknown.append(run_label(run)))
        if known:
            ax.scatter([], [], color=colours[k], marker="s", label=run_label(run))
    for t, row in enumerate(tasks):
        ax.scatter([], [], color="black", marker=MARKERS[t % len(MARKERS)], label=f"task {row['group']}")
    cost_axis(ax, xs)
    ax.set_ylim(-3, 103)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_xlabel("mean cost per item of the task (USD, log scale)")
    ax.set_ylabel("accuracy on the task's shared items (%)")
    ax.set_title("Accuracy versus cost, per task (colour: run, marker: task)")
    if xs:
        ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    if unknown:
        note_unknown(fig, unknown)
    fig.tight_layout(rect=(0, 0.025 * (unknown_lines(unknown) + 1) if unknown else 0, 1, 1))
    fig.savefig(path)
    return placed, unknown
