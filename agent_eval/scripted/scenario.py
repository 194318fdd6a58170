"""Scenario model: rules of scripted turns plus optional faults (format in the package doc)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

ALWAYS = "always"
WIRES = ("anthropic", "responses")
FAULT_STATUSES = (400, 401, 403, 404, 429, 500, 502, 503, 529)


class ScenarioError(ValueError):
    """The scenario file or dict is malformed."""


@dataclass(frozen=True)
class Call:
    tool: str  # agent-neutral name: shell, view_file, or an offered tool's name
    input: dict[str, Any]


@dataclass(frozen=True)
class Failure:
    """An API error as a turn's answer (e.g. the context window is full), each time that turn is due."""

    status: int
    message: str | None = None
    code: str | None = None  # Responses: the error's `code` (Anthropic words the error by status alone)


@dataclass(frozen=True)
class Turn:
    say: str = ""  # text before the calls (or the whole answer of a final turn)
    calls: tuple[Call, ...] = ()  # empty: this is a final turn
    final: str | None = None
    fail: Failure | None = None  # answer this API error instead (a turn that ends the script, like a final one)

    @property
    def is_final(self) -> bool:
        return not self.calls


@dataclass(frozen=True)
class Rule:
    turns: tuple[Turn, ...]
    match: re.Pattern[str] | None = None
    seen: re.Pattern[str] | None = None  # also searched in the tool results so far: a rule for what a tool showed

    def applies(self, prompt: str, results_text: str, system: str = "") -> bool:
        return (
            (self.match is None or self.match.search(prompt) is not None)
            and (self.seen is None or self.seen.search(results_text) is not None)
            and (self.system is None or self.system.search(system) is not None)
        )

    # wire ("anthropic" / "responses") -> the usage each turn's answer reports, in that API's own words
    # (the last one repeats); None: the scenario's, else the fixed usage in the package doc.
    usage: dict[str, tuple[dict, ...]] | None = field(default=None, hash=False, compare=False)
    # `stop: {when: REGEX, final: TEXT}`: once the most recent tool result matches, answer TEXT (a final turn)
    # whatever turn is due (e.g. a game's play asking the agent to stop and hand off).
    stop: tuple[re.Pattern[str], str] | None = field(default=None, hash=False, compare=False)
    # `tokens_per_byte: K`: each answer reports input_tokens = K x the request body's bytes (a context that grows
    # with the conversation, as a long game's does; images counted by their base64 bytes), output_tokens 20
    tokens_per_byte: float | None = field(default=None, hash=False, compare=False)
    # `prompt_cache: true` (with tokens_per_byte): the answers report what a provider's prompt cache would have read
    # and written for the request (prompt_cache.py), in each API's words
    prompt_cache: bool = field(default=False, hash=False, compare=False)
    # `system: REGEX`: also searched in the system prompt (Codex: its instructions and developer messages), e.g.
    # one session's of an item whose sessions differ only there (a game's roles)
    system: re.Pattern[str] | None = None

    def usage_for(self, wire: str, turn: int) -> dict | None:
        answers = (self.usage or {}).get(wire)
        return dict(answers[min(turn, len(answers) - 1)]) if answers else None

    def turn_for(self, n_results: int) -> tuple[int, Turn | None]:
        """Map 'tool results already in the conversation' to (turn index, turn).

        Turn k is due once the results of all calls in turns 0..k-1 are present, so a
        turn with two parallel calls consumes two results. None: the script is exhausted.
        """
        done = 0
        for index, turn in enumerate(self.turns):
            if n_results <= done or turn.is_final:
                return index, turn
            done += len(turn.calls)
            if n_results < done:  # only some results of a parallel turn: replay it
                return index, turn
        return len(self.turns), None


@dataclass(frozen=True)
class Faults:
    concurrency: int | None = None  # model requests in flight beyond this get 429 (+ retry_after)
    status: int | None = None  # answer main requests with this HTTP status
    times: int | None = None  # how many main requests the status/hang/truncate fault hits; None = always
    should_retry: bool | None = None  # sets `x-should-retry: true|false` on fault answers
    retry_after: float | None = None  # sets `retry-after` (seconds) on fault answers
    hang: bool = False  # accept the request, never answer
    truncate: bool = False  # start the stream, stop mid-message, close the connection
    delay: float = 0.0  # seconds to wait before every main answer
    match: re.Pattern[str] | None = None  # only main requests whose prompt text matches get the faults
    message: str | None = None  # the error message of a status fault (default: "scripted fault: HTTP ...")
    for_s: float | None = None  # the fault hits only within this many seconds of the first main request it met
    poison: re.Pattern[str] | None = None  # main requests whose prompt matches get the fault always, uncounted
    after: int = (
        0  # the first N main requests (of those the faults apply to) pass untouched; `times` counts on from there
    )
    model: re.Pattern[str] | None = None  # only requests naming a model that matches get the faults
    # A subscription's usage limit: main requests are answered 429 in the wire's own usage-limit shape with a reset
    # this many seconds after the first of them, until that reset (then they pass); `after`/`times` count as usual
    usage_limit: float | None = None

    def applies(self, prompt: str, model: str = "") -> bool:
        """Whether a main request with this prompt text, to this model, gets the faults (delay included)."""
        return (self.match is None or self.match.search(prompt) is not None) and self.for_model(model)

    def for_model(self, model: str) -> bool:
        return self.model is None or self.model.search(model or "") is not None

    @property
    def kind(self) -> str | None:
        if self.usage_limit is not None:
            return "usage_limit"
        if self.status is not None:
            return "status"
        if self.hang:
            return "hang"
        if self.truncate:
            return "truncate"
        return None

    def hits(self, main_index: int, elapsed_s: float = 0.0) -> bool:
        """Whether the main request with this 0-based index (among those the faults apply to), `elapsed_s` after
        the first of them, gets the fault."""
        return (
            self.kind is not None
            and main_index >= self.after
            and (self.times is None or main_index < self.after + self.times)
            and (self.for_s is None or elapsed_s < self.for_s)
        )

    def poisons(self, prompt: str, model: str = "") -> bool:
        """Whether a main request with this prompt text gets the fault every time, whatever times/for_s say."""
        return (
            self.kind is not None
            and self.poison is not None
            and self.poison.search(prompt) is not None
            and self.for_model(model)
        )


@dataclass(frozen=True)
class JudgeRule:
    match: re.Pattern[str]  # searched in the request's prompt text
    reply: str


@dataclass(frozen=True)
class Scenario:
    rules: tuple[Rule, ...]
    faults: Faults = field(default_factory=Faults)
    models: tuple[str, ...] = ()  # what GET /v1/models lists (default: "scripted")
    judge: tuple[JudgeRule, ...] = ()  # answers to a harness's judge requests (model-graded scoring)

    def judge_reply(self, prompt: str) -> str | None:
        """The scripted judge's reply to a prompt its rules match (None: not a judge request)."""
        return next((rule.reply for rule in self.judge if rule.match.search(prompt)), None)


def _call(raw: Any, where: str) -> Call:
    if not isinstance(raw, dict) or not isinstance(raw.get("call"), str):
        raise ScenarioError(f"{where}: a call needs `call: <tool name>`")
    inp = raw.get("input", {})
    if not isinstance(inp, dict):
        raise ScenarioError(f"{where}: `input` must be a mapping")
    return Call(raw["call"], dict(inp))


def _turn(raw: Any, where: str) -> Turn:
    if isinstance(raw, str):
        return Turn(final=raw)
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: a turn is a mapping or a string (final text)")
    unknown = set(raw) - {"say", "call", "input", "calls", "final", "fail"}
    if unknown:
        raise ScenarioError(f"{where}: unknown keys {sorted(unknown)}")
    if "fail" in raw:
        if set(raw) != {"fail"}:
            raise ScenarioError(f"{where}: a `fail` turn has nothing else")
        return Turn(fail=_failure(raw["fail"], f"{where}.fail"))
    calls: list[Call] = []
    if "call" in raw:
        calls.append(_call({"call": raw["call"], "input": raw.get("input", {})}, where))
    for i, c in enumerate(raw.get("calls") or []):
        calls.append(_call(c, f"{where}.calls[{i}]"))
    final = raw.get("final")
    if calls and final is not None:
        raise ScenarioError(f"{where}: a turn either calls tools or is final, not both")
    if not calls and final is None:
        raise ScenarioError(f"{where}: a turn needs `call`, `calls` or `final`")
    return Turn(say=str(raw.get("say") or ""), calls=tuple(calls), final=None if final is None else str(final))


def _failure(raw: Any, where: str) -> Failure:
    if not isinstance(raw, dict) or raw.get("status") not in FAULT_STATUSES or set(raw) - {"status", "message", "code"}:
        raise ScenarioError(f"{where}: {{status: one of {FAULT_STATUSES}, message: <text>, code: <error code>}}")
    text = {k: None if raw.get(k) is None else str(raw[k]) for k in ("message", "code")}
    return Failure(raw["status"], text["message"], text["code"])


def _rule(raw: Any, where: str) -> Rule:
    if not isinstance(raw, dict) or not isinstance(raw.get("turns"), list) or not raw["turns"]:
        raise ScenarioError(f"{where}: a rule needs a non-empty `turns` list")
    patterns = []
    for key in ("match", "seen", "system"):
        try:
            patterns.append(re.compile(raw[key]) if raw.get(key) is not None else None)
        except re.error as exc:
            raise ScenarioError(f"{where}: bad regex {raw[key]!r}: {exc}") from exc
    turns = tuple(_turn(t, f"{where}.turns[{i}]") for i, t in enumerate(raw["turns"]))
    unknown = set(raw) - {"turns", "match", "seen", "system", "usage", "stop", "tokens_per_byte", "prompt_cache"}
    if unknown:
        raise ScenarioError(f"{where}: unknown keys {sorted(unknown)}")
    stop_raw, stop = raw.get("stop"), None
    if stop_raw is not None:
        if (
            not isinstance(stop_raw, dict)
            or set(stop_raw) != {"when", "final"}
            or not isinstance(stop_raw["final"], str)
        ):
            raise ScenarioError(f"{where}.stop: {{when: <regex>, final: <text>}}")
        try:
            stop = (re.compile(stop_raw["when"]), stop_raw["final"])
        except (re.error, TypeError) as exc:
            raise ScenarioError(f"{where}.stop.when: bad regex {stop_raw['when']!r}: {exc}") from exc
    per_byte = raw.get("tokens_per_byte")
    if per_byte is not None and not (isinstance(per_byte, (int, float)) and per_byte > 0):
        raise ScenarioError(f"{where}.tokens_per_byte: a positive number")
    cache = raw.get("prompt_cache", False)
    if not isinstance(cache, bool) or (cache and per_byte is None):
        raise ScenarioError(f"{where}.prompt_cache: true or false, and true only with tokens_per_byte")
    usage = _usage(raw.get("usage"), f"{where}.usage")
    return Rule(turns, patterns[0], patterns[1], usage, stop, per_byte, cache, patterns[2])


def _usage(raw: Any, where: str) -> dict[str, tuple[dict, ...]] | None:
    """`{anthropic: USAGE or [USAGE per turn], responses: ...}`, each USAGE as that API words it."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) - set(WIRES):
        raise ScenarioError(f"{where}: a mapping with {' and/or '.join(WIRES)} (the usage each API's answers report)")
    out = {}
    for wire, value in raw.items():
        answers = value if isinstance(value, list) else [value]
        if not answers or not all(isinstance(a, dict) and "output_tokens" in a for a in answers):
            raise ScenarioError(f"{where}.{wire}: a usage mapping (with output_tokens), or a non-empty list of them")
        out[wire] = tuple(answers)
    return out


def parse_faults(raw: Any) -> Faults:
    if raw is None:
        return Faults()
    if isinstance(raw, Faults):
        return raw
    if not isinstance(raw, dict):
        raise ScenarioError("faults: must be a mapping")
    known = {
        "status",
        "times",
        "should_retry",
        "retry_after",
        "hang",
        "truncate",
        "delay",
        "match",
        "message",
        "concurrency",
        "for_s",
        "poison",
        "after",
        "model",
        "usage_limit",
    }
    unknown = set(raw) - known
    if unknown:
        raise ScenarioError(f"faults: unknown keys {sorted(unknown)}")
    times = raw.get("times", ALWAYS)
    if times != ALWAYS and not (isinstance(times, int) and times >= 0):
        raise ScenarioError("faults.times: a non-negative integer or 'always'")
    status = raw.get("status")
    match = raw.get("match")
    try:
        pattern = re.compile(match) if match is not None else None
    except (re.error, TypeError) as exc:
        raise ScenarioError(f"faults.match: bad regex {match!r}: {exc}") from exc
    for_s = raw.get("for_s")
    if for_s is not None and not (isinstance(for_s, (int, float)) and for_s > 0):
        raise ScenarioError("faults.for_s: a positive number of seconds")
    poison = raw.get("poison")
    try:
        poison_pattern = re.compile(poison) if poison is not None else None
    except (re.error, TypeError) as exc:
        raise ScenarioError(f"faults.poison: bad regex {poison!r}: {exc}") from exc
    after = raw.get("after", 0)
    if not (isinstance(after, int) and after >= 0):
        raise ScenarioError("faults.after: a non-negative integer")
    model = raw.get("model")
    try:
        model_pattern = re.compile(model) if model is not None else None
    except (re.error, TypeError) as exc:
        raise ScenarioError(f"faults.model: bad regex {model!r}: {exc}") from exc
    concurrency = raw.get("concurrency")
    if concurrency is not None and not (isinstance(concurrency, int) and concurrency >= 1):
        raise ScenarioError("faults.concurrency: a positive integer")
    usage_limit = raw.get("usage_limit")
    if usage_limit is not None and not (isinstance(usage_limit, (int, float)) and usage_limit > 0):
        raise ScenarioError("faults.usage_limit: the reset, a positive number of seconds after the first request hit")
    if status is not None and status not in FAULT_STATUSES:
        raise ScenarioError(f"faults.status: one of {FAULT_STATUSES}")
    faults = Faults(
        status=status,
        times=None if times == ALWAYS else times,
        should_retry=raw.get("should_retry"),
        retry_after=raw.get("retry_after"),
        hang=bool(raw.get("hang", False)),
        truncate=bool(raw.get("truncate", False)),
        delay=float(raw.get("delay", 0.0)),
        match=pattern,
        message=None if raw.get("message") is None else str(raw["message"]),
        concurrency=concurrency,
        for_s=None if for_s is None else float(for_s),
        poison=poison_pattern,
        after=after,
        model=model_pattern,
        usage_limit=None if usage_limit is None else float(usage_limit),
    )
    if sum([faults.status is not None, faults.hang, faults.truncate, faults.usage_limit is not None]) > 1:
        raise ScenarioError("faults: choose one of status, hang, truncate, usage_limit")
    return faults


def parse_scenario(raw: Any) -> Scenario:
    """Build a Scenario from a parsed YAML/JSON value (see the package doc for the format)."""
    if isinstance(raw, Scenario):
        return raw
    if not isinstance(raw, dict):
        raise ScenarioError("a scenario is a mapping with `rules` (or `turns`)")
    unknown = set(raw) - {"rules", "turns", "faults", "usage", "models", "judge"}
    if unknown:
        raise ScenarioError(f"scenario: unknown keys {sorted(unknown)}")
    if "turns" in raw and "rules" in raw:
        raise ScenarioError("scenario: give `rules` or top-level `turns`, not both")
    rules_raw = raw.get("rules") if "rules" in raw else [{"turns": raw.get("turns")}]
    if not isinstance(rules_raw, list) or not rules_raw:
        raise ScenarioError("scenario: `rules` must be a non-empty list")
    default_usage = _usage(raw.get("usage"), "usage")
    rules = tuple(_rule(r, f"rules[{i}]") for i, r in enumerate(rules_raw))
    rules = tuple(rule if rule.usage else replace(rule, usage=default_usage) for rule in rules)
    models = raw.get("models") or ()
    if not isinstance(models, (list, tuple)) or not all(isinstance(m, str) for m in models):
        raise ScenarioError("models: a list of model names (what GET /v1/models lists)")
    return Scenario(rules, parse_faults(raw.get("faults")), tuple(models), _judge_rules(raw.get("judge")))


def _judge_rules(raw: Any) -> tuple[JudgeRule, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ScenarioError("judge: a list of {match: <regex>, reply: <text>}")
    rules = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict) or set(entry) != {"match", "reply"} or not isinstance(entry["reply"], str):
            raise ScenarioError(f"judge[{i}]: needs exactly `match` (a regex) and `reply` (text)")
        try:
            rules.append(JudgeRule(re.compile(str(entry["match"])), entry["reply"]))
        except re.error as error:
            raise ScenarioError(f"judge[{i}]: bad match regex ({error})") from None
    return tuple(rules)


def load_scenario(source: str | Path | dict | Scenario) -> Scenario:
    """A Scenario from a dict, a Scenario, a YAML file path, or YAML text."""
    if isinstance(source, (dict, Scenario)):
        return parse_scenario(source)
    text = str(source)
    path = Path(text)
    if "\n" not in text and path.suffix in (".yaml", ".yml", ".json") or path.is_file():
        text = path.read_text()
    return parse_scenario(yaml.safe_load(text))
