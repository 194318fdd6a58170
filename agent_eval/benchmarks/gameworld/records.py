"""What a GameWorld task leaves in its item's folder `<item>/game/` (docs/kinds/gameworld.md, "What is kept"), and
how it is read back: task.json (which task, the game folder's hash, the start screen's hash), timeline.jsonl (a
line a step, written and synced before the agent gets its answer; its state kept so a verdict can be checked
again, recheck.py), frames/NNNN.png, restores.jsonl, result.json (the final evaluation, or the error)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_eval.benchmarks.games.folder import GAME_DIR, RESULT, read_entries, read_json
from agent_eval.datamodel.ondisk import split_known

TASK_RECORD = "task.json"


@dataclass
class Step:
    """One step of the task (a timeline line)."""

    step: int  # steps so far, every role (1-based)
    role: int
    role_step: int  # this role's steps so far
    interface: str  # computer_use, semantic, or none (an official decision that called no act)
    given: dict | None  # the call's arguments as the model gave them
    action: dict | None  # the action executed, every default filled in; None: nothing was sent
    frame: int  # the screen after the step (what the next decision sees)
    frame_hash: str
    game_ms: float  # the game's clock after the step
    seen: int | None = None  # the screen the step was decided on (the last one before it)
    invalid: str | None = None  # why nothing was sent (GameWorld counts the step all the same)
    invalid_kind: str | None = None  # out_of_space or no_function_call, as GameWorld names them
    reasoning: str | None = None  # the model's reason, where the protocol asks for one
    evaluation: dict | None = None  # the evaluator after this step (the evaluated role's steps only)
    state: Any = None  # getState() after the step's inputs, as read: what the evaluator judged (recheck.py)
    reset_frame: int | None = None  # the last screen of an episode that ended in failure, before the reset
    reset_frame_hash: str | None = None
    reset_failed: str | None = None  # the reset after a failed terminal did not work: the task ended there
    realtime_ms: float = 0.0  # real-time play: the game time that ran while the model thought
    decision: int | None = None  # the official protocol: which decision (session) made it
    browser_ms: float = 0.0  # the page's own time: inputs, clock, state, screenshot
    harness_ms: float = 0.0  # the rest: checks, evaluator, archive, timeline


@dataclass
class TaskEnd:
    """result.json: how the task ended, as GameWorld's suite reads it (the last evaluation), and the rest."""

    task: str
    game: str
    status: str = "unknown"  # the last evaluation's status: success, fail, unknown, error
    progress: float | None = None
    stop_reason: str | None = None
    summary: str = ""
    metrics: dict = field(default_factory=dict)  # the evaluator's metrics at the end
    steps: int = 0
    role_steps: list[int] = field(default_factory=list)
    max_steps: int | None = None
    resets: int = 0  # failed terminals reset within the budget
    frames: int = 0
    invalid_steps: int = 0
    error: str | None = None
    page_errors: int = 0  # the page's uncaught errors since it was opened (a restored task's replay included)
    load_errors: list[str] = field(default_factory=list)  # those thrown while it loaded (at most 20)
    game_s: float = 0.0  # game time played
    restores: list[dict] = field(default_factory=list)
    extra: dict = field(default_factory=dict)


def read_steps(directory: Path) -> list[Step]:
    """A task folder's steps (a line cut by a kill is a step never answered: left out)."""
    return read_entries(directory, Step)


def read_record(directory: Path) -> dict | None:
    return read_json(Path(directory) / TASK_RECORD)


def read_end(item_root: Path) -> TaskEnd | None:
    """result.json: its known fields typed, any other key kept in `extra` (datamodel/ondisk.py's rule)."""
    data = read_json(Path(item_root) / GAME_DIR / RESULT)
    return None if data is None else TaskEnd(**split_known(TaskEnd, data))


def in_progress(item_root: Path) -> str | None:
    """What an earlier process left of this task (a run killed mid-task), in words; None: nothing."""
    steps = read_steps(Path(item_root) / GAME_DIR)
    return f"a task in progress ({len(steps)} step(s) recorded)" if steps else None
