"""GameWorld's catalog files, read as its runtime reads them (catalog/games/*.yaml: a game, its rules and each role's
controls; catalog/tasks/<game>/<task>.yaml: a task, its prompt and its evaluator settings), and checked where the
runtime would quietly mis-score: a bad value is an error naming the file and line and what to write instead.

The same defaults as the runtime: a role's hold 0.2 s, clicks allowed; a task's start score 0, pause during
inference and continue on fail on, a viewport of 1280x720."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_eval.benchmarks.gameworld.evaluator import EVALUATOR_ID, TaskRules
from agent_eval.benchmarks.gameworld.yamlfile import YamlFile

TRUE_WORDS = ("1", "true", "yes", "on")  # the runtime's as_bool: a string is true only when one of these
DEFAULT_HOLD_S = 0.2
MOUSE_BUTTONS = ("left", "right", "middle")


@dataclass(frozen=True)
class RoleControls:
    """What a role may press and click (computer_use_controls)."""

    allowed_keys: tuple[str, ...] = ()  # empty: no key (the role offers none; GameWorld's executor would allow any)
    hold_duration: float = DEFAULT_HOLD_S
    key_durations: dict[str, float] = field(default_factory=dict)
    allow_clicks: bool = True


@dataclass(frozen=True)
class SemanticControl:
    """One named action of the semantic interface and the low-level action it is bound to."""

    id: str
    description: str
    binding: dict[str, Any]
    required: tuple[str, ...] = ()


@dataclass(frozen=True)
class Role:
    name: str
    controls: RoleControls
    semantic_controls: tuple[SemanticControl, ...]
    role_section: str = ""
    controls_section: str = ""  # the computer-use controls, in words, for the prompt


@dataclass(frozen=True)
class GameDef:
    id: str  # the file's stem, which game_name must equal (e.g. 01_2048)
    rules: str
    roles: tuple[Role, ...]
    width: int = 1280
    height: int = 720
    url: str | None = None  # a remote page instead of the library's folder (not playable offline)
    path: Path = Path()


@dataclass(frozen=True)
class TaskDef:
    id: str  # e.g. 01_01, the file's stem
    game_id: str
    prompt: str
    url_suffix: str | None
    rules: TaskRules  # its evaluator's settings
    pause_during_inference: bool
    path: Path = Path()


# -- reading values, each bad one an error at its line


def _text(file: YamlFile, data: Mapping, key: str, *where: object, required: bool = False) -> str:
    value = data.get(key)
    if value is None:
        if required:
            raise file.error(f"{key} is missing; it is required", *where)
        return ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise file.error(f"{key} must be text, not {type(value).__name__}", *where, key)
    text = str(value)
    if required and not text.strip():
        raise file.error(f"{key} is empty; it is required", *where, key)
    return text


def _number(file: YamlFile, data: Mapping, key: str, default: float | None, *where: object) -> float | None:
    value = data.get(key)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        raise file.error(f"{key} must be a number, not {value!r}", *where, key)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise file.error(f"{key} must be a number, not {value!r}", *where, key) from None


def _integer(file: YamlFile, data: Mapping, key: str, *where: object) -> int | None:
    value = _number(file, data, key, None, *where)
    if value is None:
        return None
    if value != int(value) or value < 1:
        raise file.error(f"{key} must be a whole number of at least 1, not {data.get(key)!r}", *where, key)
    return int(value)


def _switch(file: YamlFile, data: Mapping, key: str, default: bool, *where: object) -> bool:
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in TRUE_WORDS
    raise file.error(f"{key} must be true or false, not {value!r}", *where, key)


def _mapping(file: YamlFile, data: Mapping, key: str, *where: object) -> dict[str, Any]:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise file.error(f"{key} must be a mapping (key: value lines), not {type(value).__name__}", *where, key)
    return dict(value)


def _strings(file: YamlFile, data: Mapping, key: str, *where: object) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
        raise file.error(f'{key} must be a list of names, e.g. ["ArrowLeft", "ArrowRight"]', *where, key)
    return tuple(str(v).strip() for v in value if str(v).strip())


# -- games


def _controls(file: YamlFile, data: Mapping, *where: object) -> RoleControls:
    raw = _mapping(file, data, "computer_use_controls", *where)
    at = (*where, "computer_use_controls")
    durations = _mapping(file, raw, "key_durations", *at)
    key_durations = {}
    for key in durations:
        value = _number(file, durations, key, None, *at, "key_durations")
        if value is None or value < 0:
            raise file.error(f"key_durations.{key} must be seconds (0 or more)", *at, "key_durations", key)
        key_durations[str(key)] = value
    hold = _number(file, raw, "hold_duration", DEFAULT_HOLD_S, *at)
    return RoleControls(
        allowed_keys=_strings(file, raw, "allowed_keys", *at),
        hold_duration=max(0.0, hold if hold is not None else DEFAULT_HOLD_S),
        key_durations=key_durations,
        allow_clicks=_switch(file, raw, "allow_clicks", True, *at),
    )


def _semantic(file: YamlFile, data: Mapping, *where: object) -> SemanticControl:
    for legacy, instead in (("action", "binding"), ("aliases", "one entry per id")):
        if legacy in data:
            raise file.error(f"a semantic control's {legacy!r} is no longer read by GameWorld; use {instead}", *where)
    ident = _text(file, data, "id", *where, required=True).strip()
    binding = _mapping(file, data, "binding", *where)
    if not binding:
        raise file.error(f"semantic control {ident!r} has no binding (the low-level action it stands for)", *where)
    if not isinstance(binding.get("action"), str):
        raise file.error(
            f"semantic control {ident!r}: binding.action must name an action (press_key, click, ...)", *where
        )
    description = _text(file, data, "description", *where)
    _mapping(file, data, "parameters", *where)  # checked as GameWorld reads it; the schema is the binding's
    return SemanticControl(ident, description, binding, _strings(file, data, "required", *where))


def _role(file: YamlFile, data: Any, index: int) -> Role:
    where = ("game_roles", index)
    if not isinstance(data, dict):
        raise file.error("each game role must be a mapping (name, computer_use_controls, ...)", *where)
    prompt = _mapping(file, data, "prompt", *where)
    if "semantic_controls_section" in prompt:
        raise file.error("prompt.semantic_controls_section is no longer read by GameWorld; remove it", *where, "prompt")
    controls = data.get("semantic_controls") or []
    if not isinstance(controls, list):
        raise file.error("semantic_controls must be a list", *where, "semantic_controls")
    return Role(
        name=_text(file, data, "name", *where).strip() or "player",
        controls=_controls(file, data, *where),
        semantic_controls=tuple(
            _semantic(file, entry, *where, "semantic_controls", n)
            for n, entry in enumerate(controls)
            if isinstance(entry, dict)
        ),
        role_section=_text(file, prompt, "role_section", *where, "prompt"),
        controls_section=_text(file, prompt, "computer_use_controls_section", *where, "prompt"),
    )


def read_game(path: Path) -> GameDef:
    file = YamlFile(path)
    data = file.data
    name = _text(file, data, "game_name", required=True).strip()
    if name != file.path.stem:
        raise file.error(f"game_name {name!r} does not match the file's name {file.path.stem!r}", "game_name")
    roles = data.get("game_roles")
    if not isinstance(roles, list) or not roles:
        raise file.error("game_roles must list at least one role (name, computer_use_controls, ...)", "game_roles")
    width, height = _integer(file, data, "width") or 1280, _integer(file, data, "height") or 720
    _number(file, data, "speed_multiplier", 1.0)  # checked as GameWorld reads them; unused: the clock is ours
    _text(file, data, "player_mode")
    return GameDef(
        id=name,
        rules=_text(file, data, "game_rules"),
        roles=tuple(_role(file, role, n) for n, role in enumerate(roles)),
        width=width,
        height=height,
        url=_text(file, data, "url").strip() or None,
        path=file.path,
    )


# -- tasks


def _evaluator_config(file: YamlFile, data: Mapping) -> dict[str, Any]:
    config = _mapping(file, data, "evaluator_config")
    at = ("evaluator_config",)
    fields = config.get("aggregate_score_fields")
    if fields is not None:
        if not isinstance(fields, list) or not fields or not all(isinstance(f, str) and f.strip() for f in fields):
            raise file.error(
                "aggregate_score_fields must be a non-empty list of dotted paths", *at, "aggregate_score_fields"
            )
    elif not isinstance(config.get("score_field"), str) or not config["score_field"].strip():
        raise file.error(
            "evaluator_config needs score_field (a dotted path into gameAPI.getState(), e.g. game_state.score) or "
            "aggregate_score_fields",
            *at,
        )
    end = config.get("end_field")
    if end not in (None, "") and (not isinstance(end, str) or not end.strip()):
        raise file.error("end_field must be a dotted path, e.g. terminal.isTerminal", *at, "end_field")
    metrics = config.get("metrics_fields")
    if metrics is not None and not isinstance(metrics, list):
        raise file.error("metrics_fields must be a list of dotted paths", *at, "metrics_fields")
    return config


def read_task(path: Path) -> TaskDef:
    file = YamlFile(path)
    data = file.data
    if "task_goal" in data:
        raise file.error("task_goal is no longer read by GameWorld; call it task_prompt", "task_goal")
    task_id = _text(file, data, "task_id", required=True).strip()
    game_id = _text(file, data, "game_id", required=True).strip()
    if task_id != file.path.stem or game_id != file.path.parent.name:
        raise file.error(
            f"the file declares game_id {game_id!r}, task_id {task_id!r}, but lies at "
            f"{file.path.parent.name}/{file.path.name} (tasks/<game_id>/<task_id>.yaml)",
            "task_id",
        )
    evaluator = _text(file, data, "evaluator_id").strip() or "noop"
    if evaluator != EVALUATOR_ID:
        raise file.error(
            f"evaluator_id {evaluator!r}: GameWorld scores only {EVALUATOR_ID!r} (any other id is never scored)",
            "evaluator_id",
        )
    prompt = _text(file, data, "task_prompt", required=True)
    url_suffix = _text(file, data, "game_url_suffix").strip() or None
    config = _evaluator_config(file, data)
    start = _number(file, data, "task_start_score_field", 0.0) or 0.0
    target = _number(file, data, "task_target_score_field", None)
    max_steps = _integer(file, data, "max_steps")
    pause = _switch(file, data, "pause_during_inference", True)
    rules = TaskRules(config, start, target, max_steps, _switch(file, data, "continue_on_fail", True))
    return TaskDef(task_id, game_id, prompt, url_suffix, rules, pause, file.path)


def append_url_suffix(url: str, suffix: str | None) -> str:
    """A task's URL suffix as GameWorld's launcher appends it: `#...` as is; `?a=b` (or `&a=b`, or a bare `a=b`)
    as a query; anything else appended as written."""
    suffix = (suffix or "").strip()
    if not suffix:
        return url
    if suffix.startswith("#"):
        return url + suffix
    if suffix.startswith(("?", "&")):
        suffix = suffix[1:]
    if "=" in suffix:
        return f"{url}{'&' if '?' in url else '?'}{suffix}"
    return url + suffix
