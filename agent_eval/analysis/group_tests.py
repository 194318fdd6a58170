"""Many groups, one question each: the per-category, per-task (and per-family) paired tests of a
comparison form one family, so their p-values are Holm-adjusted together and the verdict names
only the groups that stay significant. Twelve tasks at alpha 0.05 would otherwise hand out a
"significant" row by chance about half the time.
"""

from __future__ import annotations

from typing import Any

from agent_eval.analysis.stats import ALPHA, holm


def add_holm(rows: list[dict[str, Any]], scopes: tuple[str, ...], keys: tuple[str, ...]) -> None:
    """`p_holm` on each group row's paired stats: Holm-adjusted within one scope and one comparison,
    so that of twelve tasks none is called different by chance alone."""
    for scope in scopes:
        family = [row for row in rows if row["scope"] == scope]
        for key in keys:
            for j in range(1, len(family[0][key]) if family else 0):
                stats = [row[key][j] for row in family]
                for stat, adjusted in zip(stats, holm([s["p_value"] for s in stats])):
                    stat["p_holm"] = adjusted
                perms = [s["permutation"] for s in stats if "permutation" in s]
                for perm, adjusted in zip(perms, holm([p["p_value"] for p in perms])):
                    perm["p_holm"] = adjusted


def holm_sentence(rows: list[dict[str, Any]], letters: list[str], keys: tuple[str, ...], scopes: str) -> str | None:
    """Which group rows stay significant once Holm-adjusted (None when there are no group rows)."""
    groups = [row for row in rows if row["scope"] != "overall"]
    if not groups or len(letters) < 2:
        return None
    kept = [
        f"{row['group']} ({letters[j]}:A{'' if len(keys) == 1 else ', ' + key.split('_')[0]}, "
        f"p Holm = {row[key][j]['p_holm']:.3g})"
        for row in groups
        for key in keys
        for j in range(1, len(letters))
        if row[key][j]["p_holm"] < ALPHA
    ]
    head = f"{scopes} p-values are also Holm-adjusted for the number of groups (p Holm)"
    return (
        f"{head}: still significant at α={ALPHA}: {'; '.join(kept)}"
        if kept
        else f"{head}: none stays significant at α={ALPHA}"
    )
