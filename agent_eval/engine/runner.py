"""Schedules a run: what is left to do, items in parallel, retries with backoff, a live progress
bar, the cost cap, the auth stop, Ctrl-C, and the summaries at the end."""

from __future__ import annotations

import contextlib
import functools
import os
import platform
import signal
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
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

from agent_eval import __version__
from agent_eval.agents import get_agent
from agent_eval.agents.base import Agent
from agent_eval.benchmarks import Benchmark
from agent_eval.datamodel.config import ConfigError, RunConfig
from agent_eval.datamodel.itemdir import ItemDir, now_iso
from agent_eval.datamodel.manifest import DatasetInfo, RunIdentity, RunManifest
from agent_eval.datamodel.pricing import pricing_files
from agent_eval.datamodel.prompts import load_template
from agent_eval.datamodel.records import RUN_STOPPING_STATUSES, ItemRecord
from agent_eval.datamodel.results import RunStore, prepare_store
from agent_eval.engine.attempt import run_attempt
from agent_eval.engine.gateway import Gateway, Redactor, secret_values
from agent_eval.engine.judge import attach_judge

RETRY_STATUSES = ("rate_limited",)
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
    columns = [
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("acc {task.fields[acc]}  errors {task.fields[errors]}  cost {task.fields[cost]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    ]
    # 4 redraws a second, not rich's 10: items take seconds, and each redraw costs about 2.7 ms of CPU
    # on a terminal (27 ms per second of the run at 10 Hz, 3% of a bare CLI's CPU per item at --jobs 1).
    return Progress(*columns, console=console, refresh_per_second=4)


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
        benchmark.warm_up(config.tools)  # slow imports (the MCP SDK) start now, beside the run's own start-up
        self.config = config
        self.benchmark = benchmark
        self.dataset = dataset
        self.items = items
        self.agent: Agent = get_agent(config.agent)
        self.agent.warm_up()
        self.auth = self.agent.find_auth(dict(os.environ if environ is None else environ))
        # A subscription login is not billed per token, so no price is needed there.
        if not config.unpriced and self.auth.kind != "login" and not self.agent.priced(config.model):
            raise ConfigError(
                f"no price for model {config.model!r} in {pricing_files()}: add it there, or pass "
                f"--unpriced to record its cost as unknown"
            )
        self.template = load_template(config.tools, benchmark.prompts_dir())
        config.benchmark = benchmark.name
        config.prompt_hash = self.template.hash
        judge = attach_judge(
            benchmark, config.judge_model, dict(os.environ if environ is None else environ), self.console
        )
        config.scorer_hash = benchmark.scorer_hash()  # names the judge: a run graded by another is another run
        config.dataset_hash = dataset.content_hash()
        config.cli_version = self.agent.version()
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
        self.redactor = Redactor(secret_values(self.auth))
        self._cost_lock = threading.Lock()

    # -- manifest ---------------------------------------------------------------------------------
    def write_manifest(self, finished: bool) -> None:
        old = self.store.read_manifest()
        self.store.write_manifest(
            RunManifest(
                run_name=self.run_name,
                config=RunIdentity(**self.config.identity(), extra=old.config.extra if old else {}),
                options=self.config.options(),
                dataset=DatasetInfo(
                    path=str(self.dataset.root.resolve()),
                    layout=self.dataset.layout,
                    n_items=len(self.dataset.items),
                    selection=self.selection or {},
                    extra=old.dataset.extra if old else {},
                ),
                auth=self.auth.describe(),
                scripted_model=self.scripted_model,
                project_version=__version__,
                host={"python": platform.python_version(), "platform": platform.platform()},
                started_at=(old and old.started_at) or now_iso(),
                resumed_at=now_iso() if old else None,
                finished_at=now_iso() if finished else None,
                regraded=old.regraded if old else [],
                merged_from=old.merged_from if old else None,
                extra=old.extra if old else {},  # a newer version's keys survive a resume by this one
            )
        )

    # -- one item, with retries -------------------------------------------------------------------
    def _run_item(self, item, repeat: int) -> ItemRecord | None:
        with self.slots if self.slots is not None else contextlib.nullcontext():
            return self._attempts(item, repeat)

    def _attempts(self, item, repeat: int) -> ItemRecord | None:
        retries: list[dict] = []
        for attempt in range(1, self.max_attempts + 1):
            if self.cancel.is_set():
                return None
            item_dir = ItemDir(self.store.sandbox_dir(item.id, repeat))
            record = run_attempt(
                item,
                repeat,
                item_dir,
                self.store.root,
                self.agent,
                self.auth,
                self.config,
                self.benchmark,
                self.template,
                gateway=self.gateway,
                redactor=self.redactor,
                cancel=self.cancel,
            )
            if record is None:
                return None
            record.attempts, record.retries = attempt, list(retries)
            if record.status not in RETRY_STATUSES or attempt == self.max_attempts:
                return record
            wait_s = min(self.retry_wait_s * 2 ** (attempt - 1), MAX_BACKOFF_S)
            retries.append({"attempt": attempt, "status": record.status, "error": record.error, "wait_s": wait_s})
            if self.cancel.wait(wait_s):
                return None
        return None

    # -- the whole run ----------------------------------------------------------------------------
    def run(self) -> RunOutcome:
        self.write_manifest(finished=False)
        done = self.store.done_keys()
        repeats = self.config.repeats
        todo = [(item, r) for r in range(repeats) for item in self.items if (item.id, r) not in done]
        outcome = RunOutcome(store=self.store, skipped=len(self.items) * repeats - len(todo))
        if self.config.sandbox == "none":
            self.console.print(
                "[bold red]WARNING: --sandbox none: the agent can read everything this user can "
                "(the dataset's answers included). Results are marked unsandboxed.[/]"
            )
        if outcome.skipped:
            self.console.print(
                f"resuming {self.run_name}: {outcome.skipped} item(s) already graded, {len(todo)} to run"
            )
        previous_handler = self._install_sigint()
        try:
            with Gateway(self.agent.name, self.auth) as self.gateway:  # the credential stays out here
                self._execute(todo, outcome)
        finally:
            self.gateway = None
            if previous_handler is not None:
                signal.signal(signal.SIGINT, previous_handler)
        outcome.interrupted = self.cancel.is_set() and self.auth_failure is None
        outcome.stopped_for_auth = self.auth_failure
        outcome.rollup = self.store.write_summaries(self.benchmark.extra_rollup)
        outcome.rollup["not_run"] = {"cost_cap": outcome.not_run_cost_cap, "max_cost_usd": self.config.max_cost_usd}
        finished = not (outcome.interrupted or outcome.stopped_for_auth or outcome.not_run_cost_cap)
        self.write_manifest(finished=finished)
        if outcome.not_run_cost_cap:
            self.console.print(
                f"[yellow]{self.run_name}: {outcome.not_run_cost_cap} item(s) not run: the recorded "
                f"cost reached --max-cost-usd {self.config.max_cost_usd:g}. Run again with a higher "
                f"cap to continue.[/]"
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

    def _spent(self) -> float:
        """Recorded cost of this run so far, previous sessions included (unknown costs count as 0 here
        and are reported apart)."""
        return sum(r.cost_usd or 0.0 for r in self.store.records())

    @_sigterm_stops_the_run
    def _execute(self, todo: list[tuple], outcome: RunOutcome) -> None:
        stats = {"done": 0, "correct": 0, "errors": 0, "cost": self._spent()}
        cap = self.config.max_cost_usd
        own_progress = self.progress is None
        progress = new_progress(self.console) if own_progress else self.progress
        with progress if own_progress else contextlib.nullcontext():
            bar = progress.add_task(self.run_name, total=len(todo), acc="-", errors=0, cost=f"${stats['cost']:.2f}")
            pending = list(reversed(todo))
            running: set[Future] = set()
            with ThreadPoolExecutor(max_workers=self.config.jobs) as pool:

                def submit_next() -> None:
                    if self.cancel.is_set() or not pending:
                        return
                    if cap is not None and stats["cost"] >= cap:
                        outcome.not_run_cost_cap = len(pending)
                        pending.clear()
                        progress.update(bar, total=stats["done"] + len(running))
                        return
                    running.add(pool.submit(self._run_item, *pending.pop()))

                for _ in range(self.config.jobs):
                    submit_next()
                while running:
                    finished, _ = wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
                    for future in finished:
                        running.discard(future)
                        record = future.result()
                        if record is not None:
                            self._record(record, stats, outcome)
                            progress.update(
                                bar,
                                advance=1,
                                acc=f"{stats['correct'] / stats['done']:.1%}",
                                errors=stats["errors"],
                                cost=f"${stats['cost']:.2f}",
                            )
                        submit_next()

    def _record(self, record: ItemRecord, stats: dict, outcome: RunOutcome) -> None:
        self.store.append(record)
        outcome.ran += 1
        stats["done"] += 1
        stats["correct"] += int(record.correct)
        stats["errors"] += int(not record.is_final)
        stats["cost"] += record.cost_usd or 0.0
        if record.status in RUN_STOPPING_STATUSES and self.auth_failure is None:
            self.auth_failure = self._stop_message(record)
            self.cancel.set()

    def _stop_message(self, record: ItemRecord) -> str:
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
