"""Schedules a run: what is left to do, items in parallel, retries with backoff, a live progress
bar, the cost cap, the auth stop, Ctrl-C, and the summaries at the end."""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column

from agent_eval import __version__
from agent_eval.agents import deferred_removal, get_agent
from agent_eval.agents.base import Agent
from agent_eval.analysis.measures import headline
from agent_eval.analysis.terminal_fit import FittingProgress
from agent_eval.benchmarks import Benchmark, registry
from agent_eval.datamodel.config import ConfigError, RunConfig
from agent_eval.datamodel.itemdir import ItemDir, now_iso
from agent_eval.datamodel.manifest import DatasetInfo, RunIdentity, RunManifest
from agent_eval.datamodel.pricing import provenance as pricing_provenance
from agent_eval.datamodel.pricing import warm_up as warm_up_prices
from agent_eval.datamodel.pricing import where_prices_come_from
from agent_eval.datamodel.prompts import load_template
from agent_eval.datamodel.records import FAILURE_STATUSES, RUN_STOPPING_STATUSES, STOPPED_STATUSES, ItemRecord
from agent_eval.datamodel.results import RunStore, prepare_store, read_records
from agent_eval.datamodel.run_services import RunServices
from agent_eval.datamodel.run_session import RunSession, write_session
from agent_eval.datamodel.system_prompt import SystemPromptError, load_system_prompt
from agent_eval.engine.api_judge import attach_judge
from agent_eval.engine.attempt import AttemptOptions, run_attempt
from agent_eval.engine.egress import Egress
from agent_eval.engine.gateway import Gateway, Redactor, RunSpend, SpendLimits, past_usage_bound, secret_values
from agent_eval.engine.gateway.spend import cap_raised
from agent_eval.engine.scratch_dirs import remove_stale

RETRY_STATUSES = ("rate_limited",)
SYSTEM_PROMPT_COPY = "system_prompt.txt"
MAX_BACKOFF_S = 300.0


@dataclass
class RunOutcome:
    store: RunStore
    ran: int = 0
    skipped: int = 0
    not_run_cost_cap: int = 0
    interrupted: bool = False
    stopped_for_auth: str | None = None
    rollup: dict = field(default_factory=dict)


def new_progress(console: Console) -> Progress:
    """One line per run. In a narrow terminal the bar goes first, then the words beside the numbers, then
    the provider's note; the counts, figures and times stay whole, and only in the end the run name wraps."""
    whole = Column(no_wrap=True)
    name = TextColumn("[bold]{task.description}", table_column=whole)
    wrapping_name = TextColumn("[bold]{task.description}", table_column=Column(overflow="fold"))
    count = MofNCompleteColumn(table_column=whole)
    # figure: "acc 3.3%", or a kind's own headline measure ("normalised 20.0": a game is not right or wrong)
    figure, errors, cost = "{task.fields[figure]}", "{task.fields[errors]}", "{task.fields[cost]}"
    figures = TextColumn(f"{figure}  errors {errors}  cost {cost}", table_column=whole)
    few_words = TextColumn(f"{figure} err {errors} {cost}", table_column=whole)
    # the gateway's limiter: limit, queue, pauses
    provider = TextColumn("[yellow]{task.fields[provider]}", table_column=whole)
    times = [TimeElapsedColumn(table_column=whole), TimeRemainingColumn(table_column=whole)]
    # 4 redraws a second, not rich's 10: items take seconds, and each redraw costs about 2.7 ms of CPU
    # on a terminal (27 ms per second of the run at 10 Hz, 3% of a bare CLI's CPU per item at --jobs 1).
    return FittingProgress(
        [name, BarColumn(), count, figures, provider, *times],
        [name, BarColumn(bar_width=10), count, figures, provider, *times],
        [name, count, figures, provider, *times],
        [name, count, few_words, provider, *times],
        [name, count, few_words, *times],
        [wrapping_name, count, few_words, *times],
        console=console,
        refresh_per_second=4,
    )


def _sigterm_stops_the_run(execute):
    """SIGTERM (what Slurm sends on requeue, preemption or a time limit) stops a run as Ctrl-C does:
    the running agents are stopped, graded items kept, nothing half done recorded, so a rerun of the
    same command resumes. Only in the main thread: a sweep's cells run in threads of one process."""

    @functools.wraps(execute)
    def wrapper(self, *args):
        if threading.current_thread() is not threading.main_thread():
            return execute(self, *args)

        def on_sigterm(signum, frame):
            if not self.cancel.is_set():
                self.console.print(
                    "\n[yellow]Terminated (SIGTERM): stopping running agents; finished items are "
                    "saved. Run the same command again to finish the rest.[/]"
                )
            self.cancel.set()

        previous = signal.signal(signal.SIGTERM, on_sigterm)
        try:
            return execute(self, *args)
        finally:
            signal.signal(signal.SIGTERM, previous)

    return wrapper


def refuse_a_cap_it_cannot_keep(config: RunConfig, priced: bool) -> None:
    """A dollar cap on a model no price map prices would never be reached (every answer costs "unknown"):
    refused before the first item, with what would make it keepable (also by `slurm submit`, before the jobs)."""
    dollar_caps = (("--max-cost-usd", config.max_cost_usd), ("--max-item-cost-usd", config.max_item_cost_usd))
    caps = [f"{flag} {value:g}" for flag, value in dollar_caps if value is not None]
    if caps and not priced:
        raise ConfigError(
            f"{' and '.join(caps)} cannot be kept: no price for model {config.model!r} in "
            f"{where_prices_come_from()}, so its cost is unknown and never reaches the cap. Add the model's "
            f"prices to the YAML file named by $AGENT_EVAL_PRICING, or drop the dollar cap and bound each item "
            f"by tokens with --max-item-tokens"
        )


def keep_below_image_cap(options: dict, agent: Agent, model: str) -> str | None:
    """A game's --session-images (a hand-off before a session holds N images) kept at most the cap of images one
    request of the CLI keeps for the model (Agent.image_cap: past it the CLI drops its oldest images and re-sends
    its context uncached), lowered to it when set above; the run header's line saying the cap used and why."""
    given = options.get("session_images")
    if given is None:
        return None
    cap = agent.image_cap(model)
    if cap is None:
        return f"session images: a hand-off before {given} (--session-images {given}); {agent.name} keeps every image"
    limit, why = cap
    lowered = ""
    if given > limit:
        options["session_images"] = limit
        lowered = f", --session-images {given} lowered to it"
    return (
        f"session images: a hand-off before {options['session_images']}: {agent.name} keeps {limit} images a "
        f"request ({why}){lowered}"
    )


class Runner:
    """One run: `cancel`, `slots` (a semaphore bounding agents across runs) and `progress` may be
    shared by a sweep; on its own a runner makes its own."""

    def __init__(
        self,
        config: RunConfig,
        benchmark: Benchmark,
        dataset,
        items: list,
        out_dir: Path,
        run_name: str | None = None,
        redo: bool = False,
        console: Console | None = None,
        environ: dict[str, str] | None = None,
        scripted_model: bool = False,
        selection: dict | None = None,
        retry_wait_s: float = 10.0,
        max_attempts: int = 4,
        cancel: threading.Event | None = None,
        slots: threading.Semaphore | None = None,
        progress: Progress | None = None,
    ):
        self.console = console or Console()
        if config.tools not in benchmark.tool_modes:
            raise ConfigError(
                f"tool mode {config.tools!r} does not exist for {benchmark.name} items; "
                f"choose one of {', '.join(benchmark.tool_modes)}"
            )
        kind_options = registry.options_of(benchmark.name, config.kind_options or {})  # defaults filled in
        self.agent: Agent = get_agent(config.agent)
        self.image_cap_line = keep_below_image_cap(kind_options or {}, self.agent, config.model)
        config.kind_options = kind_options
        try:
            benchmark.configure(config.kind_options or {}, timeout_s=config.timeout_s)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        benchmark.warm_up(config.tools)  # slow imports (the MCP SDK) start now, beside the run's own start-up
        self.config = config
        self.benchmark = benchmark
        self.dataset = dataset
        self.items = items
        self.agent.warm_up()
        warm_up_prices()
        self.environ = dict(os.environ if environ is None else environ)
        self.auth = self.agent.find_auth(self.environ)
        # A subscription login is not billed per token, so no price is needed there.
        if not config.unpriced and self.auth.kind != "login" and not self.agent.priced(config.model):
            raise ConfigError(
                f"no price for model {config.model!r} in {where_prices_come_from()}: add it there, or pass "
                f"--unpriced to record its cost as unknown"
            )
        self.priced = self.agent.priced(config.model)
        refuse_a_cap_it_cannot_keep(config, self.priced)
        self.pricing = pricing_provenance()
        self.template = load_template(benchmark.template_name(config.tools), benchmark.prompts_dir())
        config.benchmark = benchmark.name
        config.prompt_hash = self.template.hash
        judge = attach_judge(
            benchmark, config.judge_model, dict(os.environ if environ is None else environ), self.console
        )
        config.scorer_hash = benchmark.scorer_hash()  # names the judge: a run graded by another is another run
        config.dataset_hash = dataset.content_hash()
        config.cli_version = self.agent.version()
        try:
            self.system_prompt = load_system_prompt(config.system_prompt)
        except SystemPromptError as error:
            raise ConfigError(str(error)) from None
        config.system_prompt_sha256 = self.system_prompt.sha256 if self.system_prompt else None
        self.run_name = run_name or config.run_name
        self.store = prepare_store(out_dir, self.run_name, config, redo, self.console)
        if judge is not None:
            judge.bind(self.store.root)  # its answers are cached in the run folder: a resume pays once
        self.scripted_model = scripted_model
        self.selection = selection or {}
        self.retry_wait_s = retry_wait_s
        self.max_attempts = max_attempts
        self.cancel = cancel or threading.Event()
        self.slots = slots
        self.progress = progress
        self.auth_failure: str | None = None
        self.gateway: Gateway | None = None  # the run's model gateway, while the run runs
        self.attempt_options: AttemptOptions | None = None  # what its attempts share, while the gateway is up
        self.spend = RunSpend()  # what the run spent, and its caps (set when it runs)
        self.redactor = Redactor(secret_values(self.auth))
        self._unknown_before = False  # an earlier session recorded an item whose cost is unknown
        self._manifest_lock = threading.Lock()
        self._usage_waits: list[dict] = []  # the usage limits this session's gateway met (run.json), once it closed

    # -- manifest ---------------------------------------------------------------------------------
    def manifest(self, finished: bool) -> RunManifest:
        """run.json as this session of the run writes it (at its start, and at its end); a newer version's keys
        survive a resume by this one."""
        return RunManifest(
            run_name=self.run_name,
            config=RunIdentity(**self.config.identity()),
            options=self.config.options(),
            dataset=DatasetInfo(
                path=str(self.dataset.root.resolve()),
                layout=self.dataset.layout,
                n_items=len(self.dataset.items),
                selection=self.selection or {},
                versions=self.dataset.versions() if hasattr(self.dataset, "versions") else {},
            ),
            auth=self.auth.describe(),
            scripted_model=self.scripted_model,
            pricing=self.pricing,
            system_prompt=self.system_prompt.describe() if self.system_prompt else None,
            usage_limit_waits=list(self._usage_waits),  # this session's, once its gateway is closed
        ).session(self.store.read_manifest(), finished, __version__)

    # -- one item, with retries -------------------------------------------------------------------
    def _run_item(self, item, repeat: int) -> ItemRecord | None:
        with self.slots if self.slots is not None else contextlib.nullcontext():
            return self._attempts(item, repeat)

    def _attempts(self, item, repeat: int) -> ItemRecord | None:
        assert self.attempt_options is not None, "attempts run while the run's gateway is up"
        retries: list[dict] = []
        for attempt in range(1, self.max_attempts + 1):
            if self.cancel.is_set():
                return None
            item_dir = ItemDir(self.store.sandbox_dir(item.id, repeat))
            record = run_attempt(self.attempt_options, item, repeat, item_dir)
            if record is None:
                return None
            record.attempts, record.retries = attempt, list(retries)
            if record.status not in RETRY_STATUSES or attempt == self.max_attempts or past_usage_bound(record):
                return record  # (a window that resets past --quota-wait-hours: a resume after it goes on)
            wait_s = min(self.retry_wait_s * 2 ** (attempt - 1), MAX_BACKOFF_S)
            retries.append({"attempt": attempt, "status": record.status, "error": record.error, "wait_s": wait_s})
            if self.cancel.wait(wait_s):
                return None
        return None

    # -- the whole run ----------------------------------------------------------------------------
    def run(self) -> RunOutcome:
        self.store.write_manifest(self.manifest(finished=False))
        if self.system_prompt is not None:  # the exact text the agent got, kept with the run (run.json: its hash)
            (self.store.root / SYSTEM_PROMPT_COPY).write_text(self.system_prompt.text, encoding="utf-8")
        limits = SpendLimits(self.config.max_item_cost_usd, self.config.max_item_tokens, self.config.max_cost_usd)
        held = self._held_by_a_cap(limits)
        done = self.store.done_keys() | set(held)
        repeats = self.config.repeats
        todo = [(item, r) for r in range(repeats) for item in self.items if (item.id, r) not in done]
        outcome = RunOutcome(store=self.store, skipped=len(self.items) * repeats - len(todo))
        if self.image_cap_line is not None:
            self.console.print(f"{self.run_name}: {self.image_cap_line}", highlight=False)
        if self.config.sandbox == "none":
            self.console.print(
                "[bold red]WARNING: --sandbox none: the agent can read everything this user can "
                "(the dataset's answers included). Results are marked unsandboxed.[/]"
            )
        going_on = [item for item, r in todo if self.benchmark.carries_on(self.store.sandbox_dir(item.id, r))]
        if outcome.skipped or going_on:
            self.console.print(
                f"resuming {self.run_name}: {outcome.skipped - len(held)} item(s) already graded, {len(todo)} to run"
                + (f"; {len(held)} stopped by a spend cap not raised since (raise it to run them)" if held else "")
                + (f"; {len(going_on)} go on from where they stopped (a game in progress)" if going_on else "")
            )
        stale = remove_stale()  # temporary folders of runs killed outright (their process is gone)
        if stale:
            self.console.print(f"removed {len(stale)} temporary folder(s) left by runs that were killed")
        previous_handler = self._install_sigint()
        self.spend = RunSpend(limits, model=self.config.model, already_usd=self._spent())
        # for readers of the folder while the run goes (watch, report --live): this process and what it will run
        session = RunSession.start(now_iso(), [[item.id, item.task, r] for item, r in todo])
        write_session(self.store.root, session)
        try:
            self._in_scope(todo, outcome)
        except BaseException:
            write_session(self.store.root, replace(session, ended_at=now_iso(), how="failed"))
            raise
        finally:
            # The CLIs' scaffolding deleted in the background (deferred_removal.py) is gone when the run returns:
            # whoever reads the run's folder next (in this process too) never meets it half deleted.
            deferred_removal.wait()
            self.gateway, self.attempt_options = None, None
            if previous_handler is not None:
                signal.signal(signal.SIGINT, previous_handler)
        outcome.interrupted = self.cancel.is_set() and self.auth_failure is None
        outcome.stopped_for_auth = self.auth_failure
        outcome.rollup = self.store.write_summaries(self.benchmark.extra_rollup)
        outcome.rollup["not_run"] = {"cost_cap": outcome.not_run_cost_cap, "max_cost_usd": self.config.max_cost_usd}
        stopped = outcome.rollup["overall"].get("budget_exceeded", 0)
        finished = not (outcome.interrupted or outcome.stopped_for_auth or outcome.not_run_cost_cap or stopped)
        self.store.write_manifest(self.manifest(finished=finished))
        how = "finished" if finished else "interrupted" if outcome.interrupted else "stopped"
        write_session(self.store.root, replace(session, ended_at=now_iso(), how=how))
        failed_upstream = outcome.rollup["overall"].get("statuses", {}).get("upstream_error", 0)
        if failed_upstream:
            self.console.print(
                f"[yellow]{self.run_name}: {failed_upstream} item(s) ended upstream_error: the provider failed "
                f"them (not graded). Run the same command again to run them once it recovers.[/]"
            )
        if outcome.not_run_cost_cap or stopped:
            self.console.print(
                f"[yellow]{self.run_name}: {self._money(0).split(' → ')[0]} spent; {stopped} item(s) stopped by a "
                f"spend cap (budget_exceeded), {outcome.not_run_cost_cap} not started. Run again with a higher cap to "
                f"finish them (graded items are not run again).[/]"
            )
        return outcome

    def _install_sigint(self):
        if threading.current_thread() is not threading.main_thread():
            return None  # a sweep handles Ctrl-C for all its runs

        def on_sigint(signum, frame):
            if self.cancel.is_set():
                raise KeyboardInterrupt
            self.console.print(
                "\n[yellow]Interrupted: stopping running agents; finished items are saved. "
                "Run the same command again to finish the rest.[/]"
            )
            self.cancel.set()

        return signal.signal(signal.SIGINT, on_sigint)

    def _held_by_a_cap(self, limits: SpendLimits) -> list[tuple[str, int]]:
        """Items a spend cap stopped, whose cap is no higher now: run again they would only be stopped
        again, at the same cost."""
        return [
            key
            for key, record in self.store.latest_records().items()
            if record.status == "budget_exceeded"
            and not cap_raised(((record.gateway or {}).get("cost") or {}).get("stopped_by"), limits)
        ]

    def _spent(self) -> float:
        """What earlier sessions of this run spent: every attempt it recorded, those a resume ran again
        included (unknown costs count as 0 in this sum; `_unknown_before` says there were some)."""
        records = [r for task in self.store.task_dirs() for r in read_records(task / "items.jsonl")[0]]
        self._unknown_before = any(r.cost_usd is None and r.status not in STOPPED_STATUSES for r in records)
        return sum(r.cost_usd or 0.0 for r in records)

    def _money(self, items_left: int) -> str:
        """For the progress line: spent so far (earlier sessions included) and the run's projected total
        at the current rate (the mean cost of the items finished in this session). A cost that is partly
        unknown (an unpriced model, or answers no price map priced) says so, never $0.00."""
        spent = self.spend.total_usd
        if not self.priced or self.spend.unpriced_answers or self._unknown_before:
            return f"${spent:.2f} + unknown" if spent else "unknown"
        projected = self.spend.projected_usd(items_left)
        return f"${spent:.2f}" + (f" → ~${projected:.2f}" if projected is not None else "")

    @_sigterm_stops_the_run
    def _in_scope(self, todo: list[tuple], outcome: RunOutcome) -> None:
        """The items, inside what the kind holds for the run (a remote scorecard: closed on the way out, SIGTERM
        included) and the run's model gateway."""
        with self.benchmark.run_scope(self._services([item for item, _ in todo])):
            with Gateway(  # the credential stays out here; one limiter for the run's requests
                self.agent.name,
                self.auth,
                self.spend,
                concurrency=self.config.jobs,
                outage_hold_s=self.config.outage_hold_minutes * 60,
                quota_wait_s=self.config.quota_wait_hours * 3600,
            ) as self.gateway:
                self.attempt_options = AttemptOptions(
                    self.agent,
                    self.config,
                    self.benchmark,
                    self.template,
                    self.gateway,
                    run_root=self.store.root,
                    redactor=self.redactor,
                    cancel=self.cancel,
                    system_prompt=self.system_prompt.text if self.system_prompt else None,
                )
                try:
                    self._execute(todo, outcome)
                finally:
                    self._usage_waits = self.gateway.usage.record()

    def _services(self, items: list) -> RunServices:
        earlier = self.store.read_manifest()
        return RunServices(
            run_root=self.store.root,
            run_name=self.run_name,
            config=self.config,
            items=items,
            environ=self.environ,
            previous=dict(earlier.kind_run) if earlier else {},
            record=self._record_kind_run,
            open_egress=Egress,
            add_secret=self.redactor.add,
            say=lambda line: self.console.print(f"[yellow]{self.run_name}: {line}[/]", highlight=False),
        )

    def _record_kind_run(self, state: dict) -> None:
        """The kind's record of the run as a whole, into run.json now (a run killed after this keeps it)."""
        with self._manifest_lock:
            manifest = self.store.read_manifest() or self.manifest(finished=False)
            self.store.write_manifest(manifest.but(kind_run=dict(state)))

    def _execute(self, todo: list[tuple], outcome: RunOutcome) -> None:
        stats = {"done": 0, "errors": 0}
        own_progress = self.progress is None
        progress = new_progress(self.console) if self.progress is None else self.progress
        with progress if own_progress else contextlib.nullcontext():
            money = self._money(len(todo))
            bar = progress.add_task(
                self.run_name, total=len(todo), figure=self._figure([]), errors=0, cost=money, provider=""
            )
            done: list[ItemRecord] = []
            pending = list(reversed(todo))
            running: set[Future] = set()
            with ThreadPoolExecutor(max_workers=self.config.jobs) as pool:

                def submit_next() -> None:
                    if self.cancel.is_set() or not pending:
                        return
                    if self.spend.run_cap_reached:  # and the gateway now refuses every request
                        outcome.not_run_cost_cap = len(pending)
                        pending.clear()
                        progress.update(bar, total=stats["done"] + len(running))
                        return
                    running.add(pool.submit(self._run_item, *pending.pop()))

                for _ in range(self.config.jobs):
                    submit_next()
                while running:
                    finished, _ = wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
                    self._show_limiter(progress, bar)
                    for future in finished:
                        running.discard(future)
                        record = future.result()
                        if record is not None:
                            self._record(record, stats, outcome)
                            done.append(record)
                            progress.update(bar, advance=1, figure=self._figure(done), errors=stats["errors"])
                        submit_next()
                    # money moves while items run: each answer is priced as it arrives
                    progress.update(bar, cost=self._money(len(pending) + len(running)))

    def _show_limiter(self, progress: Progress, bar) -> None:
        """The provider's limits as the gateway meets them: on the progress line, and said once when it pauses."""
        assert self.gateway is not None, "the limiter is shown while the run's gateway is up"
        limiter = self.gateway.limiter
        while limiter.notices:
            progress.console.print(f"[yellow]{self.run_name}: {limiter.notices.popleft()}[/]")
        progress.update(bar, provider=limiter.snapshot().describe())

    def _figure(self, done: list[ItemRecord]) -> str:
        """The progress line's figure over the items done so far: accuracy, or the kind's own headline measure."""
        measures = registry.reading_hooks(self.benchmark.name).measures()[:1]
        if measures:
            return headline(measures, done) if done else f"{measures[0].name} -"
        graded = [r for r in done if r.status not in STOPPED_STATUSES]
        return f"acc {sum(r.correct for r in graded) / len(graded):.1%}" if graded else "acc -"

    def _record(self, record: ItemRecord, stats: dict, outcome: RunOutcome) -> None:
        self.store.append(record)
        outcome.ran += 1
        stats["done"] += 1
        stats["errors"] += int(record.status in FAILURE_STATUSES)
        if record.status in RUN_STOPPING_STATUSES and self.auth_failure is None:
            self.auth_failure = self._stop_message(record)
            self.cancel.set()

    def _stop_message(self, record: ItemRecord) -> str:
        if record.status == "tool_surface_error":
            return (
                f"{self.config.agent}: stopped the run before item {record.id}'s first action: "
                f"{(record.error or '').rstrip('.')}. Every item would meet the same: check the pinned CLI "
                f"(`make setup`), its configuration and the item's tool servers, then run again."
            )
        if record.status == "auth_error":
            credential = " or ".join(self.auth.describe()["credential"]) or "a login"
            return (
                f"{self.config.agent}: authentication failed on item {record.id} "
                f"(credential used: {credential}; endpoint {self.auth.endpoint_host}). "
                f"Stopped the run; fix the credential and run again."
            )
        return (
            f"{self.config.agent}: the API refused the request for item {record.id} as invalid "
            f"(model {self.config.model!r}, effort {self.config.effort or 'default'}; endpoint "
            f"{self.auth.endpoint_host}): {(record.error or '').strip()[:300]}. This is the configuration's "
            f"fault, not the item's: stopped the run; fix the model or options and run again."
        )
