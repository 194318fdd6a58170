"""A game's turns as VISTA numbers and reports them (arc3/claude/controller.py): turn N is the state after the
N-th action, turn 0 the first observation (shown before any action); each turn's frames are numbered 0..k-1 within
it. From a turn: VISTA's result metadata (`_metadata`), its public event (`_public_event`), and the `history`
tool's two views (`_history`: exact events by turn range; `_attempt_history`: RESET-to-GAME_OVER attempts in the
current level). Everything is read from the session's record (its plays and first observation), so it survives a
restore of the game."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_eval.benchmarks.arcgames.session import ACTIONS, CLICK, GameSession, Play

ENDED = ("GAME_OVER", "WIN", "TERMINAL")  # an attempt's end, as VISTA's _attempt_history reads a state
NOT_STARTED = "NOT_STARTED"  # no observation yet (--initial-frame off, before the first play): ours, not VISTA's
SOURCE = "environment action results"
MAX_TURN = 999_999
HISTORY_LIMIT, MAX_HISTORY_LIMIT = 64, 128


@dataclass(frozen=True)
class Turn:
    number: int
    action: str | None  # None: turn 0, the first observation
    given: tuple[int, int] | None  # ACTION6's x, y as the model gave them (in the run's coordinates)
    state: str
    levels_completed: int | None
    win_levels: int | None
    available_actions: tuple[str, ...]
    frames: tuple[int, ...]  # the frames' numbers in the archive, in order
    actions_used: int = 0
    error: str | None = None
    extra: dict = field(default_factory=dict)


def first_turn(session: GameSession) -> Turn | None:
    """Turn 0: the game's first observation, when the run shows it before any action."""
    shown = list(getattr(session, "initial_frames", None) or [])
    first = getattr(session.game, "initial", None)
    if not shown or first is None:
        return None
    return Turn(
        0, None, None, first.state, first.levels_completed, first.win_levels, first.available_actions, tuple(shown)
    )


def turn_of(play: Play, given: dict[int, tuple[int, int]]) -> Turn:
    """The turn a play made (turn N is the N-th play)."""
    click = given.get(play.step, (play.x, play.y)) if play.action == CLICK else None
    return Turn(
        play.step,
        play.action,
        click,  # type: ignore[arg-type]  # a click's play always holds x and y
        play.state,
        play.levels_completed,
        play.win_levels,
        tuple(play.available_actions),
        tuple(play.frames),
        play.actions_used,
        play.error,
    )


def turns(session: GameSession, given: dict[int, tuple[int, int]]) -> list[Turn]:
    """Every turn so far, turn 0 first when there is one."""
    return [t for t in [first_turn(session)] if t is not None] + [turn_of(p, given) for p in session.plays]


class Turns:
    """A session's turns, kept as they are played (each play's turn made once, not on every look)."""

    def __init__(self, session: GameSession, given: dict[int, tuple[int, int]]):
        self.session, self.given = session, given
        self.first = first_turn(session)
        self._played: list[Turn] = []

    def all(self) -> list[Turn]:
        plays = self.session.plays
        self._played += [turn_of(p, self.given) for p in plays[len(self._played) :]]
        return ([self.first] if self.first is not None else []) + self._played

    def last(self) -> Turn | None:
        every = self.all()
        return every[-1] if every else None

    def number(self, turn: int) -> Turn | None:
        if turn == 0:
            return self.first
        every = self.all()
        index = turn - 1 + (self.first is not None)
        return every[index] if 0 <= turn and index < len(every) else None


def available(turn: Turn | None) -> list[str]:
    """The actions VISTA's play accepts after this turn (controller._available_actions): only RESET once the game is
    over, else the game's own available actions (the toolkit lists no RESET there: VISTA refuses it then)."""
    if turn is None or turn.state == "GAME_OVER":
        return ["RESET"]
    return [name for name in ACTIONS if name in turn.available_actions]


def termination_reason(session: GameSession) -> str | None:
    """Why the game takes no more actions, in VISTA's words where VISTA has them (WIN, action_budget_exhausted,
    controller_error), ours for our own bounds (the level's and the time budget)."""
    if session.over is None:
        return None
    if session.error:
        return "controller_error"
    if session.last is not None and session.last.state == "WIN":
        return "WIN"
    if session.actions_used >= session.max_actions:
        return "action_budget_exhausted"
    limit = session.level_limit()
    if limit is not None and session.actions_used - session.level_began_at >= limit:
        return "level_action_budget_exhausted"
    return "time_budget_exhausted"


def metadata(
    turn: Turn | None,
    display: int,
    *,
    reason: str | None,
    action_applied: bool,
    error: str | None = None,
    level_boundary: bool = False,
    invalid_action_limit: bool = False,
) -> dict:
    """VISTA's result metadata of a turn (controller._metadata), its keys in VISTA's order."""
    terminal = reason is not None
    shown: dict = {
        "turn": turn.number if turn is not None else 0,
        "state": turn.state if turn is not None else NOT_STARTED,
        "progress": {
            "completed": turn.levels_completed if turn is not None else None,
            "total": turn.win_levels if turn is not None else None,
        },
        "available_actions": [] if terminal else available(turn),
        "action_applied": action_applied,
        "terminal": terminal,
    }
    if reason:
        shown["termination_reason"] = reason
    if error:
        shown["error"] = error
    if level_boundary:
        shown["level_boundary"] = True
    if invalid_action_limit:
        shown["invalid_action_limit"] = True
    if turn is not None and turn.frames:
        count = len(turn.frames)
        shown["visual"] = {
            "turn": turn.number,
            "frame_count": count,
            "final_frame": count - 1,
            "width": display,
            "height": display,
        }
    return shown


def crossed_level(before: Turn | None, turn: Turn, terminal: bool) -> bool:
    """A level boundary as VISTA sees one (_crossed_level_boundary): levels completed went up, the game goes on."""
    if terminal or before is None or before.levels_completed is None or turn.levels_completed is None:
        return False
    return turn.levels_completed > before.levels_completed


def event(turn: Turn, result: dict) -> dict:
    """VISTA's public record of one action (_public_event): the action as given, its result without the grid."""
    action: dict = {"action": turn.action}
    if turn.action == CLICK and turn.given is not None:
        action["x"], action["y"] = turn.given
    return {
        "step": turn.number - 1,
        "turn": turn.number,
        "action": action,
        "result": {k: v for k, v in result.items() if k != "grid"},
    }


def replayed_events(all_turns: list[Turn], display: int, last_reason: str | None) -> list[dict]:
    """The events of turns already played (a restored game): each turn's metadata as it was when played, the game
    ending only at its last turn (won, budget spent or failed: `last_reason`)."""
    out = []
    for before, turn in zip([None, *all_turns], all_turns):
        if turn.action is None:
            continue
        reason = last_reason if turn is all_turns[-1] else None
        boundary = crossed_level(before, turn, reason is not None)
        out.append(event(turn, metadata(turn, display, reason=reason, action_applied=True, level_boundary=boundary)))
    return out


def level_start_turn(events: list[dict]) -> int:
    """The turn at which the current level began (VISTA's _level_start_turn): the last level boundary's, else 0."""
    starts = [e["turn"] for e in events if e["result"].get("level_boundary")]
    return starts[-1] if starts else 0


def attempts(events: list[dict], current: dict) -> dict:
    """The `attempts` view (VISTA's _attempt_history): the current level's attempts, each from the level's entry or
    a RESET to a GAME_OVER or WIN, the open attempt last. `current`: the current turn's metadata."""
    start = level_start_turn(events)
    found: list[dict] = []
    number, kind, began, actions = 1, "level_entry", start, 0
    for e in (e for e in events if e["turn"] > start):
        if e["action"]["action"] == "RESET":
            number, kind, began, actions = number + 1, "reset", e["turn"], 0
            continue
        actions += 1
        if e["result"]["state"] in ENDED:
            found.append(
                {
                    "attempt": number,
                    "start": kind,
                    "start_turn": began,
                    "outcome": e["result"]["state"],
                    "game_actions": actions,
                    "end_turn": e["turn"],
                }
            )
    if current["state"] not in ENDED:
        found.append(
            {
                "attempt": number,
                "start": kind,
                "start_turn": began,
                "outcome": current["state"],
                "game_actions": actions,
                "end_turn": current["turn"],
            }
        )
    return {
        "view": "attempts",
        "source": SOURCE,
        "level_start_turn": start,
        "progress": current["progress"],
        "attempts": found,
    }


def history_view(arguments: object, events: list[dict], current: dict) -> tuple[bool, dict]:
    """The `history` tool (VISTA's _history): (ok, the metadata answered), with VISTA's checks and messages."""
    if not isinstance(arguments, dict) or set(arguments) - {"view", "start_turn", "end_turn", "limit"}:
        return False, {"error": "Invalid arguments."}
    view = arguments.get("view")
    if view not in ("attempts", "events"):
        return False, {"error": "Invalid history view."}
    limit = arguments.get("limit", HISTORY_LIMIT)
    if type(limit) is not int or not 1 <= limit <= MAX_HISTORY_LIMIT:
        return False, {"error": "Invalid history limit."}
    if view == "attempts":
        if set(arguments) - {"view", "limit"}:
            return False, {"error": "start_turn and end_turn are only valid for events."}
        shown = attempts(events, current)
        every = shown["attempts"]
        shown["attempts"] = every[-limit:]
        shown["total_attempts"] = len(every)
        shown["truncated"] = len(every) > limit
        return True, shown
    start, end = arguments.get("start_turn"), arguments.get("end_turn")
    for name, value in (("start_turn", start), ("end_turn", end)):
        if value is not None and (type(value) is not int or not 0 <= value <= MAX_TURN):
            return False, {"error": f"Invalid {name}."}
    if isinstance(start, int) and isinstance(end, int) and start > end:
        return False, {"error": "start_turn must not exceed end_turn."}
    matching = [e for e in events if (start is None or e["turn"] >= start) and (end is None or e["turn"] <= end)]
    selected = matching[-limit:] if start is None and end is None else matching[:limit]
    numbers = [e["turn"] for e in events]
    return True, {
        "view": "events",
        "source": SOURCE,
        "events": selected,
        "available_turn_range": [numbers[0], numbers[-1]] if numbers else None,
        "total_matching": len(matching),
        "truncated": len(matching) > len(selected),
    }
