"""Which benchmark kinds exist: name -> "module:Class", plus how a dataset directory is recognised.

Adding a kind is one line here and one package under benchmarks/. Nothing outside benchmarks/
imports a kind's modules: the run and read paths look the kind up here by name.
"""

from __future__ import annotations

import importlib
from dataclasses import KW_ONLY, dataclass
from pathlib import Path

from agent_eval.benchmarks.base import TOOL_MODES, Benchmark
from agent_eval.benchmarks.presentation import ReadingHooks
from agent_eval.benchmarks.profiles import PROFILES, Profile


@dataclass(frozen=True)
class KindOption:
    """A `run` option of one kind (e.g. arcgames' --max-actions): offered by `run` and `slurm submit`,
    handed to that kind's Benchmark.configure() under `name`, recorded in the run's identity."""

    flag: str  # "--max-actions"
    help: str
    _: KW_ONLY  # the rest by name: KindOption("--max-actions", "...", type=int, default=200)
    type: type = str  # int, float or str
    default: object = None
    # A value that means the same as leaving the option out (e.g. --world-model off): left out of the identity,
    # so the runs made before the option existed keep theirs.
    unset: object = None
    choices: tuple[str, ...] = ()  # its only values: `run` and sweep files refuse others, `run --help` lists them

    @property
    def name(self) -> str:
        """ "max_actions" for --max-actions: its key in configure()'s dict and in run.json's kind_options."""
        return self.flag.removeprefix("--").replace("-", "_")


@dataclass(frozen=True)
class Kind:
    target: str  # "module:Class" of the Benchmark
    tool_modes: tuple[str, ...] = TOOL_MODES  # its Benchmark.tool_modes, so the CLI offers them without importing it
    detect: str | None = None  # "module:function(root) -> bool"; None: the fallback kind
    tool_names: tuple[str, ...] = ()  # tools of its own (MCP tool names), counted apart when tool use is read
    data_help: str = ""  # its dataset layout, for --data's help
    judge_use: str = ""  # when its grader asks a judge model (--judge-model's help); empty: never
    modes_help: str = ""  # what each of its tool modes gives the agent, for --tools' help
    samples_help: str = ""  # what `sample-data --kind NAME` writes
    options: tuple[KindOption, ...] = ()  # run options of its own
    always_tools: tuple[str, ...] = ()  # tools even its mode none may offer (a game's play): no broken ablation


ON_OFF = ("on", "off")
OURS_OR_VISTA = ("ours", "vista")
# Options several kinds share, each one flag with the same values and meaning for every kind that offers it:
# VISTA's rungs (notes iv, context iii/iv), the game core's session cap (games/handoff.py) and one action per
# observation (games/protocol.py: its default is each kind's), the browser games' protocol, clock and episode.
NOTES_OPTION = KindOption(
    "--notes",
    "ARC-AGI-3 games (rung iv), the browser games (AI GameStore, GameWorld) and active observation: on gives the "
    "agent two notes, GUIDE.md and WORKING.md, through read_notes and write_note in every tool mode, every version "
    "kept (default: off).",
    unset="off",
    choices=ON_OFF,
)
CONTEXT_OPTION = KindOption(
    "--context",
    "ARC-AGI-3 games (rung iii/iv), AI GameStore and GameWorld (VISTA's protocol): native (the CLI compacts its "
    "own context) or handoff:TOKENS (its compaction off; at TOKENS of context the agent updates its notes and "
    "stops, and a fresh session goes on from them; give --notes on) or handoff:cli (the same hand-off where the CLI "
    "itself would compact: Claude Code's PreCompact hook blocks it, Codex's own threshold is watched) "
    "(default: native).",
    unset="native",
)
SESSION_IMAGES_OPTION = KindOption(
    "--session-images",
    "Games (ARC-AGI-3; AI GameStore and GameWorld under VISTA's protocol with --notes on): before a tool would give "
    "the N-th image of one agent session, the agent updates its notes and stops and a fresh session goes on (VISTA: "
    "600). Kept at most the CLI's own per-request image cap for the model, past which it drops images (Claude "
    "Code: 600 for a natively-1M model, else 100); the run's first lines say the cap used (default: no cap).",
    type=int,
)
PROTOCOL_OPTION = KindOption(
    "--protocol",
    "Browser games: vista (one continuous session acting through the game's tool, every frame kept) or official "
    "(the benchmark's own baseline, a fresh single-turn request per decision: AI GameStore's with the last "
    "decision's frames and the scratchpad, its inputs read from the reply's <keys>; GameWorld's shown its two "
    "preceding steps, one action through the tool) (default: vista).",
    unset="vista",
    choices=("vista", "official"),
)
REALTIME_OPTION = KindOption(
    "--realtime",
    "Browser games: on lets the game run on while the model thinks (each decision first plays the wall time since "
    "the last one, recorded, so a replay plays it again); off keeps it paused (default: off).",
    unset="off",
    choices=ON_OFF,
)
TASK_PROMPT_OPTION = KindOption(
    "--task-prompt",
    "Games and BabyVision: what each session is told: ours (the mode's template: the game, its tools and budget; "
    "BabyVision's question with its image) or vista (VISTA's own words: ARC-AGI-3 games the current observation's "
    "metadata and 'Complete the game with as few game actions as possible.'; AI GameStore 'Game screen (paused):' "
    "and GameWorld 'Game screen:' with the screen; and VISTA's recovery words when a session goes on; BabyVision the "
    "official question alone, the image attached with VISTA's label of it) (default: ours).",
    unset="ours",
    choices=OURS_OR_VISTA,
)
GAME_TOOLS_OPTION = KindOption(
    "--game-tools",
    "Games: ours or vista (VISTA's tools, answering as VISTA does). ARC-AGI-3 games: ours (play, recall, inspect, "
    "read_pixels, read_notes, write_note) or vista (play, inspect over turns with labelled views and a question, "
    "read_pixels sampling the image as shown, history, read_guide, write_guide, read_working, write_working). AI "
    "GameStore and GameWorld: vista offers the action (play and restart; act) in VISTA's words, from mode image "
    "inspect, read_pixels (over every screen as an event's moment) and history (the events), with --notes on "
    "read_guide, write_guide, read_working, write_working (default: ours).",
    unset="ours",
    choices=OURS_OR_VISTA,
)
FINAL_ANSWER_OPTION = KindOption(
    "--final-answer",
    "Browser games: what a final reply with decisions left does: ends (the game is graded as it stands) or "
    "redirect (VISTA: it is not a game action; the model is told so in VISTA's words and the game goes on, at most "
    "as many times as there are decisions) (default: ends).",
    unset="ends",
    choices=("ends", "redirect"),
)
ACTION_BATCHES_HELP = (
    "Game kinds: off refuses an action (play, restart, act) until the previous action's result has reached the "
    "model (one action per observation, VISTA: ARC-AGI-3's default, --profile vista's for the browser games); on "
    "lets several actions of one message all run, unseen (the browser games' default)."
)
TELL_STEPS_OPTION = KindOption(
    "--tell-steps",
    "Browser games: on says in every play's result the decision number and how many are left; off says neither "
    "(VISTA's host_action_count and host_action_horizon false) (default: on).",
    unset="on",
    choices=ON_OFF,
)


# The notes' tools, ours (--notes on) and VISTA's (--game-tools vista): offered even in a game's mode none.
NOTE_TOOLS = ("read_notes", "write_note", "read_guide", "write_guide", "read_working", "write_working")
# The browser games' options after their own, the same for AI GameStore and GameWorld.
BROWSER_GAME_OPTIONS = (
    NOTES_OPTION,
    CONTEXT_OPTION,
    SESSION_IMAGES_OPTION,
    TASK_PROMPT_OPTION,
    FINAL_ANSWER_OPTION,
    TELL_STEPS_OPTION,
    GAME_TOOLS_OPTION,
    KindOption("--action-batches", ACTION_BATCHES_HELP, unset="on", choices=ON_OFF),
)


# Order matters for detection: the first kind whose detector says yes; the kind without one is the fallback.
KINDS: dict[str, Kind] = {
    "activeobs": Kind(
        "agent_eval.benchmarks.activeobs.benchmark:ActiveObservation",
        ("none", "observe", "python"),
        detect="agent_eval.benchmarks.activeobs.loader:is_active_dataset",
        tool_names=("observe", "get_graph", "add_entity", "add_attribute", "add_relation", "read_notes", "write_note"),
        data_help="an active-observation set (items.jsonl + scenes/)",
        modes_help="Active-observation items: none (sampled frames inline), observe (the observe tool), python",
        samples_help="activeobs: synthetic 360° panoramic sequences rendered on demand from scene files",
        options=(
            KindOption(
                "--world-model",
                "Active observation: on or off; on adds the world-model tools (get_graph, add_entity, add_attribute, "
                "add_relation: a graph of what the agent saw, each fact citing its observation) to any tool mode "
                "(default: off).",
                unset="off",
                choices=ON_OFF,
            ),
            NOTES_OPTION,
        ),
        # with --world-model on (or --notes on) its mode none offers these: no broken ablation
        always_tools=("get_graph", "add_entity", "add_attribute", "add_relation", "read_notes", "write_note"),
    ),
    "vlmeval": Kind(
        "agent_eval.benchmarks.vlmeval.benchmark:VlmEvalMcq",
        detect="agent_eval.benchmarks.vlmeval.loader:is_tsv",
        judge_use="only where the rules read no option",
        data_help="a VLMEvalKit multiple-choice TSV file (HR-Bench, V* Bench, MMBench-style)",
        modes_help="VLMEvalKit TSV and BabyVision items: the same three modes, every image of the item given",
        samples_help="vlmeval: a small VLMEvalKit-layout TSV (base64 images, hints, 2-6 options)",
    ),
    "babyvision": Kind(
        "agent_eval.benchmarks.babyvision.benchmark:BabyVision",
        detect="agent_eval.benchmarks.babyvision.loader:is_babyvision",
        judge_use="every item, unless --grade vista (then it is a second, labelled grade)",
        data_help="a BabyVision-layout folder (meta_data.jsonl beside its images)",
        samples_help="babyvision: a small BabyVision-layout folder (choice and blank questions)",
        options=(
            TASK_PROMPT_OPTION,
            KindOption(
                "--image-tools",
                "BabyVision, tool modes image and python: ours (inspect, read_pixels and info on the image file in "
                "the working directory, and the CLI's file viewer) or vista (VISTA's inspect and read_pixels only, "
                "over the image as supplied: views chosen by event and labelled, with a visual question; the image "
                "is not in the working directory; give --task-prompt vista) (default: ours).",
                unset="ours",
                choices=OURS_OR_VISTA,
            ),
            KindOption(
                "--grade",
                "BabyVision: which grade is an item's `correct`: judge (VLMEvalKit's: the judge model decides from "
                "the last \\boxed{} answer; ungraded without --judge-model) or vista (VISTA's: the last \\boxed{} "
                "answer, normalized exact match). Both are recorded in every case, the judge's when a --judge-model "
                "is given (default: judge).",
                unset="judge",
                choices=("judge", "vista"),
            ),
        ),
    ),
    "activevision": Kind(
        "agent_eval.benchmarks.activevision.benchmark:ActiveVision",
        data_help="metadata.jsonl or manifest.json layout",
        modes_help="none: image inline, no tools; image: inspection tools only; python: plus a shell",
        samples_help="activevision: images in the style of ActiveVision's 17 tasks",
    ),
}
KINDS["arcgames"] = Kind(
    "agent_eval.benchmarks.arcgames.benchmark:ArcGames",
    detect="agent_eval.benchmarks.arcgames.loader:is_games_dataset",
    tool_names=("play", "recall", "history", *NOTE_TOOLS),
    data_help="ARC-AGI-3 games (the toolkit's environment_files/<game>/<version>/ layout)",
    modes_help="ARC-AGI-3 games: none (play only), image (play, recall, inspect, read_pixels), python (plus a shell "
    "over the frames)",
    samples_help="arcgames: the project's own ARC-AGI-3-style games on ARCEngine",
    options=(
        KindOption("--max-actions", "ARC-AGI-3 games: actions per game, RESETs included.", type=int, default=200),
        KindOption("--frame-scale", "ARC-AGI-3 games: each game pixel drawn as an NxN square.", type=int, default=4),
        KindOption(
            "--max-hours",
            "ARC-AGI-3 games: hours of play per game, counted across restarts and sessions (default: no bound "
            "but --timeout's per attempt).",
            type=float,
        ),
        KindOption(
            "--observation",
            "ARC-AGI-3 games (VISTA's rung i): how play and recall show a frame: image, text (its 64x64 colour "
            "indices as hex digits) or both (default: image).",
            unset="image",
            choices=("image", "text", "both"),
        ),
        KindOption(
            "--level-actions",
            "ARC-AGI-3 games (rung ii): each level bounded at ceil(its human baseline x this) actions, besides "
            "--max-actions (ARC Prize's harness uses 2 or 5; default: no per-level bound).",
            type=float,
        ),
        NOTES_OPTION,
        CONTEXT_OPTION,
        SESSION_IMAGES_OPTION,
        KindOption(
            "--pixel-readout",
            "ARC-AGI-3 games (rung vi): off leaves read_pixels out of modes image and python, keeping recall and "
            "inspect (rung v) (default: on).",
            unset="on",
            choices=ON_OFF,
        ),
        # What the model sees and may call, VISTA's way beside ours (arcgames/ladder.py; docs/kinds/arcgames.md)
        GAME_TOOLS_OPTION,
        KindOption(
            "--frame-grid",
            "ARC-AGI-3 games: on draws frames with VISTA's grid lines (the first row and column of every game "
            "pixel's square darkened to 3/4), in the image shown and archived (default: off).",
            unset="off",
            choices=ON_OFF,
        ),
        KindOption(
            "--coordinates",
            "ARC-AGI-3 games: grid (ACTION6 and every region in game pixels, 0-63) or display (in pixels of the "
            "image as shown, 0 to 64 x --frame-scale - 1, a click mapped to the game pixel under it as VISTA maps "
            "it) (default: grid).",
            unset="grid",
            choices=("grid", "display"),
        ),
        KindOption(
            "--working-scope",
            "ARC-AGI-3 games (with --notes on): game (WORKING.md lasts the game) or level (archived with its "
            "provenance and emptied at each completed level, VISTA's way) (default: game).",
            unset="game",
            choices=("game", "level"),
        ),
        KindOption(
            "--guide-chars",
            "ARC-AGI-3 games (with --notes on): GUIDE.md's size limit in characters (default: 20000 with "
            "--game-tools ours, VISTA's 65536 with vista).",
            type=int,
        ),
        KindOption(
            "--working-chars",
            "ARC-AGI-3 games (with --notes on): WORKING.md's size limit in characters (default: 20000 with "
            "--game-tools ours, VISTA's 16384 with vista).",
            type=int,
        ),
        # How the episode runs (games/protocol.py): VISTA's by default, each recorded in the run's identity
        KindOption(
            "--initial-frame",
            "ARC-AGI-3 games: on shows the game's first frame and state with the task, before any action (VISTA); "
            "off: the agent's first play (RESET, an action of the budget) shows it.",
            default="on",
            choices=ON_OFF,
        ),
        KindOption("--action-batches", ACTION_BATCHES_HELP, default="off", choices=ON_OFF),
        KindOption(
            "--early-stop",
            "ARC-AGI-3 games: what follows a session that ends with the game live and budget left: continue (the "
            "session is told to go on, then fresh sessions with the game's state and the notes, VISTA) or grade "
            "(the game is graded as it stands).",
            default="continue",
            choices=("continue", "grade"),
        ),
        TASK_PROMPT_OPTION,
        KindOption(
            "--recoveries",
            "ARC-AGI-3 games: with --early-stop continue, fresh sessions in a row with no action between before the "
            "game is graded as it stands (VISTA: 5).",
            type=int,
            default=5,
        ),
        KindOption(
            "--arc-mode",
            "ARC-AGI-3 games: offline (the toolkit scores each game locally), online or competition (the games are "
            "played at the ARC API with your key, ARC_API_KEY, on one scorecard per run, opened before the first "
            "game and closed at the end; ARC_BASE_URL names another server; docs/kinds/arcgames.md) "
            "(default: offline).",
            unset="offline",
            choices=("offline", "online", "competition"),
        ),
    ),
    # notes (--notes on) are offered in mode none too, ours or VISTA's
    always_tools=("play", *NOTE_TOOLS),
)
KINDS["aigamestore"] = Kind(
    "agent_eval.benchmarks.aigamestore.benchmark:AiGameStore",
    detect="agent_eval.benchmarks.aigamestore.loader:is_gamestore_dataset",
    tool_names=("play", "restart", "recall", "history", "read_notes", "write_note"),
    data_help="AI GameStore browser games (games/<name>/index.html: a checkout of lance-ying/aigamestore or its "
    "harness)",
    modes_help="AI GameStore: none (play, restart), image (+ recall, inspect, read_pixels, history), python (+ a "
    "shell over the frames); the official protocol replies with <keys> instead of play",
    samples_help="aigamestore: the project's own AI GameStore-style test games (p5.js, matter-js, three.js)",
    options=(
        PROTOCOL_OPTION,
        KindOption("--decisions", "AI GameStore: game seconds (decisions) per game (default: 120).", type=int),
        REALTIME_OPTION,
        KindOption(
            "--game-seed",
            "Browser games: the seed of the page's Math.random and crypto (default: 0; recorded, replayed).",
            type=int,
            unset=0,
        ),
        *BROWSER_GAME_OPTIONS,
    ),
    always_tools=("play", "restart", *NOTE_TOOLS),
)
KINDS["gameworld"] = Kind(
    "agent_eval.benchmarks.gameworld.benchmark:GameWorld",
    detect="agent_eval.benchmarks.gameworld.loader:is_gameworld_dataset",
    tool_names=("act", "control", "recall", "history", "read_notes", "write_note"),
    data_help="a GameWorld checkout (catalog/games, catalog/tasks; its game library cloned in games/benchmark)",
    modes_help="GameWorld tasks: none (act or control only), image (plus recall, inspect, read_pixels, history), "
    "python (plus a shell over the screens)",
    samples_help="gameworld: the project's own GameWorld-style test game (window.gameAPI) and two task files",
    options=(
        PROTOCOL_OPTION,
        KindOption(
            "--interface",
            "GameWorld: computer-use (act: keys, clicks, drags, scrolls, typing within the role's controls) or "
            "semantic (control: the role's named controls).",
            default="computer-use",
            choices=("computer-use", "semantic"),
        ),
        KindOption("--max-steps", "GameWorld: steps per task and role (default: the task's, 100).", type=int),
        REALTIME_OPTION,
        *BROWSER_GAME_OPTIONS,
        KindOption(
            "--act-schema",
            "GameWorld (VISTA's protocol, computer use): act's input, ours (every field of the role's actions, its "
            "keys an enum) or vista (VISTA's: one closed object per action of the role, durations up to 2 s, text up "
            "to 5 characters; arguments outside it answered 'Invalid tool arguments.' and no step taken) "
            "(default: ours).",
            unset="ours",
            choices=OURS_OR_VISTA,
        ),
        KindOption(
            "--roles",
            "GameWorld, a game of several roles (VISTA's protocol): shared (one session plays every role, `role` "
            "given with each act) or isolated (VISTA's: each role its own session, system prompt, act, notes and "
            "events; the roles take turns, one action a turn, the session stopped as its action's result reaches "
            "the model; needs --game-tools, --act-schema and --task-prompt vista) (default: shared).",
            unset="shared",
            choices=("shared", "isolated"),
        ),
    ),
    always_tools=("act", "control", *NOTE_TOOLS),
)
DEFAULT = "activevision"  # results without a run.json whose records name no registered kind


def _load(target: str):
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def names() -> tuple[str, ...]:
    return tuple(KINDS)


def all_tool_modes() -> tuple[str, ...]:
    """Every registered kind's tool modes, in the ladder's order where it has one."""
    ladder = ("none", "image", "observe", "python")
    modes = {mode for kind in KINDS.values() for mode in kind.tool_modes}
    return tuple(m for m in ladder if m in modes) + tuple(sorted(modes - set(ladder)))


def help_of(field: str, sep: str = "; ") -> str:
    """One help text from every registered kind's line (its data_help, modes_help or samples_help), the
    default kind's first."""
    ordered = sorted(KINDS.items(), key=lambda entry: entry[0] != DEFAULT)
    return sep.join(text for _, kind in ordered if (text := getattr(kind, field)))


def judge_uses() -> dict[str, str]:
    """The kinds that ask a judge model, and when."""
    return {name: kind.judge_use for name, kind in KINDS.items() if kind.judge_use}


def kinds_tool_names() -> tuple[str, ...]:
    """The registered kinds' own tool names (e.g. active observation's `observe`), in registry order."""
    return tuple(dict.fromkeys(name for kind in KINDS.values() for name in kind.tool_names))


def kind_options() -> dict[str, tuple[str, KindOption]]:
    """Every kind's own run options: option name -> (kind, option)."""
    return {option.name: (name, option) for name, kind in KINDS.items() for option in kind.options}


def options_of(name: str, given: dict) -> dict | None:
    """The kind's own options for a run of that kind, from every kind option's given value (None: at its
    default); None for a kind without options (so its runs' identities read as before)."""
    kind = KINDS.get(name)
    if kind is None or not kind.options:
        return None
    values = {o.name: o.default if given.get(o.name) in (None, o.unset) else given[o.name] for o in kind.options}
    # An option left unset whose default is "none" (or given as its `unset` value) is left out: a run made before
    # the option existed keeps the same identity (and resumes); so does a kind whose options are all left out.
    return {name: value for name, value in values.items() if value is not None} or None


def foreign_options(name: str, given: dict) -> list[str]:
    """The flags given that belong to another kind than `name` (to refuse them: they would do nothing)."""
    own = {o.name for o in KINDS[name].options} if name in KINDS else set()
    return [option.flag for key, (_, option) in kind_options().items() if key not in own and given.get(key) is not None]


def profiles() -> list[Profile]:
    """Every kind's named configurations (profiles.py). One name may be several kinds' (`vista` is VISTA's setting of
    each benchmark it reports): the run's kind picks which."""
    return list(PROFILES)


def profile_names() -> list[str]:
    return sorted({profile.name for profile in profiles()})


def profile_of(name: str, kind: str) -> Profile:
    """The kind's configuration called `name`; a ValueError naming the kinds that have one when this kind has not."""
    found = [profile for profile in profiles() if profile.name == name]
    for profile in found:
        if profile.kind == kind:
            return profile
    others = ", ".join(profile.kind for profile in found) or "none"
    raise ValueError(f"{kind} items have no profile {name} (kinds with one: {others})")


def always_tools(name: str | None) -> tuple[str, ...]:
    return KINDS[name].always_tools if name in KINDS else ()


def get_benchmark(name: str) -> Benchmark:
    if name not in KINDS:
        raise ValueError(f"unknown benchmark {name!r} (known: {', '.join(KINDS)})")
    return _load(KINDS[name].target)()


def detect_kind(root: Path) -> str:
    """The name of the kind whose layout `root` has (the first detector to say yes), else the fallback kind's."""
    for name, kind in KINDS.items():
        if kind.detect and _load(kind.detect)(Path(root)):
            return name
    return next(name for name, kind in KINDS.items() if kind.detect is None)


def kind_of_records(records) -> str:
    """A run without run.json: a kind whose name its records carry as their task, else the default."""
    tasks = {r.task for r in records}
    return next((name for name in KINDS if name in tasks), DEFAULT)


def default_kind() -> Benchmark:
    """The fallback kind: what `run` and `demo` use without --data (its bundled samples)."""
    return get_benchmark(DEFAULT)


def reading_hooks(name: str | None) -> ReadingHooks:
    """How runs of this kind are shown, reported and compared; plain accuracy for an unknown kind."""
    if name not in KINDS:
        return ReadingHooks()
    return get_benchmark(name).reading()
