"""The active-observation parts of `agent-eval show`: answer, evidence, combined and hallucination
per family under the items table; per item the observe calls in order and the evidence against the truth."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from agent_eval.analysis.item_images import ItemImages
from agent_eval.benchmarks.activeobs.evidence import Evidence, RunTruth, active_rollup, evidence_of, load_observations
from agent_eval.benchmarks.activeobs.graph_view import print_graph
from agent_eval.benchmarks.activeobs.metrics import ActiveObsMetrics
from agent_eval.benchmarks.presentation import RunOnDisk
from agent_eval.datamodel.records import ItemRecord


def fmt_pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def print_active_totals(console: Console, run: RunOnDisk) -> str:
    """Answer, evidence, combined and hallucination per family (a table) and overall (returned)."""
    rollup = active_rollup(run.records)
    table = Table(header_style="bold", title="active observation, whole run", title_style="bold")
    for name in ("family", "n", "answer", "evidence", "combined", "hallucination", "no answer"):
        table.add_column(name, justify="left" if name == "family" else "right", no_wrap=True)
    for name, s in [*rollup["families"].items(), ("overall", rollup["overall"])]:
        table.add_row(
            name,
            str(s["n"]),
            *(fmt_pct(s[k]) for k in ("answer_acc", "evidence_acc", "combined_acc", "hallucination_rate")),
            str(s["no_answer"]),
            end_section=name == next(reversed(rollup["families"]), None),
        )
    console.print(table)
    o = rollup["overall"]
    seen = ""
    if o.get("evidence_placed"):
        seen = f"; evidence in a view never obtained {fmt_pct(o['unseen_evidence_rate'])} of {o['evidence_placed']}"
    if o.get("with_graph"):
        size = "—" if o["graph_size_mean"] is None else f"{o['graph_size_mean']:.1f}"
        seen += f"; evidence in its graph {fmt_pct(o['evidence_in_graph_rate'])}, graph size {size} (mean)"
    return (
        f"answer {fmt_pct(o['answer_acc'])} ({o['answer_correct']}/{o['n']}), evidence {fmt_pct(o['evidence_acc'])}, "
        f"combined {fmt_pct(o['combined_acc'])}, hallucination {fmt_pct(o['hallucination_rate'])}" + seen
    )


def print_observations(console: Console, run: RunOnDisk, record: ItemRecord, images: ItemImages, data: Path | None):
    """An active item's observe calls in order (frame, angle, ok or the error, the view saved); returns its evidence."""
    observations, note = load_observations(images.base)
    if observations is None:
        console.print(Rule(f"observations: none logged (tool mode {run.config.tools or '?'})"))
    else:
        console.print(Rule(f"observations ({len(observations)}, in call order)"))
        for o in observations:
            saved = f" → {images.describe(o.image)}" if o.image else ""
            console.print(Text(f"#{o.n} {o.describe()}{saved}", style="" if o.ok else "red"))
    if note:
        console.print(Text(note, style="yellow"))
    print_graph(console, images.base)
    truth = RunTruth(run, data)
    item, scene = truth.item_and_scene(record.id)
    evidence = evidence_of(record, observations, item, scene)
    if truth.note:
        evidence.notes.append(truth.note)
    return evidence


def print_evidence(console: Console, record: ItemRecord, evidence: Evidence) -> None:
    for line in evidence.lines():
        console.print(Text(line, style="yellow" if line.startswith(("dataset", "the dataset")) else ""))
    metrics = ActiveObsMetrics.of(record)
    if metrics.evidence_view_observed is not None:
        seen = "a view the agent obtained" if metrics.evidence_view_observed else "a view the agent never obtained"
        graph = {None: "", True: "; its box is in the agent's graph", False: "; its box is not in the agent's graph"}
        written = graph[metrics.evidence_in_graph]
        console.print(
            Text(f"the evidence rests on {seen}{written}", style="" if metrics.evidence_view_observed else "red")
        )
    console.print(
        Text("combined (answer and evidence): ")
        + (Text("correct ✓", "bold green") if metrics.combined else Text("wrong ✗", "bold red"))
    )
