"""How active-observation runs read: show, report and compare reach this kind only through these hooks
(answer, evidence, combined and hallucination per family; the views and evidence of each item)."""

from __future__ import annotations

from pathlib import Path

from agent_eval.benchmarks.base import ReadingHooks

TEMPLATES = Path(__file__).resolve().parent / "templates"


class ActiveReading(ReadingHooks):
    group_column = "family"
    marks = (("evidence", "evidence_correct"), ("combined", "combined"))
    accuracy_name = "answer accuracy"
    templates_dir = TEMPLATES
    report_css = "active.css.j2"
    side_by_side = False  # one task, and the family table says more

    def group_of(self, record) -> str:
        return record.category

    # -- show
    def show_totals(self, console, run) -> str:
        from agent_eval.benchmarks.activeobs.show import print_active_totals

        return print_active_totals(console, run)

    def show_item(self, console, run, record, images, data):
        from agent_eval.benchmarks.activeobs.show import print_observations

        return print_observations(console, run, record, images, data)

    def show_outcome(self, console, record, state) -> None:
        from agent_eval.benchmarks.activeobs.show import print_evidence

        print_evidence(console, record, state)

    # -- compare
    def compare(self, runs, letters, groups, n_resamples, seed) -> dict:
        from agent_eval.analysis.group_tests import add_holm
        from agent_eval.benchmarks.activeobs.compare import (
            TESTED,
            active_verdicts,
            build_active,
        )

        families = [("family", name, ids) for scope, name, ids in groups if scope == "category"]
        active = build_active(runs, [groups[0], *families], n_resamples, seed)
        add_holm(active["rows"], ("family",), tuple(f"{m}_vs_first" for m, _ in TESTED))
        return {"active": active, "verdicts": active_verdicts(letters, active)}

    def compare_table(self, data, console) -> bool:
        from agent_eval.benchmarks.activeobs.compare import render_active_table

        render_active_table(data, console)
        return True

    def compare_markdown(self, data, md):
        from agent_eval.benchmarks.activeobs.compare import markdown_parts

        return markdown_parts(data, md)

    def compare_csv(self, data):
        from agent_eval.benchmarks.activeobs.compare import csv_rows

        return list(csv_rows(data))

    def plot_second_point(self, data):
        return data["active"]["rows"][0]["combined"], "filled: answer; hollow: combined (answer and evidence)"

    # -- report
    def report_truth(self, run, data, loaded):
        from agent_eval.benchmarks.activeobs.evidence import RunTruth
        from agent_eval.benchmarks.activeobs.loader import is_active_dataset

        return RunTruth(run, data if data and is_active_dataset(data) else None, loaded)

    def report_item(self, run, record, images, embed, transcript, truth):
        from agent_eval.benchmarks.activeobs.report import active_item

        view = active_item(run, record, images, embed, transcript, truth)
        return {
            **view,
            "template": "active_item.html.j2",
            "chips_template": "active_chips.html.j2",
            "figures_template": "active_figures.html.j2",
            "outcome_template": "active_outcome.html.j2",
            "changed_template": "active_changed.html.j2",
            "group": record.category,
            "answer_label": "answer: ",
            # right answer, wrong evidence: shown as half credit
            "partial": record.correct and not view["combined"],
        }

    def report_summary(self, records, per_category):
        from agent_eval.benchmarks.activeobs.report import active_summary

        return {**active_summary(records, per_category), "template": "active_summary.html.j2"}

    def report_glance(self, run_views):
        from agent_eval.benchmarks.activeobs.report import active_glance

        glance = active_glance(run_views)
        return (
            {
                **glance,
                "template": "active_glance.html.j2",
                "partial_filter": {
                    "label": "right answer, wrong evidence",
                    "title": "active observation: the answer is right but the evidence does not support it",
                },
            }
            if glance
            else None
        )
