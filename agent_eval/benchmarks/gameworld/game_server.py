"""The `game` MCP server of a GameWorld task, served from the harness process (the page and its screens stay outside
the sandbox): `act` or `control` in every mode; the looks from mode image up; the notes with --notes on. The action
tool's schema is the role's own (its actions, its keys as an enum, the mouse fields only where it may click, `role`
with several roles, `reasoning` in the official protocol, whose memory keeps each step's reason); in the official
protocol the looks reach only what the decision was shown."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.tools import Tool
from pydantic import Field

from agent_eval.benchmarks.games.browser import vista_play
from agent_eval.benchmarks.games.frames import ArchivedPngs, NumberedArchive
from agent_eval.benchmarks.games.handoff import HandoffState, within_image_cap
from agent_eval.benchmarks.games.protocol import UNSEEN, ObservationGate
from agent_eval.benchmarks.games.tools import (
    MAX_RECALL,
    FrameLooks,
    inspect_text,
    look_functions,
    note_tools,
    read_pixels_text,
    recalled,
    refusing,
    served,
)
from agent_eval.benchmarks.games.vista.events import Event, VistaEvents
from agent_eval.benchmarks.games.vista.mcp import ACTS, answer, vista_tool
from agent_eval.benchmarks.gameworld import vista_act
from agent_eval.benchmarks.gameworld.actions import (
    ACTIONS,
    MAX_DURATION_S,
    MOUSE_ACTIONS,
    allowed_keys,
    describe_action,
)
from agent_eval.benchmarks.gameworld.catalog import MOUSE_BUTTONS
from agent_eval.benchmarks.gameworld.protocol import DECISION_OVER, NO_ACTION_WORDS, Decisions
from agent_eval.benchmarks.gameworld.roles import CHECKPOINTING, DECISION_ENDED, RoleEvents, RoleTurns
from agent_eval.benchmarks.gameworld.rung import Rung
from agent_eval.benchmarks.gameworld.session import StepRefused, TaskSession
from agent_eval.benchmarks.notes import Notes
from agent_eval.tools.imagetools.mcp_server import plain_schema

HISTORY_LIMIT = 64

ACT = """Take exactly one action in the game (one step), limited to your role's controls. {roles}
Actions: {actions}. press_key holds one key (`key`) for `duration`, press_keys holds several (`keys`) at once;
click / click_hold press a mouse `button` at (x, y); mouse_move moves there (from from_x, from_y if given); drag
holds the button from (x1, y1) to (x2, y2) in `steps` moves; scroll turns the wheel by delta_x, delta_y; type
sends `text` key by key; wait does nothing for `duration`. Keys: {keys}. {mouse} Coordinates are pixels of the \
{width}x{height} screen from its top-left corner. `duration` is in seconds (at most {max_s:g}; default: {hold}).
{answer}"""
CONTROL = """Take exactly one action in the game (one step): one of your role's named controls (`name`), with its
arguments. {roles} The controls: {controls}
{answer}"""
ANSWERS = {
    "official": "Returns the step's number and the steps left; the next decision shows the screen after it.",
    "vista": "Returns the step's number, the steps left and the screen after the step (numbered, kept).",
    "untold": "Returns the screen after the step (numbered, kept).",  # --tell-steps off
}
UNTOLD = ("step", "steps_left")  # what --tell-steps off keeps from act's answer (VISTA: host_action_count false)
RECALL = f"""Look again at screens already shown: `frames` (their numbers, at most {MAX_RECALL}) or `step` (a step's \
number: the screen after it, and the last screen before a reset if the game was reset there)."""
HISTORY = f"""The steps taken so far, oldest first (`start`, `end`: step numbers, end excluded; at most `limit`, \
default and maximum {HISTORY_LIMIT}; without bounds, the latest): each step's action as executed (or why nothing \
was sent), your reason where you gave one, the screen it was decided on and the screen after it."""
REFUSED = (StepRefused,)
FINAL_SCREEN = "Final game screen."  # VISTA's act answer (session.py RoleSession._act), with --game-tools vista


def vista_words(step, finished: bool) -> str:
    """What VISTA says of a step; a failed episode's reset archives two moments (its last screen, then the next)."""
    text = NO_ACTION_WORDS if step.action is None else FINAL_SCREEN
    if finished:
        text += " The task has ended."
    return text + (" Archived 2 visual moments." if step.reset_frame is not None else "")


def vista_event(session: TaskSession, number: int) -> Event:
    """The task's n-th event as VISTA records it (0: the start screen with the prompt), from the session's record."""
    if number == 0:
        return Event(None, session.item.task_def.prompt, True, ArchivedPngs(session.archive, (session.start_frame,)))
    step = session.steps[number - 1]
    return step_event(step, number == len(session.steps) and session.over is not None, session.archive)


def step_event(step, finished: bool, archive: NumberedArchive) -> Event:
    """A step as VISTA's event: the call as given (an invalid one too, as VISTA records every call; a final reply's
    none), its words, whether it was valid, its screens."""
    tool = "control" if step.interface == "semantic" else "act"
    action = {"name": tool, "arguments": step.given} if step.interface != "none" else None
    frames = ArchivedPngs(archive, [f for f in (step.reset_frame, step.frame) if f is not None])
    return Event(action, vista_words(step, finished), step.action is not None, frames)


def _untold(status: dict, horizon: int) -> dict:
    """act's answer without the step, the steps left or the horizon (--tell-steps off)."""
    kept = {key: value for key, value in status.items() if key not in UNTOLD}
    if "stop" in kept:
        kept["stop"] = kept["stop"].replace(f"the step budget ({horizon}) is spent", "the step budget is spent")
    return kept


@dataclass
class GameTools:
    """The tools over one item's task session, for one protocol (official: `decisions`; vista: `handoff`)."""

    session: TaskSession
    rung: Rung
    decisions: Decisions | None = None
    handoff: HandoffState | None = None
    notes: Notes | None = None
    codex: bool = False  # the run's CLI is Codex (VISTA's checkpoint tool is offered)
    turns: RoleTurns | None = None  # --roles isolated: the role playing this turn, its notes and events (roles.py)
    gate: ObservationGate | None = None  # --action-batches off: one action per observation (games/protocol.py)

    def __post_init__(self) -> None:
        session, handoff, notes, turns = self.session, self.handoff, self.notes, self.turns
        self.looks = FrameLooks(session.archive)
        self.inspect, self.read_pixels = look_functions(
            self.looks, handoff, REFUSED, "screen", lambda frame: self.within([frame])[0]
        )
        # --game-tools vista: VISTA's task tools over the task's events, and act answered in VISTA's words
        self.vista = (
            vista_play.vista_events(lambda n: vista_event(session, n), lambda: len(session.steps) + 1, notes, handoff)
            if self.rung.game_tools == "vista"
            else None
        )
        if turns is not None:  # each role's own tools over its own events and notes, its turn's served
            own = [RoleEvents(session, k, turns, step_event) for k in range(turns.roles)]
            saving = lambda: turns.checkpointing  # noqa: E731  (save_compact_checkpoint: the role's checkpoint turn)
            self.by_role = [VistaEvents(own[k], turns.notes[k], saving) for k in range(turns.roles)]
            self.vista = self.by_role[turns.playing]

    def within(self, numbers: list[int]) -> list[int]:
        """The frames asked for, refused unless this decision may look at them (official: its own screens)."""
        reach = self.decisions.shown() if self.decisions is not None else None
        outside = [n for n in numbers if reach is not None and n not in reach]
        if outside:
            shown = ", ".join(map(str, reach or []))
            raise StepRefused(f"screen {outside[0]!r} is not one this decision was shown (its screens: {shown})")
        return numbers

    def act(self, role: int | None, given: dict, reasoning: str | None, interface: str | None = None) -> Any:
        """One step (a list, or VISTA's answer); interface: the session's (ours), or vista (VISTA's act)."""
        session, interface = self.session, interface or self.rung.interface.replace("-", "_")
        if self.decisions is not None:
            if self.decisions.acted:
                return [json.dumps({"stop": f"No step taken: you already acted. {DECISION_OVER}"})]
            self.decisions.acted = True
            status, _ = session.act(self.decisions.role, given, interface, reasoning, self.decisions.decision)
            if "stop" not in status:
                status["stop"] = DECISION_OVER
            return [json.dumps(status)]
        if role is None and len(session.roles) > 1:
            raise StepRefused(f"this game has {len(session.roles)} roles: give `role` (0-{len(session.roles) - 1})")
        turns = self.turns
        if turns is not None and (turns.acted or turns.checkpointing):  # one action per turn; notes only then
            return answer(False, DECISION_ENDED if turns.acted else CHECKPOINTING)
        gate = self.gate
        if gate is not None and (blind := gate.refuses()):
            if self.vista is None:
                raise StepRefused(blind)
            return answer(False, UNSEEN)
        if self.vista is not None:  # VISTA's answer in its words (--roles isolated needs it); its screens counted

            def vista_step() -> tuple[str, bool]:
                _, png = session.act(role or 0, given, interface, reasoning)
                if png is None:  # nothing was taken: the budget spent, the game failed (runtime.py's words)
                    raise StepRefused("The task session has ended.")
                if turns is not None:
                    turns.acted = True
                if gate is not None:
                    gate.acted(True)
                step = session.steps[-1]
                return vista_words(step, session.over is not None), step.action is not None

            return vista_play.acted(self.vista, self.handoff, 1, vista_step)

        def acted() -> Any:
            status, png = session.act(role or 0, given, interface, reasoning)
            if gate is not None:
                gate.acted(png is not None)  # its screen is on its way to the model
            ask = self.handoff.stop_now() if self.handoff is not None and "stop" not in status else None
            if ask:
                status["stop"] = ask
            if not self.rung.tell_steps:
                status = _untold(status, session.max_steps)
            return [json.dumps(status)] + ([Image(data=png, format="png")] if png is not None else [])

        return within_image_cap(self.handoff, 1, acted)  # --session-images: its screen

    # -- memory

    def recall(self, frames: list[int] | None, step: int | None) -> list:
        if (frames is None) == (step is None):
            raise StepRefused("give either `frames` or `step`")
        wanted = self.within(self.session.frames_of_step(step) if step is not None else list(frames or []))
        return within_image_cap(self.handoff, len(wanted), lambda: recalled(self.looks, wanted))

    def history(self, start: int | None, end: int | None, limit: int | None) -> str:
        steps = self.decisions.memory() if self.decisions is not None else self.session.steps
        limit = min(HISTORY_LIMIT, limit or HISTORY_LIMIT)
        if start is None and end is None:
            chosen = steps[-limit:]
        else:
            chosen = [s for s in steps if (start or 1) <= s.step < (end or 1 << 30)][:limit]
        lines = []
        for s in chosen:
            did = describe_action(s.action) if s.action else f"nothing sent: {s.invalid}"
            role = f" role {s.role}" if len(self.session.roles) > 1 else ""
            reason = f"; reason: {s.reasoning}" if s.reasoning else ""
            reset = f"; the game was reset (screen {s.reset_frame} before it)" if s.reset_frame else ""
            lines.append(
                f"step {s.step}{role}: {did}{reason}; decided on screen {s.seen}, screen after {s.frame}{reset}"
            )
        return "\n".join(lines) if lines else "no step yet"


def _functions(tools: GameTools) -> list[Callable[..., Any]]:
    """The tools' functions in our flavour: act, control, recall, inspect, read_pixels, history."""

    def act(
        action: Annotated[str, Field(description="The action's name.")],
        key: Annotated[str | None, Field(description="press_key: the key.")] = None,
        keys: Annotated[list[str] | None, Field(description="press_keys: the keys held together.")] = None,
        x: Annotated[float | None, Field(description="click, click_hold, mouse_move: x in pixels.")] = None,
        y: Annotated[float | None, Field(description="click, click_hold, mouse_move: y in pixels.")] = None,
        button: Annotated[str | None, Field(description="Mouse button (default left).")] = None,
        duration: Annotated[float | None, Field(description="Seconds (hold, wait, ...).")] = None,
        from_x: Annotated[float | None, Field(description="mouse_move: start x.")] = None,
        from_y: Annotated[float | None, Field(description="mouse_move: start y.")] = None,
        x1: Annotated[float | None, Field(description="drag: start x.")] = None,
        y1: Annotated[float | None, Field(description="drag: start y.")] = None,
        x2: Annotated[float | None, Field(description="drag: end x.")] = None,
        y2: Annotated[float | None, Field(description="drag: end y.")] = None,
        steps: Annotated[int | None, Field(description="drag: moves (default 10).")] = None,
        delta_x: Annotated[float | None, Field(description="scroll: horizontal wheel pixels.")] = None,
        delta_y: Annotated[float | None, Field(description="scroll: vertical wheel pixels.")] = None,
        text: Annotated[str | None, Field(description="type: the text.")] = None,
        press_enter: Annotated[bool | None, Field(description="type: Enter after the text.")] = None,
        role: Annotated[int | None, Field(description="The role acting (a game of several roles).")] = None,
        reasoning: Annotated[str | None, Field(description="Why this action, in a sentence or two.")] = None,
    ) -> Any:
        # the arguments given that make the action (role and reasoning are the call's own; `tools` is the closure's)
        given = {k: v for k, v in locals().items() if v is not None and k not in ("role", "reasoning", "tools")}
        return refusing(REFUSED, lambda: tools.act(role, given, reasoning))

    def control(
        name: Annotated[str, Field(description="The control's name.")],
        cell: Annotated[str | None, Field(description="A cell id, for a control that takes one.")] = None,
        text: Annotated[str | None, Field(description="Text, for a control that types.")] = None,
        role: Annotated[int | None, Field(description="The role acting (a game of several roles).")] = None,
        reasoning: Annotated[str | None, Field(description="Why this control, in a sentence or two.")] = None,
    ) -> list:
        given = {"control": name} | {k: v for k, v in (("cell", cell), ("text", text)) if v is not None}
        return refusing(REFUSED, lambda: tools.act(role, given, reasoning))

    def recall(
        frames: Annotated[list[int] | None, Field(description="Screen numbers.")] = None,
        step: Annotated[int | None, Field(description="A step's number.")] = None,
    ) -> list:
        return refusing(REFUSED, lambda: tools.recall(frames, step))

    def history(
        start: Annotated[int | None, Field(description="First step number.")] = None,
        end: Annotated[int | None, Field(description="Step number to stop before.")] = None,
        limit: Annotated[int | None, Field(description=f"At most this many (1-{HISTORY_LIMIT}).")] = None,
    ) -> str:
        return refusing(REFUSED, lambda: tools.history(start, end, limit))

    return [act, control, recall, tools.inspect, tools.read_pixels, history]


def _by_role(tools: GameTools, names: tuple[str, ...], playing: dict[str, Tool]) -> MCPServer:
    """--roles isolated: the server offers the playing role's tools (its act, its events' looks, its notes); as a
    turn begins, each tool takes on that role's (the next CLI process lists them afresh)."""
    assert tools.turns is not None
    offered = [playing[name] for name in names]
    each = [
        [(t.description, t.parameters, t.fn) for t in ([_vista_act(tools, k), *tools.by_role[k].tools(names[1:])])]
        for k in range(tools.turns.roles)
    ]

    def turn(role: int) -> None:
        tools.vista = tools.by_role[role]
        for tool, (description, parameters, fn) in zip(offered, each[role]):
            tool.description, tool.parameters, tool.fn = description, parameters, fn

    tools.turns.listeners.append(turn)
    return served({}, names, dict(zip(names, offered)))


def _vista_act(tools: GameTools, role: int) -> Tool:
    """`act` in VISTA's schema and words for one role (vista_act.py): arguments outside the schema refused, nothing
    taken; the rest a step."""
    game = tools.session.item.game

    def act(arguments: dict) -> Any:
        action = vista_act.admitted(arguments, game, role)
        if action is None:
            return answer(False, vista_act.INVALID_ARGUMENTS)
        return refusing(REFUSED, lambda: tools.act(role, action, None, "vista"))

    return vista_tool("act", vista_act.description(game, role), vista_act.schema(game, role), ACTS, act)


def _act_schema(tools: GameTools) -> tuple[str, dict, set[str]]:
    """The action tool's description, its schema's enums and the fields it leaves out, from the roles' controls."""
    session, rung = tools.session, tools.rung
    roles = session.roles
    keys = list(dict.fromkeys(k for r in roles for k in allowed_keys(r.controls)))
    clicks = any(r.controls.allow_clicks for r in roles)
    typed = any(len(k) == 1 for k in keys)  # typed text is single keys
    drop = {"role"} if len(roles) == 1 or rung.protocol == "official" else set()
    if rung.protocol == "vista":
        drop.add("reasoning")
    if not clicks:
        drop |= {"x", "y", "button", "x1", "y1", "x2", "y2", "steps", "delta_x", "delta_y", "from_x", "from_y"}
    if not keys:
        drop |= {"key", "keys"}
    if not typed:
        drop |= {"text", "press_enter"}
    who = (
        "Roles: " + "; ".join(f"{n} ({r.name})" for n, r in enumerate(roles)) + ". Give `role`."
        if len(roles) > 1 and rung.protocol == "vista"
        else f"This decision plays role {tools.decisions.role} ({roles[tools.decisions.role].name})."
        if tools.decisions is not None and len(roles) > 1
        else ""
    )
    answer = ANSWERS["untold" if rung.protocol == "vista" and not rung.tell_steps else rung.protocol]
    if rung.interface == "semantic":
        bindings = [c.binding for r in roles for c in r.semantic_controls]
        if not any(b.get("cell_param") for b in bindings):
            drop.add("cell")
        if not any(b.get("action") == "type" for b in bindings):
            drop.add("text")
        listed = "; ".join(
            f"{'role ' + str(n) + ' ' if len(roles) > 1 else ''}`{c.id}`: {c.description.strip()}"
            for n, r in enumerate(roles)
            for c in r.semantic_controls
        )
        names = sorted({c.id for r in roles for c in r.semantic_controls})
        return CONTROL.format(roles=who, controls=listed, answer=answer), {"name": names}, drop
    offered = dict.fromkeys(MOUSE_ACTIONS, clicks) | {"press_key": bool(keys), "press_keys": bool(keys), "type": typed}
    actions = [a for a in ACTIONS if offered.get(a, True)]
    hold = ", ".join(f"{r.name + ' ' if len(roles) > 1 else ''}{r.controls.hold_duration:g} s" for r in roles)
    text = ACT.format(
        roles=who,
        actions=", ".join(actions),
        keys=", ".join(keys) or "none",
        mouse="Mouse: clicks allowed." if clicks else "Mouse: no clicks, drags or scrolls.",
        width=session.item.game.width,
        height=session.item.game.height,
        max_s=MAX_DURATION_S,
        hold=hold,
        answer=answer,
    )
    enums: dict[str, list] = {"action": actions, "button": list(MOUSE_BUTTONS)}
    if keys:
        enums["key"] = keys
    return text, enums, drop


def build_server(tools: GameTools, mode: str) -> MCPServer:
    """The game tools of this mode and rung over one item's session."""
    rung, session = tools.rung, tools.session
    act_text, enums, drop = _act_schema(tools)
    texts = (act_text, act_text, RECALL, inspect_text("screen"), read_pixels_text("screen", "task"), HISTORY)
    functions = {fn.__name__: (fn, text) for fn, text in zip(_functions(tools), texts)}
    functions |= note_tools(tools.notes, lambda: {"actions_used": len(session.steps)})
    names = rung.tools(mode, tools.codex)
    made = vista_play.task_tools(tools.vista, names, tools.handoff) if tools.vista is not None else {}
    if rung.act_schema == "vista":  # one role's schema: a game of several plays with --roles isolated (turns_for)
        made["act"] = _vista_act(tools, tools.turns.playing if tools.turns is not None else 0)
    if tools.turns is not None:
        return _by_role(tools, names, made)

    def schema(name: str, tool: Tool) -> dict:
        """The action tool's schema narrowed to the roles' controls; the others' as they are."""
        schema = plain_schema(tool.parameters)
        if name != rung.act_tool:
            return schema
        properties = schema.get("properties", {})
        for field in drop:
            properties.pop(field, None)
        for field, values in enums.items():
            if field in properties:
                properties[field]["enum"] = values
        if "keys" in properties and "key" in enums:
            properties["keys"]["items"] = {"type": "string", "enum": enums["key"]}
        return schema

    return served(functions, names, made, schema)
