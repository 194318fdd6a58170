"""A GameWorld task as it goes, from its item's folder alone (records.py's files): its progress for `watch` and the
live report, and its screens captioned for a replay, each held for the game time it covered (the page's virtual
clock, so the replay runs at the game's own pace)."""

from __future__ import annotations

from pathlib import Path

from agent_eval.benchmarks.games.folder import GAME_DIR
from agent_eval.benchmarks.games.frames import FRAMES_DIR, frame_name
from agent_eval.benchmarks.gameworld.records import read_end, read_record, read_steps
from agent_eval.benchmarks.gameworld.show import action_words
from agent_eval.benchmarks.presentation import GameProgress, ReplayFrame

START_MS = 600  # the start screen, before any game time ran
MIN_MS = 20


def progress(item_root: Path) -> GameProgress | None:
    game = Path(item_root) / GAME_DIR
    steps, record = read_steps(game), read_record(game)
    if not steps and not record:
        return None
    last, end = (steps[-1] if steps else None), read_end(item_root)
    evaluation = next((s.evaluation for s in reversed(steps) if s.evaluation), None) or {}  # the last verdict
    shown = last.frame if last else int((record or {}).get("start_frame") or 0)
    value = evaluation.get("progress")
    return GameProgress(
        moves=last.step if last else 0,
        move_word="step",
        last_move=action_words(vars(last)) if last else None,
        episodes=1 + sum(1 for s in steps if s.reset_frame is not None and not s.reset_failed),
        score=None if value is None else f"progress {value:.3f}",
        state=evaluation.get("status"),
        budget=end.max_steps if end else None,
        frames=max([shown, *(s.reset_frame or 0 for s in steps)]),
        last_frame=game / FRAMES_DIR / frame_name(shown) if shown else None,
        game_s=last.game_ms / 1000 if last else None,
    )


def replay(item_root: Path) -> list[ReplayFrame]:
    """The start screen, then each step's screens (an episode's last screen before its reset, then the reset)."""
    game = Path(item_root) / GAME_DIR
    record = read_record(game) or {}
    out = []
    if record.get("start_frame"):
        out.append(ReplayFrame(game / FRAMES_DIR / frame_name(int(record["start_frame"])), "start", START_MS))
    clock = 0.0
    for step in read_steps(game):
        each = max(MIN_MS, round(step.game_ms - clock))
        clock = step.game_ms
        evaluation = step.evaluation or {}
        verdict = f" -> {evaluation.get('status')}" if evaluation.get("status") else ""
        caption = f"step {step.step} (role {step.role}): {action_words(vars(step))}{verdict}"
        if step.reset_frame is not None:
            out.append(ReplayFrame(game / FRAMES_DIR / frame_name(step.reset_frame), caption + " · ended", each))
            caption += " · reset"
        out.append(ReplayFrame(game / FRAMES_DIR / frame_name(step.frame), caption, each))
    return out
