"""A sweep: its YAML grid of agents, models, efforts, tool modes and repeats, checked line by line, planned and run
cell by cell (resumable)."""

from __future__ import annotations

import copy
import itertools
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from rich.console import Console
from rich.table import Table

from agent_eval.agents import registry as agent_registry
from agent_eval.benchmarks import ALL_TOOL_MODES as TOOL_MODES
from agent_eval.benchmarks import load_benchmark
from agent_eval.datamodel.config import ConfigError, RunConfig
from agent_eval.datamodel.results import RunStore
from agent_eval.engine.selection import select

# key -> (type check, description) for the top level; `grid` entries have their own keys.
TOP_KEYS = {
    "name",
    "data",
    "tasks",
    "ids",
    "categories",
    "limit",
    "grid",
    "tools",
    "repeats",
    "jobs",
    "timeout",
    "max_turns",
    "max_cost_usd",
    "max_item_cost_usd",
    "max_item_tokens",
    "unpriced",
    "outage_hold_minutes",
    "sandbox",
    "out_dir",
    "judge_model",
    "kind_options",
}


GRID_KEYS = {"agent", "models", "efforts"}


class SweepError(Exception):
    """A bad sweep file: names the file and line."""


@dataclass
class Sweep:
    name: str
    path: Path
    grid: list[dict]
    tools: list[str]
    repeats: int = 1
    jobs: int = 4
    timeout: float = 1800
    max_turns: int | None = None
    max_cost_usd: float | None = None  # per cell
    max_item_cost_usd: float | None = None
    max_item_tokens: int | None = None
    unpriced: bool = False
    outage_hold_minutes: float = 30.0
    sandbox: str = "bwrap"
    judge_model: str | None = None  # model-graded scoring, for kinds whose reference asks a judge
    data: str | None = None
    selection: dict = field(default_factory=dict)
    out_dir: Path = Path("results")
    # An axis of the kind's own options (benchmarks/registry.py, e.g. activeobs' world_model): one cell per
    # mapping and tool mode ("tools" in a mapping: for those modes only, as a ladder's rungs); [{}]: the defaults.
    kind_options: list[dict] = field(default_factory=lambda: [{}])

    def cells(self) -> list[RunConfig]:
        configs = []
        for entry in self.grid:
            for model, effort, tools, options in itertools.product(
                entry["models"], entry.get("efforts") or [None], self.tools, self.kind_options
            ):
                options = dict(options)
                only = options.pop("tools", None)  # an entry for some tool modes only (a ladder's rung)
                if only is not None and tools not in only:
                    continue
                configs.append(
                    RunConfig(
                        agent=entry["agent"],
                        model=model,
                        effort=effort,
                        tools=tools,
                        sandbox=self.sandbox,
                        max_turns=self.max_turns,
                        timeout_s=self.timeout,
                        jobs=self.jobs,
                        repeats=self.repeats,
                        max_cost_usd=self.max_cost_usd,
                        max_item_cost_usd=self.max_item_cost_usd,
                        max_item_tokens=self.max_item_tokens,
                        unpriced=self.unpriced,
                        outage_hold_minutes=self.outage_hold_minutes,
                        judge_model=self.judge_model,
                        kind_options=dict(options) or None,
                    )
                )
        return configs

    @property
    def root(self) -> Path:
        return self.out_dir / self.name


def _where(path: Path, node) -> str:
    return f"{path}:{node.start_mark.line + 1}"


def _as_list(path: Path, node, key: str) -> list:
    if isinstance(node, yaml.SequenceNode):
        return [item.value for item in node.value]
    if isinstance(node, yaml.ScalarNode):
        return [node.value]
    raise SweepError(f"{_where(path, node)}: {key} must be a value or a list")


def load_sweep(path: Path) -> Sweep:
    """Parse with line numbers (yaml.compose) so every unknown key or value names its line."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise SweepError(f"{path}: cannot read ({error.strerror})") from None
    except yaml.YAMLError as error:
        raise SweepError(f"{path}: not valid YAML ({error})") from None
    if not isinstance(root, yaml.MappingNode):
        raise SweepError(f"{path}: expected a mapping of sweep settings")
    values, nodes = {}, {}
    for key_node, value_node in root.value:
        if key_node.value not in TOP_KEYS:
            raise SweepError(
                f"{_where(path, key_node)}: unknown key {key_node.value!r}; known: {', '.join(sorted(TOP_KEYS))}"
            )
        nodes[key_node.value] = value_node
        values[key_node.value] = yaml.safe_load(yaml.serialize(value_node))
    if "grid" not in nodes or not isinstance(nodes["grid"], yaml.SequenceNode):
        raise SweepError(f"{path}: needs a `grid:` list of {{agent, models, efforts}} entries")
    grid = []
    for entry_node in nodes["grid"].value:
        if not isinstance(entry_node, yaml.MappingNode):
            raise SweepError(f"{_where(path, entry_node)}: a grid entry is a mapping with agent, models, efforts")
        entry = {}
        for key_node, value_node in entry_node.value:
            key = key_node.value
            if key not in GRID_KEYS:
                raise SweepError(f"{_where(path, key_node)}: unknown grid key {key!r}; known: agent, models, efforts")
            entry[key] = value_node.value if key == "agent" else _as_list(path, value_node, key)
            if key == "agent" and entry[key] not in agent_registry.AGENTS:
                raise SweepError(
                    f"{_where(path, value_node)}: unknown agent {entry[key]!r}; "
                    f"choose {', '.join(agent_registry.AGENTS)}"
                )
            if key == "efforts":
                agent = entry.get("agent")
                bad = [e for e in entry[key] if agent and e not in agent_registry.efforts(agent)]
                if bad:
                    raise SweepError(
                        f"{_where(path, value_node)}: effort(s) {', '.join(bad)} not valid for {agent}; "
                        f"choose {', '.join(agent_registry.efforts(agent))}"
                    )
        if "agent" not in entry or not entry.get("models"):
            raise SweepError(f"{_where(path, entry_node)}: a grid entry needs agent and models")
        grid.append(entry)
    tools = _as_list(path, nodes["tools"], "tools") if "tools" in nodes else ["python"]
    bad_tools = [t for t in tools if t not in TOOL_MODES]
    if bad_tools:
        raise SweepError(
            f"{_where(path, nodes['tools'])}: unknown tool mode(s) {', '.join(bad_tools)}; "
            f"choose {', '.join(TOOL_MODES)}"
        )
    sweep = Sweep(
        name=str(values.get("name") or path.stem),
        path=path,
        grid=grid,
        tools=tools,
        selection={k: values.get(k) for k in ("tasks", "ids", "categories", "limit")},
        **{
            k: values[k]
            for k in (
                "repeats",
                "jobs",
                "timeout",
                "max_turns",
                "max_cost_usd",
                "max_item_cost_usd",
                "max_item_tokens",
                "unpriced",
                "outage_hold_minutes",
                "sandbox",
                "data",
                "judge_model",
            )
            if k in values
        },
    )
    if "out_dir" in values:
        sweep.out_dir = Path(values["out_dir"])
    if "kind_options" in nodes:
        sweep.kind_options = _kind_options(path, nodes["kind_options"], values["kind_options"])
    for config in sweep.cells():
        try:
            config.validate(agent_registry.efforts_by_agent())
        except ConfigError as error:
            raise SweepError(f"{path}: {error}") from None
    return sweep


def _kind_options(path: Path, node, value) -> list[dict]:
    """`kind_options:` a list of mappings of kind option names to values, one cell each (a YAML on/off, read as a
    boolean, is taken as the word for a text option)."""
    from agent_eval.benchmarks.registry import kind_options

    known = kind_options()
    if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
        raise SweepError(f"{_where(path, node)}: kind_options must be a list of mappings, e.g. [{{world_model: on}}]")
    out = []
    for index, options in enumerate(value):
        only = options.get("tools")
        if only is not None:  # `tools:` in an entry: the cell exists for these tool modes only
            only = [only] if isinstance(only, str) else only
            if not isinstance(only, list) or not only or any(t not in TOOL_MODES for t in only):
                raise SweepError(
                    f"{_where(path, node.value[index])}: an entry's tools must be tool modes of the sweep "
                    f"({', '.join(TOOL_MODES)}), got {options['tools']!r}"
                )
            options = {**options, "tools": only}
        unknown = [k for k in options if k not in known and k != "tools"]
        if unknown:
            raise SweepError(
                f"{_where(path, node.value[index])}: unknown kind option(s) {', '.join(unknown)}; "
                f"known: {', '.join(known)}"
            )
        out.append(
            {
                k: ("on" if v else "off") if k != "tools" and isinstance(v, bool) and known[k][1].type is str else v
                for k, v in options.items()
            }
        )
    return out


def cell_name(config: RunConfig) -> str:
    """The run's name, and the kind options it sets that are not their defaults (a cell at the defaults keeps the name
    a plain run of the same agent, model, effort and tools has)."""
    from agent_eval.benchmarks.registry import kind_options

    known = kind_options()
    extra = [
        f"{k}-{v}"
        for k, v in (config.kind_options or {}).items()
        if k not in known or v not in (known[k][1].default, known[k][1].unset)
    ]
    return "-".join([config.run_name, *extra]).replace("/", "_").replace(":", "_")


def plan_table(sweep: Sweep, n_items: int) -> tuple[Table, int, int]:
    table = Table(
        title=f"sweep {sweep.name}: {len(sweep.cells())} cells, {n_items} items x {sweep.repeats} repeat(s)",
        title_justify="left",
    )
    table.add_column("cell", overflow="fold")  # a cell's name is long (its options): shown whole, folded
    for column in ("agent runs", "already done", "to run"):
        table.add_column(column, justify="right")
    total = done_total = 0
    for config in sweep.cells():
        store = RunStore(sweep.root / cell_name(config))
        done = len([k for k in store.done_keys() if k[1] < sweep.repeats])
        runs = n_items * sweep.repeats
        total, done_total = total + runs, done_total + done
        table.add_row(cell_name(config), str(runs), str(done), str(runs - done))
    table.add_section()
    table.add_row("total", str(total), str(done_total), str(total - done_total), style="bold")
    return table, total, done_total


def run_sweep(sweep: Sweep, console: Console, environ: dict | None = None, scripted_model: bool = False) -> list[Path]:
    """Every cell as its own Runner, all sharing one slot semaphore (the global --jobs), one
    progress display and one Ctrl-C."""
    from agent_eval.engine.runner import Runner, new_progress
    from agent_eval.engine.selection import resolve_data_dir

    benchmark, dataset = load_benchmark(resolve_data_dir(Path(sweep.data) if sweep.data else None, console))
    items = select(dataset, **sweep.selection)
    slots = threading.BoundedSemaphore(sweep.jobs)
    cancel = threading.Event()
    progress = new_progress(console)
    runners = [
        Runner(
            config,
            copy.copy(benchmark),  # each cell configures its own (its kind options), the loaded dataset shared
            dataset,
            items,
            sweep.root,
            run_name=cell_name(config),
            console=console,
            environ=environ,
            scripted_model=scripted_model,
            selection=sweep.selection,
            cancel=cancel,
            slots=slots,
            progress=progress,
        )
        for config in sweep.cells()
    ]
    previous = (
        signal.signal(signal.SIGINT, lambda *_: cancel.set())
        if threading.current_thread() is threading.main_thread()
        else None
    )
    try:
        with progress, ThreadPoolExecutor(max_workers=len(runners)) as pool:
            outcomes = list(pool.map(lambda runner: runner.run(), runners))
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    if cancel.is_set():
        console.print("[yellow]Interrupted: finished items are saved; run the sweep again to go on.[/]")
    return [outcome.store.root for outcome in outcomes]
