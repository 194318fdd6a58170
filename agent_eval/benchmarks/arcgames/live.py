"""An ARC-AGI-3 game as it goes, from its item's folder alone: its progress for `watch` and the live report, and its
frames captioned for a replay (the timeline is written before each play is answered)."""

from __future__ import annotations

from pathlib import Path

from agent_eval.benchmarks.arcgames.game_record import Play, read_end, read_plays, read_record
from agent_eval.benchmarks.arcgames.grading import game_entry
from agent_eval.benchmarks.games.folder import GAME_DIR
from agent_eval.benchmarks.games.frames import FRAMES_DIR, frame_name
from agent_eval.benchmarks.presentation import GameProgress, ReplayFrame

# A turn-based game has no clock between plays worth replaying (the model's thinking time): each play's last frame
# holds a beat, the animation frames before it play at the toolkit's pace.
PLAY_MS = 600
ANIMATION_MS = 120


def _png(game: Path, number: int) -> Path:
    return game / FRAMES_DIR / frame_name(number)


def action_words(play: Play) -> str:
    return play.action + (f" ({play.x}, {play.y})" if play.x is not None else "")


def progress(item_root: Path) -> GameProgress | None:
    game = Path(item_root) / GAME_DIR
    plays = read_plays(game)
    first = (read_record(game) or {}).get("initial") or {}
    if not plays and not first:
        return None
    end = read_end(item_root)
    card = game_entry(end.scorecard) if end and end.scorecard else {}  # the toolkit's score, once the game ended
    last = plays[-1] if plays else None
    numbers = [n for p in plays for n in p.frames] or list(first.get("frames") or [])
    levels, of = (last.levels_completed, last.win_levels) if last else (first.get("levels_completed"), None)
    return GameProgress(
        moves=last.actions_used if last else 0,
        move_word="action",
        last_move=action_words(last) if last else None,
        levels=f"{levels}/{of}" if of else None if levels is None else str(levels),
        episodes=1 + sum(p.action == "RESET" for p in plays[1:]),  # the first RESET starts the game
        score=None if card.get("score") is None else f"score {card['score']:.1f}",
        state=last.state if last else first.get("state"),
        budget=end.max_actions if end and end.max_actions else None,
        frames=max(numbers, default=0),
        last_frame=_png(game, numbers[-1]) if numbers else None,
        game_s=last.game_s if last else None,
    )


def replay(item_root: Path) -> list[ReplayFrame]:
    game = Path(item_root) / GAME_DIR
    out = []
    first = (read_record(game) or {}).get("initial") or {}
    for number in first.get("frames") or []:
        out.append(ReplayFrame(_png(game, number), f"start · {first.get('state', '')}", PLAY_MS))
    for play in read_plays(game):
        level = f"levels {play.levels_completed}/{play.win_levels}"
        for k, number in enumerate(play.frames, start=1):
            part = f" · frame {k}/{len(play.frames)}" if len(play.frames) > 1 else ""
            caption = f"play {play.step}: {action_words(play)} -> {play.state} · {level}{part}"
            out.append(ReplayFrame(_png(game, number), caption, PLAY_MS if k == len(play.frames) else ANIMATION_MS))
    return out
