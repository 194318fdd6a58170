"""One attempt at one item: a fresh item dir, what the benchmark gives the agent, the agent's command
inside the sandbox, the events captured, parsed, classified and graded into an ItemRecord."""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import cast

from agent_eval.agents.base import Agent, ItemContext
from agent_eval.agents.failures import classify
from agent_eval.agents.received import received_images
from agent_eval.agents.sessions import SESSION_MARKER
from agent_eval.benchmarks import Benchmark, ItemError
from agent_eval.benchmarks.base import BenchmarkGrade, Item, ItemSetup
from agent_eval.datamodel.config import RunConfig
from agent_eval.datamodel.itemdir import ItemDir, now_iso
from agent_eval.datamodel.itemmeta import ItemMeta
from agent_eval.datamodel.process_result import SILENT, ProcessResult
from agent_eval.datamodel.prompts import PromptTemplate
from agent_eval.datamodel.records import GRADED_STATUSES, ItemRecord, Status
from agent_eval.datamodel.sandbox_policy import SandboxStartFailed
from agent_eval.datamodel.sessions import read_sessions
from agent_eval.datamodel.system_prompt import filled
from agent_eval.datamodel.transcript import Transcript, saved_events
from agent_eval.engine.context_watch import ContextWatch
from agent_eval.engine.gateway import Gateway, Lease, Redactor, apply_spend, record_item
from agent_eval.engine.process import STOP_GRACE_S, run_process
from agent_eval.engine.sandbox import Sandbox, SandboxSpec
from agent_eval.engine.session_watch import watched_session
from agent_eval.engine.sessions import SessionStart, end_session, go_on_after_silence, start_session

MAX_SESSIONS = 50  # sessions in one attempt (hand-offs): a bound against a loop of sessions that do nothing


@dataclass(frozen=True)
class AttemptOptions:
    """What every attempt of a run shares, built once by the runner while its gateway is up (inspect_ai
    bundles the same in one options object). No credential: an agent gets its gateway lease's dummy one."""

    agent: Agent
    config: RunConfig
    benchmark: Benchmark
    template: PromptTemplate
    gateway: Gateway
    run_root: Path  # the record names its transcript relative to it
    redactor: Redactor | None = None  # the secrets scrubbed from the item folder and its record
    cancel: threading.Event | None = None  # Ctrl-C, SIGTERM, an auth stop: the running agent is stopped
    system_prompt: str | None = None  # a task prompt that replaces the CLI's own system prompt (None: the CLI's)


def run_attempt(options: AttemptOptions, item: Item, repeat: int, item_dir: ItemDir) -> ItemRecord | None:
    """Returns None when cancelled (Ctrl-C): nothing is recorded, so a rerun does the item (a game in progress
    goes on from its record: `Benchmark.carries_on`). The sandbox gets a dummy credential and the gateway's
    URL, never the user's credential itself."""
    started_at = now_iso()
    if not (item_dir.root.is_dir() and options.benchmark.carries_on(item_dir.root)):
        item_dir.fresh()
    with options.gateway.lease(item_dir.root) as lease:  # each request appended to its gateway.jsonl as it ends
        record = Attempt(options, item, repeat, item_dir, lease, started_at).run()
    if options.redactor:
        options.redactor.tree(item_dir.root)
        record = options.redactor.record(record) if record is not None else None
    return record


def item_record(
    benchmark: Benchmark,
    item: Item,
    repeat: int,
    status: str,
    error: str | None = None,
    graded: BenchmarkGrade | None = None,
    **fields,
) -> ItemRecord:
    """An item's record, wherever its answer came from (an attempt here, a reply from elsewhere): the item and
    its truth, the status, and the kind's verdict where one was given and the status is a graded one. An
    ungraded item is never counted right (nor wrong: it is left out of accuracy)."""
    # no_answer is still graded as the benchmark does (whole text, no tag), so accuracy matches it.
    verdict = graded if status in GRADED_STATUSES else None
    return ItemRecord(
        id=item.id,
        task=item.task,
        category=item.category,
        ground_truth=benchmark.truth_text(item),
        status=cast(Status, status),  # checked as the record is built
        error=error,
        prediction=verdict.prediction if verdict is not None else "",
        correct=verdict.correct if verdict is not None and status != "ungraded" else False,
        metrics=verdict.metrics_json() if verdict is not None else {},
        repeat=repeat,
        **fields,
    )


@dataclass(frozen=True)
class Attempt:
    """One attempt in progress: the run's options, the item, and the gateway lease its requests go through."""

    options: AttemptOptions
    item: Item
    repeat: int
    item_dir: ItemDir
    lease: Lease
    started_at: str

    def run(self) -> ItemRecord | None:
        self.options.agent.copy_credentials(self.lease.auth, self.item_dir.home)
        try:
            return self._in_setup()
        except ItemError as error:  # the benchmark could not set this item up (its game did not start)
            # no agent ran (or its run cannot be graded)
            return None if self._stopping() else self._failed("benchmark_error", str(error))
        except SandboxStartFailed as error:  # this item's sandbox did not come up; the run goes on
            return (
                None
                if self._stopping()
                else self._failed("sandbox_error", f"the item's sandbox did not start: {error}")
            )

    def _stopping(self) -> bool:
        """Whether the run is stopping (Ctrl-C, SIGTERM): then a set-up that failed is left for the resume, not
        recorded. A scheduler's SIGTERM (Slurm requeue, preemption) reaches the item's helpers (its proxy jail, a
        game's host) as it reaches the runner, so a failure waits a moment for the runner's handler to say so."""
        cancel = self.options.cancel
        return cancel is not None and cancel.wait(STOP_GRACE_S)

    def _failed(self, status: str, error: str) -> ItemRecord:
        return item_record(
            self.options.benchmark,
            self.item,
            self.repeat,
            status,
            error,
            started_at=self.started_at,
            finished_at=now_iso(),
        )

    def _in_setup(self) -> ItemRecord | None:
        agent, config, benchmark = self.options.agent, self.options.config, self.options.benchmark
        item_dir, text = self.item_dir, self.options.template.text
        with benchmark.setup(self.item, config.tools, item_dir.work, item_dir.home, item_dir.root, text) as setup:
            # the model's context at each request and the images each carries, as the gateway sees them
            watch = ContextWatch(setup, agent, config.model, item_dir.home)
            watch.install(self.lease.ledger)
            self.lease.ledger.on_model_request = setup.on_model_request  # e.g. a game's one action per observation
            if setup.use_provider_wait is not None:  # e.g. a game's time budget: the provider's waits left out
                setup.use_provider_wait(lambda: self.lease.upstream.held_s(time.monotonic()))
            session = start_session(agent, item_dir, setup)
            first, spent_s = session.record.n, 0.0
            while True:
                result, launch = self._session(setup, session, config.timeout_s - spent_s, watch.signal)
                spent_s += result.elapsed_s
                end_session(item_dir, session, _how_it_ended(result))
                if result.interrupted or result.timed_out or spent_s >= config.timeout_s:
                    break
                if self.lease.upstream.answers_no_more():  # no session of it goes on (nor counts as the agent's stop)
                    break
                if (
                    result.stopped_because == SILENT
                    and config.silent_minutes
                    and session.record.n - first + 1 < MAX_SESSIONS
                ):
                    session = go_on_after_silence(agent, item_dir, setup, config.silent_minutes)  # the lease's restart
                    continue
                if setup.on_reply is not None:  # the kind reads the agent's moves from its reply
                    setup.on_reply(agent.parse(result.events, item_dir.root, config.model).final_text)
                # The kind may go on in a fresh session (a game's hand-off before the context is full, or a CLI
                # that ran out of context): told the task, where it stands and its notes, with the same tools.
                handoff = setup.next_session(agent.ran_out_of_context(result.events)) if setup.next_session else None
                if handoff is None or session.record.n - first + 1 >= (setup.max_sessions or MAX_SESSIONS):
                    break
                session = start_session(agent, item_dir, setup, handoff)
        if result.interrupted:
            return None
        result.elapsed_s = spent_s  # every session of this attempt
        # the gateway's view decides when the provider failed; the record's numbers are those of this moment
        result.upstream_failure = self.lease.upstream.settle()
        result.held_s = round(min(self.lease.upstream.held_s(), result.elapsed_s), 3)
        result.context_full = agent.ran_out_of_context(result.events)
        launch.ended(result).save(item_dir.meta)  # how it ended, for `regrade --reparse`
        # The item's transcript is all its sessions (the file holds every one; memory kept only each one's last events)
        events = saved_events(item_dir.transcript)  # every session's stream, as the CLI wrote it
        transcript = parse_item(
            agent,
            events,
            item_dir,
            config.model,
            # the task as asked (each session's own is in its marker)
            setup.prompt if session.record.n > 1 else session.prompt,
        )
        gateway = record_item(self.lease, item_dir.root, transcript)  # also confirms each image's size at the API
        transcript.save(item_dir.steps)  # once, sizes confirmed
        sessions = read_sessions(item_dir.root)
        expects_inline = bool(transcript.prompt_images) and _first_session_on_record(agent, item_dir, sessions)
        agent.prune(item_dir.root)  # the CLI's scaffolding goes; what reading and regrade --reparse read stays
        record = grade_item(
            self.item,
            self.repeat,
            item_dir,
            transcript,
            result,
            benchmark,
            config.timeout_s,
            expects_inline=expects_inline,
        )
        record.gateway = gateway
        apply_spend(record)  # the gateway's price of the API's usage; a spend cap's stop
        record.elapsed_s = round(result.elapsed_s - result.held_s, 3)  # the agent's time, not the provider's waits
        record.provider_wait_s = result.held_s
        record.transcript = str(item_dir.transcript.relative_to(self.options.run_root))
        record.image_conversions = list(setup.conversions)
        record.sessions = max(1, len(sessions))
        record.handoffs = sum(s.reason.startswith("hand-off") for s in sessions)
        record.silent_restarts = sum(s.reason.startswith("silent") for s in sessions)
        record.compactions = len(getattr(transcript, "compactions", None) or [])
        record.started_at, record.finished_at = self.started_at, now_iso()
        return record

    def _session(
        self, setup: ItemSetup, session: SessionStart, timeout_s: float, compaction_signal: Path | None = None
    ) -> tuple[ProcessResult, ItemMeta]:
        """One agent CLI process in its sandbox: the attempt's session `session` (started, or continued), and
        how it was launched (meta.json, written before it starts)."""
        agent, config, item_dir, auth = self.options.agent, self.options.config, self.item_dir, self.lease.auth
        ctx = ItemContext(
            item_id=self.item.id,
            model=config.model,
            effort=config.effort,
            max_turns=config.max_turns,
            prompt=session.prompt,
            workdir=item_dir.work,
            home=item_dir.home,
            tools=setup.tools,
            inline_images=session.images,
            auth=auth,
            session=session.plan,
            auto_compact=setup.cli_compaction,
            system_prompt=filled(self.options.system_prompt, session.system_fields or setup.system_fields),
            compaction_signal=compaction_signal,
        )
        invocation = agent.prepare(ctx)
        spec = SandboxSpec(
            workdir=item_dir.work,
            home=item_dir.home,
            endpoints=auth.endpoints + setup.endpoints,
            env=invocation.env,
            readonly_mounts=list(setup.readonly_mounts),
            memory_dirs=invocation.memory_dirs,
        )
        assert config.sandbox is not None  # None only in `score`'s config, which runs no agent
        held = lambda: self.lease.upstream.held_s(time.monotonic())  # noqa: E731  (no clock counts these waits)
        watch = watched_session(
            agent, item_dir, session, setup, config, self.lease, held
        )  # the surface check, the lease
        with Sandbox(spec, kind=config.sandbox) as sandbox, watch as watched:
            argv, env = sandbox.wrap(invocation.argv, ready_later=True)  # its proxy awaited once the CLI starts
            launch = ItemMeta(
                argv=argv,
                env_names=sorted(env),
                cwd=str(item_dir.work),
                sandbox=config.sandbox,
                prompt=ctx.prompt,
                started_at=self.started_at,
            )
            launch.save(item_dir.meta)  # what runs, while it runs (a hung or killed item's only account of it)
            result = run_process(
                argv,
                env,
                item_dir.work,
                invocation.stdin,
                item_dir.transcript,
                item_dir.stderr,
                timeout_s,
                watch=watched.watch,
                cancel=self.options.cancel,
                pass_fds=sandbox.pass_fds,
                held=held,
                stop_when=watched.stop_when,
                on_start=sandbox.ready,
            )
            watched.finish(result)
            result.proxy_refused = sandbox.refused_requests() if config.sandbox != "none" else []
        return result, launch


def _first_session_on_record(agent: Agent, item_dir: ItemDir, sessions: list) -> bool:
    """Whether the CLI's own record of the item's first session (where its first message's attachments are
    logged as sent) is there to check: always for an item of one session; for several, unless it was lost (a
    restart of the harness that could not continue it), when what reached the model cannot be told from it."""
    if len(sessions) <= 1:
        return True
    first = sessions[0].session_id
    return bool(first) and agent.can_resume(item_dir.home, item_dir.work, first)


def _how_it_ended(result: ProcessResult) -> str:
    if result.interrupted:
        return "interrupted"
    if result.timed_out:
        return "timeout"
    if result.stopped_because:
        return f"stopped: {result.stopped_because}"
    return f"exit {result.exit_code}"


def parse_item(
    agent: Agent,
    events: list[dict],
    item_dir: ItemDir,
    model: str,
    prompt: str,
    prompt_images: list[str] | None = None,
) -> Transcript:
    """The CLI's events (and its own logs beside them) as a normalised transcript, with every image the
    model received and its size (the caller saves it as steps.json once the gateway confirmed those).
    `prompt_images`: the first message's attachments, by default the first session's as its marker names them
    (whichever session is the last: a game's first prompt carries its first frame, and hand-offs follow)."""
    first = next((e for e in events if e.get("type") == SESSION_MARKER), None)
    if prompt_images is None:
        prompt_images = list(first.get("images") or []) if first is not None and first.get("n") == 1 else []
    sessions = read_sessions(item_dir.root)
    first_id = sessions[0].session_id if sessions else (first or {}).get("session_id")
    transcript = agent.parse(events, item_dir.root, model)
    transcript.prompt = prompt
    transcript.prompt_images = prompt_images
    inline = agent.inline_images(item_dir.root, first_id) if prompt_images else []
    transcript.images = received_images(
        transcript, item_dir.root, inline, [item_dir.root / path for path in prompt_images]
    )
    return transcript


def grade_item(
    item: Item,
    repeat: int,
    item_dir: ItemDir,
    transcript: Transcript,
    result: ProcessResult,
    benchmark: Benchmark,
    timeout_s: float,
    expects_inline: bool,
) -> ItemRecord:
    # How the process ended decides first: a failed attempt is not graded (a kind's judge is not paid for it),
    # except by a kind that grades from what happened (a game): its own failure then names the status.
    outcome = classify(result, transcript, True, timeout_s)
    status, error, graded = outcome.status, outcome.error, None
    if result.context_full and status in ("request_error", "agent_error"):
        # A full context window is the episode's end, not the configuration's fault (an API's 400 for a prompt
        # too long would stop the run as a request_error): the agent's failure, and a game is graded as played.
        status, error = "agent_error", f"the model's context window was full: {error or 'the CLI stopped'}"
    if status in ("ok", "no_answer") and expects_inline and not any(i.via == "inline" for i in transcript.images):
        # The mode sends the image with the question; an answer given without it is not a graded answer.
        status, error = "image_dropped", "the image was to be sent with the question, but none reached the model"
    if status in ("ok", "no_answer") or (status == "agent_error" and benchmark.grades_failed_attempts):
        graded = benchmark.grade(transcript.final_text, item, item_dir)
        if graded.error:  # the benchmark's own part failed (e.g. its game crashed): that explains the rest
            status, error = "benchmark_error", graded.error
        elif status != "agent_error":
            outcome = classify(result, transcript, graded.has_answer_tag, timeout_s)
            status, error = outcome.status, outcome.error
            if status == "ok" and graded.malformed:
                status, error = "no_answer", "the answer tag holds no readable answer"
            if graded.ungraded:
                status, error = "ungraded", graded.ungraded  # answered, but no verdict: never counted wrong
    return item_record(
        benchmark,
        item,
        repeat,
        status,
        error,
        graded,
        answer_text=transcript.final_text,
        usage=transcript.usage,
        usage_by_model=transcript.usage_by_model,
        cost_usd=transcript.cost_usd,
        num_turns=transcript.num_turns,
        tool_calls=transcript.tool_calls,
        images=[asdict(image) for image in transcript.images],
        api_retries=list(transcript.api_retries),
    )
