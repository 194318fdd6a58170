"""What an AI GameStore game leaves in its item's folder (games/folder.py lays out the rest), as it is played:

<item>/game/game.json        which game: its files' hash, the seed, the protocol, the page, the median, load errors
<item>/game/timeline.jsonl   one line per move (Move): the start, each decision, each restart
<item>/game/requests.jsonl   every request the page made and how it was answered (site, library, missing, refused)
<item>/game/result.json      the end (GameEnd): the raw score (highest score or highScore seen), decisions, episodes"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agent_eval.benchmarks.games.folder import GAME_DIR, RESULT, read_entries, read_json
from agent_eval.datamodel.jsonl import log_lines
from agent_eval.datamodel.ondisk import split_known

GAME_RECORD = "game.json"
REQUESTS = "requests.jsonl"


@dataclass
class Move:
    """One timeline line: what the host did to the game and what came of it."""

    n: int  # 1, 2, ... in order
    kind: str  # "start", "play" (one decision: five segments) or "restart"
    decisions: int  # decisions used once this move was made (a start costs none; a play and a restart one)
    episode: int  # 1 + the restarts so far
    batches: list[list[dict]]  # the steps sent to the page, batch by batch (replayed exactly on a restore)
    frames: list[int]  # the archived frames' numbers (a play: one per segment)
    hashes: list[str]  # their pixel hashes, checked on a replay
    state: dict  # the game's state after the move: score, highScore, gamePhase, level (hidden from the model)
    clock_ms: float  # the page's clock after the move
    segments: list[list[str]] | None = None  # a play's five segments as played (normalised)
    via: str = "tool"  # "tool" (VISTA's play/restart) or "reply" (the official protocol's <keys>)
    restarted_first: bool = False  # the official protocol: the ended game was restarted before this decision
    problem: str | None = None  # what was wrong with an official reply (missing keys, unknown inputs)
    scratchpad: str | None = None  # the official protocol: the scratchpad the next request carries
    gap_ms: float = 0.0  # real-time mode: the wall time the game ran before this decision
    browser_ms: float = 0.0  # the page's round trips
    harness_ms: float = 0.0  # the rest: archive, timeline, checks
    page_errors: list[str] = field(default_factory=list)


@dataclass
class GameEnd:
    """result.json: how the item's game ended."""

    game: str
    raw_score: float | None = None  # the highest score or highScore seen (None: never read)
    decisions: int = 0
    max_decisions: int = 0
    episodes: int = 0
    final_phase: str | None = None
    won: bool = False  # a GAME_OVER_WIN (or WIN, GAME_WON) phase was seen
    frames: int = 0
    canvas: list[int] | None = None  # the first frame's width and height
    error: str | None = None
    page_errors: int = 0  # the page's uncaught errors: while it loaded and during the moves
    load_errors: list[str] = field(default_factory=list)  # those thrown while it loaded (the moves keep theirs)
    refused_requests: int = 0
    restores: list[dict] = field(default_factory=list)
    chromium: str | None = None
    protocol: str = ""
    extra: dict = field(default_factory=dict)


def best_score(moves: list[Move]) -> float | None:
    """The highest score or highScore read after any move (VISTA's raw score)."""
    return max(
        (v for m in moves for v in (m.state.get("score"), m.state.get("highScore")) if v is not None), default=None
    )


def read_moves(directory: Path) -> list[Move]:
    """The moves a game folder's timeline holds (a line cut by a kill is a move never answered: left out)."""
    return read_entries(directory, Move)


def read_end(item_root: Path) -> GameEnd | None:
    data = read_json(Path(item_root) / GAME_DIR / RESULT)
    return None if data is None else GameEnd(**split_known(GameEnd, data))


def read_requests(item_root: Path) -> list[dict]:
    return log_lines(Path(item_root) / GAME_DIR / REQUESTS)


def in_progress(item_root: Path) -> str | None:
    moves = read_moves(Path(item_root) / GAME_DIR)
    return f"a game in progress ({max(m.decisions for m in moves)} decision(s) recorded)" if moves else None
