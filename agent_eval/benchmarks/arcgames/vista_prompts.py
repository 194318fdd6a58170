"""VISTA's own words to the player, for `--task-prompt vista` (quoted from VISTA, MIT licensed): the first message
(prompts/arcgames/vista.yaml) and what a session that goes on is told: after an early stop, the same session
lifecycle.py NONTERMINAL_CONTINUATION_PROMPT, a fresh one recovery.py fresh_runtime_recovery_prompt; after a
hand-off compact_recovery_prompt; after a restart of the harness runtime_recovery_prompt, a fresh session
fresh_continuation_prompt. The environment record is vista_tools.VistaGame.record's."""

from __future__ import annotations

import json
from pathlib import Path

from agent_eval.benchmarks.base import Continuation
from agent_eval.benchmarks.games.working_scope import saved_at
from agent_eval.benchmarks.notes import Notes

TEMPLATE = "vista"  # prompts/arcgames/vista.yaml
STILL_ACTIVE = "The environment is still active. Context limits are handled automatically. Continue."
RECOVERY_OBJECTIVE = "Continue the game with as few game actions as possible."
RESTARTED = "The player runtime restarted without changing the game state."
FRESH_PLAYER = "A fresh player is continuing from the unchanged game state."


def compact(value: object) -> str:
    """JSON as VISTA writes it into prompts (compact separators, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def first_prompt(template_text: str, observation: dict) -> str:
    return template_text.replace("{observation}", compact(observation)).strip() + "\n"


def _notes(notes: Notes | None, provenance: bool) -> dict:
    texts = notes.read() if notes is not None else {}
    working: object = texts.get("WORKING.md") or None
    if working is not None and provenance:
        working = {"saved_at": saved_at(notes), "content": working} if notes is not None else working
    return {"guide": texts.get("GUIDE.md") or None, "working_memory": working}


def recovery_prompt(record: dict, notes: Notes | None, provenance: bool) -> str:
    """recovery.py _recovery_prompt: the environment record, the agent-authored notes, the objective."""
    return "\n".join(
        [
            "Environment record:",
            compact(record),
            "",
            "Agent-authored notes:",
            compact(_notes(notes, provenance)),
            "",
            RECOVERY_OBJECTIVE,
        ]
    )


def restart_note(record: dict) -> str:
    """recovery.py runtime_recovery_prompt: the same session goes on after the harness restarted."""
    shown = {k: record[k] for k in ("current_observation", "last_action_result")}
    return "\n".join([RESTARTED, "Environment record:", compact(shown), "", RECOVERY_OBJECTIVE])


def vista_continuation(
    record: dict, notes: Notes | None, reason: str, visual: Path | None, resume: bool = False
) -> Continuation:
    """What the next session is told, VISTA's way, by `reason`; `resume`: the same session, where it can go on."""
    early_stop = reason.startswith("early stop")
    if reason.startswith("hand-off"):
        fresh = recovery_prompt(record, notes, provenance=False)
    elif early_stop:
        fresh = recovery_prompt(record, notes, provenance=True)
    else:
        fresh = f"{FRESH_PLAYER}\n{recovery_prompt(record, notes, provenance=True)}"
    note = STILL_ACTIVE if early_stop else restart_note(record)
    images = [visual] if visual is not None else []
    return Continuation(note=note, prompt=fresh + "\n", images=images, reason=reason, resume=resume)
