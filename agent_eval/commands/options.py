"""Options and defaults several commands share (not a command itself)."""

from __future__ import annotations

from pathlib import Path

import click

from agent_eval.agents import registry as agent_registry
from agent_eval.benchmarks import ALL_TOOL_MODES, registry
from agent_eval.datamodel.config import SANDBOX_KINDS
from agent_eval.datamodel.sandbox_policy import PROJECT_ROOT
from agent_eval.datamodel.system_prompt import CLI_OWN, SystemPromptError, load_system_prompt
from agent_eval.engine.selection import given_or_local_data


class SystemPromptChoice(click.ParamType):
    """`cli`, or a readable UTF-8 text file, given on as its absolute path (a sweep's cells and a Slurm task read the
    same file wherever they start)."""

    name = "cli|FILE"

    def convert(self, value, param, ctx):
        if value is None or value == CLI_OWN:
            return CLI_OWN
        try:
            prompt = load_system_prompt(str(value))
        except SystemPromptError as error:
            self.fail(str(error).removeprefix(f"--system-prompt {value}: "), param, ctx)
        assert prompt is not None  # only `cli` is None
        return prompt.path


def selection_options(func):
    for decorator in reversed(
        [
            click.option(
                "--data",
                type=click.Path(path_type=Path),
                default=None,
                help=f"Dataset: {registry.help_of('data_help', ', or ')}. Default: ./data, else the bundled samples.",
            ),
            click.option(
                "--tasks",
                default=None,
                help="Comma-separated task names (ARC-AGI-3: game ids; game@version pins a version).",
            ),
            click.option("--ids", default=None, help="Comma-separated item ids, e.g. ACF-0,MPT-3."),
            click.option("--categories", default=None, help="Comma-separated categories."),
            click.option("--limit", type=int, default=None, help="At most N items per task."),
        ]
    ):
        func = decorator(func)
    return func


def run_options(func):
    """Every option of `agent-eval run`: the run command and `slurm submit` (which passes them on) share them."""
    for decorator in reversed(
        [
            click.option(
                "--agent", type=click.Choice(agent_registry.names()), required=True, help="Which agent CLI to run."
            ),
            click.option(
                "--model", required=True, help="Model name passed to the CLI, e.g. claude-opus-4-8 or gpt-5.5."
            ),
            click.option(
                "--effort",
                default=None,
                help="Reasoning effort. "
                + "; ".join(f"{name}: {'|'.join(agent_registry.efforts(name))}" for name in agent_registry.names())
                + ".",
            ),
            click.option(
                "--tools",
                type=click.Choice(ALL_TOOL_MODES),
                default="python",
                show_default=True,
                help=registry.help_of("modes_help", ". ") + ".",
            ),
            selection_options,
            click.option("--jobs", type=int, default=4, show_default=True, help="Items run at once."),
            click.option(
                "--timeout", "timeout_s", type=float, default=1800, show_default=True, help="Seconds per item attempt."
            ),
            click.option(
                "--max-turns",
                type=int,
                default=None,
                help="Cap on agent turns per item (Claude Code --max-turns; Codex has no such flag).",
            ),
            click.option(
                "--max-item-cost-usd",
                type=float,
                default=None,
                help="Spend cap per item, priced from the usage the API returns: once reached, the run's gateway "
                "sends none of the item's further requests upstream and it ends budget_exceeded (both CLIs).",
            ),
            click.option(
                "--max-item-tokens",
                type=int,
                default=None,
                help="Token cap per item (input, cached included, + output, as the API counts them), kept like "
                "--max-item-cost-usd.",
            ),
            click.option(
                "--sandbox",
                type=click.Choice(SANDBOX_KINDS),
                default="bwrap",
                show_default=True,
                help="OS sandbox for the agent. 'none' only where bubblewrap cannot run: loudly marked.",
            ),
            click.option("--out-dir", type=click.Path(path_type=Path), default=Path("results"), show_default=True),
            click.option("--run-name", default=None, help="Default: <agent>-<model>-<effort>-<tools>."),
            click.option("--redo", is_flag=True, help="Start over: the old results are moved aside, not deleted."),
            click.option(
                "--retry-wait",
                type=float,
                default=10.0,
                show_default=True,
                help="First backoff in seconds after a rate limit; doubles each retry.",
            ),
            click.option(
                "--repeats",
                type=int,
                default=1,
                show_default=True,
                help="Run each item K times, each in its own workdir (resumable per item and repeat).",
            ),
            click.option(
                "--max-cost-usd",
                type=float,
                default=None,
                help="The run's spend cap (earlier sessions included): once reached, no request goes upstream, "
                "running items end budget_exceeded and no new item starts; rerun with a higher cap to go on.",
            ),
            click.option(
                "--unpriced",
                is_flag=True,
                help="Allow a model that neither genai-prices nor $AGENT_EVAL_PRICING prices (cost: unknown, never 0).",
            ),
            click.option(
                "--outage-hold-minutes",
                type=float,
                default=30.0,
                show_default=True,
                help="While the provider answers no request of the run (5xx, overloaded, cut streams for every "
                "item), the gateway holds each request this long (the CLI sees a slow answer; the wait is not the "
                "agent's time) before its item ends upstream_error. An item failing while others are answered "
                "ends upstream_error after 4 failures, without waiting.",
            ),
            click.option(
                "--quota-wait-hours",
                type=float,
                default=6.0,
                show_default=True,
                help="A subscription login's usage limit (Claude's or ChatGPT's window used up, answered 429 with "
                "its reset time): when the reset is within this many hours, every request of the run is held until "
                "then (every item's clock stopped; the progress line says until when); further away, or 0, the "
                "items end rate_limited and a resume goes on. At most 168 (a weekly window).",
            ),
            click.option(
                "--shard", default=None, help="K/N: run only the K-th of N deterministic slices of the items."
            ),
            click.option(
                "--system-prompt",
                type=SystemPromptChoice(),
                metavar="cli|FILE",
                default=CLI_OWN,
                show_default=True,
                help="`cli`: the CLI's own system prompt. FILE: a task prompt whose text replaces it (Claude Code "
                '--system-prompt-file with --setting-sources "", so no CLAUDE.md or settings file is read; Codex '
                "model_instructions_file, its skills and permissions instructions off). Part of the run's identity: "
                "a resume with another prompt is refused. Each CLI still adds a few lines (docs/running.md).",
            ),
            click.option(
                "--silent-minutes",
                type=click.FloatRange(min=0, min_open=True),
                metavar="MINUTES",
                default=None,
                help="Stop a session in which no tool call has completed for this many minutes (a call still "
                "running holds the clock; provider waits do not count) and go on in the CLI's own continued "
                "session, told why, or a fresh one when it cannot be continued (VISTA uses 120). Default: off.",
            ),
            kind_options,
            judge_option,
            profile_option,
        ]
    ):
        func = decorator(func)
    return func


class ProfileOption(click.Option):
    """`--profile NAME`: a kind's named configuration (benchmarks/registry.py Profile). One name may be several
    kinds' (`vista`): the run's kind, detected from --data as `run` detects it, picks the set. Read before every
    other option, it gives each option it names a default of the profile's, so an option on the command line still
    wins (a rung stated relative to the profile). Its help writes every kind's profile out in full."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("type", click.Choice(registry.profile_names()))
        super().__init__(*args, is_eager=True, expose_value=True, callback=_apply_profile, **kwargs)

    def handle_parse_result(self, ctx: click.Context, opts, args):
        # --data is parsed after this eager option: its text, as typed, tells the run's kind now.
        ctx.meta[_DATA_AS_TYPED] = opts.get("data")
        return super().handle_parse_result(ctx, opts, args)

    def get_help_record(self, ctx: click.Context):
        flags = {p.name: next(o for o in p.opts if o.startswith("--")) for p in ctx.command.params if p.opts}
        written = "; ".join(
            f"{profile.name} for {profile.kind} items ({profile.about}): "
            + " ".join(f"{flags.get(name, name)} {_shown(value)}" for name, value in profile.options.items())
            for profile in registry.profiles()
        )
        self.help = (
            "A named configuration of the data's kind: it sets every option it names unless the command line gives "
            f"that option (so --profile vista --tools python is VISTA's setting with a shell). {written}."
        )
        return super().get_help_record(ctx)


_DATA_AS_TYPED = "profile: --data as typed"


def _shown(value: object) -> str:
    """A profile's value as help shows it: a file of the project by its path in the project."""
    if isinstance(value, float):
        text = str(int(value)) if value.is_integer() else f"{value:g}"  # 2000000, never 2e+06
    else:
        text = str(value)
    root = f"{PROJECT_ROOT}/"
    return text.removeprefix(root)


def _apply_profile(ctx: click.Context, param: click.Parameter, name: str | None) -> str | None:
    if name is not None:
        data = given_or_local_data(ctx.meta.get(_DATA_AS_TYPED))
        kind = registry.detect_kind(data) if data is not None else registry.DEFAULT
        try:
            profile = registry.profile_of(name, kind)
        except ValueError as error:
            where = f"--data {data} holds {kind} items" if data is not None else f"no --data: {kind} samples"
            raise click.BadParameter(f"{error}; {where}", ctx, param) from None
        ctx.default_map = {**(ctx.default_map or {}), **profile.options}
    return name


profile_option = click.option("--profile", cls=ProfileOption, default=None, metavar="NAME")


def kind_options(func):
    """The kinds' own run options (benchmarks/registry.py, a kind's `options`): None when not given, so a
    run of another kind can refuse them and the run's kind fills in its defaults; a value outside an option's
    choices is refused here, for every kind (sweep files convert through these types too)."""
    for _, option in reversed(list(registry.kind_options().values())):
        func = click.option(
            option.flag,
            option.name,
            type=click.Choice(option.choices) if option.choices else option.type,
            default=None,
            help=option.help + (f" Default {option.default}." if option.default is not None else ""),
        )(func)
    return func


judge_option = click.option(
    "--judge-model",
    default=None,
    help="Model-graded scoring: the judge model the benchmark's reference code asks ("
    + "; ".join(f"{name}: {kind}" for name, kind in registry.judge_uses().items())
    + "), called from the harness with your credential for its provider (claude-*: Anthropic, else OpenAI; "
    "an anthropic/ or openai/ prefix says which); its answers are cached in the run folder. Without it, items "
    "only a judge can decide are recorded as ungraded.",
)


def sweep_options():
    """`run`'s options as sweep file keys (engine/sweeps.py's RunOption), each checked by run's own type: a sweep
    file takes every option run takes, kinds' own included, with no list of its own to fall behind."""
    from agent_eval.engine.sweeps import RunOption

    def converter(param: click.Parameter):
        def convert(value):
            try:
                return param.type.convert(value, param, None)
            except click.BadParameter as error:
                raise ValueError(error.message) from None

        return convert

    command = click.command()(run_options(lambda **_: None))
    return [
        RunOption(
            name=param.name,
            flag=next(o for o in param.opts if o.startswith("--")),
            is_flag=param.is_flag,
            default=param.default,
            convert=converter(param),
        )
        for param in command.params
        if isinstance(param, click.Option)
    ]
