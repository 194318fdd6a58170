"""The ARC-AGI-3 part of `agent-eval compare`: on the games both runs played, each run's wins, mean game score
(0-100), levels completed and actions per completed level; wins paired by the exact McNemar test, scores and levels
by the paired permutation test. With repeats, a game's value is its mean over repeats; a game without a score (no
baselines) counts in wins and levels only."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from agent_eval.analysis.comparison_result import Comparison, Measure
from agent_eval.analysis.measures import GRADED
from agent_eval.analysis.stats import ALPHA, paired, sign_flip_test
from agent_eval.analysis.verdicts import verdict
from agent_eval.benchmarks.arcgames.metrics import GameMetrics
from agent_eval.benchmarks.games.reading import Cells, GameTables


def per_game(records) -> dict[str, dict[str, Any]]:
    """game -> its won share, score (None: no score), levels and actions per completed level, mean over repeats;
    an item whose game or agent failed counts as not won, no levels, score 0 (when the game has baselines)."""
    by: dict[str, list[GameMetrics]] = defaultdict(list)
    failed: dict[str, int] = defaultdict(int)
    for r in records:
        if r.status in GRADED:
            by[r.id].append(GameMetrics.of(r))
        else:
            failed[r.id] += 1
    out = {}
    for game in set(by) | set(failed):
        runs, lost = by.get(game, []), failed.get(game, 0)
        n = len(runs) + lost
        has_score = any(m.score is not None for m in runs)  # a game without baselines has none
        per_level = [a for a in (m.actions_per_level() for m in runs) if a is not None]
        out[game] = {
            "won": sum(m.won for m in runs) / n,
            "score": sum(m.score or 0.0 for m in runs) / n if has_score else None,
            "levels": sum(m.levels_completed for m in runs) / n,
            "actions_per_level": statistics.median(per_level) if per_level else None,
        }
    return out


def _mean(values):
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known else None


def build_games(runs, shared: list[str], n_resamples: int, seed: int) -> dict:
    tables = [per_game(run.records) for run in runs]
    ids = [i for i in shared if all(i in t for t in tables)]
    scored = [i for i in ids if all(t[i]["score"] is not None for t in tables)]
    row: dict[str, Any] = {
        "n": len(ids),
        "scored": len(scored),
        "wins": [sum(t[i]["won"] for i in ids) for t in tables],
        "score": [_mean([t[i]["score"] for i in scored]) for t in tables],
        "levels": [sum(t[i]["levels"] for i in ids) for t in tables],
        "actions_per_level": [_mean([t[i]["actions_per_level"] for i in ids]) for t in tables],
        # how the games went on: the agent's sessions, hand-offs among them, and the CLI's own compactions
        **{
            key: [sum(getattr(r, key, 0) or 0 for r in run.records if r.id in ids) for run in runs]
            for key in ("sessions", "handoffs", "compactions")
        },
    }
    first = tables[0]

    def column(table: dict, key: str, chosen: list[str]) -> list:
        return [table[i][key] for i in chosen]

    wins = [paired(column(first, "won", ids), column(t, "won", ids), n_resamples, seed).to_json() for t in tables[1:]]
    row["wins_vs_first"] = [None, *wins]
    for metric, chosen in (("score", scored), ("levels", ids)):
        a = column(first, metric, chosen)
        row[f"{metric}_vs_first"] = [None] + [
            {
                "diff": (_mean(column(t, metric, chosen)) or 0) - (_mean(a) or 0) if chosen else None,
                **sign_flip_test(a, column(t, metric, chosen), n_resamples, seed),
            }
            for t in tables[1:]
        ]
    games = [
        {"game": i, **{k: [t[i][k] for t in tables] for k in ("won", "score", "levels", "actions_per_level")}}
        for i in ids
    ]
    return {"overall": row, "games": games}


def _num(value, digits: int = 1) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def game_verdicts(letters: list[str], games: dict) -> list[str]:
    row = games["overall"]
    out = []
    for j, letter in enumerate(letters[1:], start=1):
        out.append(verdict(letter, row["wins_vs_first"][j], "games won", "won"))
        for metric, label in (("score", "mean game score"), ("levels", "levels completed")):
            s = row[f"{metric}_vs_first"][j]
            sig = "significant" if s["p_value"] < ALPHA else "not significant"
            diff = "?" if s["diff"] is None else f"{s['diff']:+.2f}"
            out.append(
                f"{letter} vs A, {label} per game: {diff}, paired permutation p = {s['p_value']:.3g} "
                f"({'exact' if s['exact'] else 'Monte Carlo'}, {s['nonzero']} games differ): {sig} at α={ALPHA}"
            )
    if row["scored"] < row["n"]:
        out.append(
            f"{row['n'] - row['scored']} game(s) have no baselines: no game score, counted in wins and levels only"
        )
    return out


def overall_cells(data: Comparison, games: dict) -> tuple[list[str], list[list[str]]]:
    row = games["overall"]
    header = ["run", "games", "wins", "mean score", "levels", "actions/level", "p wins", "p score", "p levels"]
    header += ["sessions", "hand-offs", "compactions"]
    body = []
    for k, run in enumerate(data.runs):
        tests = [f"{row[f'{m}_vs_first'][k]['p_value']:.3g}" if k else "—" for m in ("wins", "score", "levels")]
        body.append(
            [
                run["letter"],
                str(row["n"]),
                _num(row["wins"][k], 1),
                _num(row["score"][k]),
                _num(row["levels"][k], 1),
                _num(row["actions_per_level"][k]),
                *tests,
                *(str(row.get(key, [None] * (k + 1))[k] or 0) for key in ("sessions", "handoffs", "compactions")),
            ]
        )
    return header, body


def game_cells(data: Comparison, games: dict) -> tuple[list[str], list[list[str]]]:
    header = ["game", "run", "won", "score", "levels", "actions/level"]
    body = [
        [
            g["game"],
            run["letter"],
            _num(g["won"][k], 2),
            _num(g["score"][k]),
            _num(g["levels"][k], 1),
            _num(g["actions_per_level"][k]),
        ]
        for g in games["games"]
        for k, run in enumerate(data.runs)
    ]
    return header, body


@dataclass
class GamesComparison(GameTables):
    """build_games()'s tables ("overall" and "games")."""

    games: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"games": self.games}

    def table_measures(self) -> list[Measure]:
        row = self.games["overall"]
        per_game = f"paired permutation test on the {row['scored']} scored games"
        return [
            Measure("mean game score (0-100)", row["score"], vs_first=row["score_vs_first"], test=per_game),
            Measure(
                "levels completed (total)",
                row["levels"],
                vs_first=row["levels_vs_first"],
                test="paired permutation test per game",
                change_name="levels completed per game",
            ),
            Measure("actions per completed level", row["actions_per_level"]),
        ]

    def tables(self, data: Comparison) -> tuple[Cells, Cells]:
        heading = "ARC-AGI-3 games (wins: exact McNemar; score and levels: paired permutation):"
        overall = Cells("ARC-AGI-3 games on the shared games", heading, *overall_cells(data, self.games))
        return overall, Cells("per game", "Per game:", *game_cells(data, self.games))
