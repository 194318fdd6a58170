"""The AI GameStore part of `agent-eval compare` and `agent-eval table`: on the games every run played, each run's
geometric and arithmetic mean of the normalised scores and each game's scores; against the first run, the paired
permutation test on the log normalised scores (the geometric mean's own scale). A game without a median is shown
raw and left out of the means and the test."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from agent_eval.analysis.comparison_result import Comparison, Measure
from agent_eval.analysis.measures import GRADED
from agent_eval.analysis.stats import ALPHA, sign_flip_test
from agent_eval.benchmarks.aigamestore.measures import GameStoreMetrics, geometric_mean, number_text, per_game
from agent_eval.benchmarks.games.reading import Cells, GameTables


def build(runs, shared: list[str], n_resamples: int, seed: int) -> dict:
    # per run, game -> per_game()'s entry (a failed attempt counts as an attempt without a score)
    metrics = [[(r, GameStoreMetrics.of(r)) for r in run.records] for run in runs]
    tables = [
        per_game([(r.id, m.raw_score if r.status in GRADED else None, m.human_median) for r, m in run])
        for run in metrics
    ]
    ids = [i for i in shared if all(i in t for t in tables)]
    scored = [i for i in ids if all(t[i]["normalized"] is not None for t in tables)]
    logs = [[math.log(t[i]["normalized"]) for i in scored] for t in tables]
    overall = {
        "games": len(ids),
        "scored": len(scored),
        "geometric_mean": [geometric_mean([t[i]["normalized"] for i in scored]) for t in tables],
        "arithmetic_mean": [sum(t[i]["normalized"] for i in scored) / len(scored) if scored else None for t in tables],
        "log_vs_first": [None]
        + [
            {
                "diff": (sum(b) - sum(logs[0])) / len(scored) if scored else None,
                **sign_flip_test(logs[0], b, n_resamples, seed),
            }
            for b in logs[1:]
        ],
    }
    games = [
        {"game": i, "raw": [t[i]["raw"] for t in tables], "normalized": [t[i]["normalized"] for t in tables]}
        for i in ids
    ]
    return {"overall": overall, "games": games}


def compared(runs, letters: list[str], shared: list[str], n_resamples: int, seed: int) -> GameStoreComparison:
    games = build(runs, shared, n_resamples, seed)
    return GameStoreComparison(verdicts=verdicts(letters, games), games=games)


def verdicts(letters: list[str], data: dict) -> list[str]:
    row, out = data["overall"], []
    for j, letter in enumerate(letters[1:], start=1):
        test = row["log_vs_first"][j]
        ratio = "?" if test["diff"] is None else f"x{math.exp(test['diff']):.2f}"
        sig = "significant" if test["p_value"] < ALPHA else "not significant"
        out.append(
            f"{letter} vs A, normalised score per game (geometric): {ratio}, paired permutation p = "
            f"{test['p_value']:.3g} on the log scores of {row['scored']} game(s): {sig} at α={ALPHA}"
        )
    if row["scored"] < row["games"]:
        out.append(f"{row['games'] - row['scored']} game(s) have no human median or no score: shown raw, not tested")
    return out


@dataclass
class GameStoreComparison(GameTables):
    """Geometric and arithmetic means of the normalised scores per run, the paired test, per-game scores."""

    games: dict = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"aigamestore": self.games}

    def table_measures(self) -> list[Measure]:
        row = self.games["overall"]
        return [
            Measure(
                "normalised score, geometric mean",
                row["geometric_mean"],
                vs_first=row["log_vs_first"],
                test=f"paired permutation test on the log normalised scores of {row['scored']} game(s)",
                change_name="mean log normalised score per game",
            ),
            Measure("normalised score, arithmetic mean", row["arithmetic_mean"]),
        ]

    def tables(self, data: Comparison) -> tuple[Cells, Cells]:
        row = self.games["overall"]
        overall = [
            [
                run["letter"],
                str(row["games"]),
                number_text(row["geometric_mean"][k], ".1f"),
                number_text(row["arithmetic_mean"][k], ".1f"),
                "—" if k == 0 else f"{row['log_vs_first'][k]['p_value']:.3g}",
            ]
            for k, run in enumerate(data.runs)
        ]
        per_game = [
            [g["game"], run["letter"], number_text(g["raw"][k], ".2f"), number_text(g["normalized"][k], ".1f")]
            for g in self.games["games"]
            for k, run in enumerate(data.runs)
        ]
        heading = "AI GameStore (normalised against the human median; test: paired permutation on log scores):"
        header = ["run", "games", "geometric mean", "arithmetic mean", "p (log scores)"]
        return (
            Cells("AI GameStore on the shared games", heading, header, overall),
            Cells("per game", "Per game:", ["game", "run", "raw score", "normalised"], per_game),
        )
