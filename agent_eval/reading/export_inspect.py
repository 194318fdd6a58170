"""One agent-eval run as one Inspect log (`inspect_ai.log.EvalLog`), written with Inspect's own API.

Mapping: one sample per (item, repeat) with `id` = item id and `epoch` = repeat + 1; the prompt
(with inline images) as input; the transcript as chat messages (inspect_messages) and as the
model and tool events of the viewer's Transcript tab (inspect_events); score
`correct` (C/I, prediction as answer, truth as target) plus one C/I score per boolean
benchmark metric (active observation: evidence_correct, combined); usage per sample keyed by
the Inspect model name; the run's configuration and hashes in the eval's metadata; harness
failures as sample errors. As in agent-eval's own accuracy, a failed item is scored I (wrong),
so Inspect's accuracy equals the run's. Token counts: `input_tokens` is the whole input
(cached included, as agent-eval records it for both CLIs), `input_tokens_cache_read` its cached part.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from pathlib import Path

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalMetric,
    EvalPlan,
    EvalPlanStep,
    EvalResults,
    EvalRetryError,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import ModelOutput, ModelUsage
from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, Score

from agent_eval import __version__
from agent_eval.datamodel.itemdir import ItemDir
from agent_eval.datamodel.itemmeta import ItemMeta
from agent_eval.datamodel.manifest import RunManifest
from agent_eval.datamodel.records import FAILURE_STATUSES, STOPPED_STATUSES, ItemRecord
from agent_eval.reading.inspect_events import sample_events
from agent_eval.reading.inspect_messages import prompt_message, transcript_messages
from agent_eval.reading.runs import LoadedRun
from agent_eval.reading.transcripts import item_dir, load_transcript

SCORER = "agent_eval"
# A run against agent-eval's scripted model server (a demo, a test): the model name is only what the CLI
# was told, so the log says so where a reader of the list of logs and of one log looks.
SCRIPTED_TAG = "scripted-model"
SCRIPTED_NOTE = (
    "the answers come from agent-eval's scripted model server (a demo or test run), not from the model named here"
)
MAIN_SCORE = "correct"
# Record fields that already have their own place in the sample: the rest goes into its metadata.
PLACED = {
    "id",
    "ground_truth",
    "prediction",
    "correct",
    "usage",
    "repeat",
    "answer_text",
    "metrics",
    "started_at",
    "finished_at",
    "elapsed_s",
    "error",
    "retries",
    "usage_by_model",
}


def _provider(agent: str | None) -> str:
    """Inspect names models provider/model: the adapter says its provider; an unknown agent names itself."""
    from agent_eval.agents import registry

    return registry.agent_class(agent).provider if agent in registry.AGENTS else agent or "unknown"


def inspect_model_name(agent: str | None, model: str | None) -> str:
    model = model or "unknown"
    return model if "/" in model else f"{_provider(agent)}/{model}"


def utc(text: str | None) -> datetime | None:
    """Our ISO stamps (`+00:00` or `+0000`) as aware datetimes; None when absent or unreadable."""
    try:
        stamp = datetime.fromisoformat(text) if text else None
    except ValueError:
        return None
    return stamp.replace(tzinfo=stamp.tzinfo or timezone.utc) if stamp else None


def utc_text(text: str | None) -> str | None:
    """utc() as the ISO text Inspect's log fields hold (they take text; Inspect normalises it to UTC)."""
    stamp = utc(text)
    return stamp.isoformat() if stamp else None


def usage_of(values: dict, cost: float | None = None) -> ModelUsage:
    """ModelUsage from a usage dict in agent-eval's names (a record's usage, or one model's in usage_by_model)."""

    def count(name):
        value = values.get(name)
        return int(value) if isinstance(value, (int, float)) else None

    total_input, output = count("input_tokens") or 0, count("output_tokens") or 0
    return ModelUsage(
        input_tokens=total_input,
        output_tokens=output,
        total_tokens=total_input + output,
        input_tokens_cache_read=count("cached_input_tokens"),
        input_tokens_cache_write=count("cache_creation_input_tokens"),
        reasoning_tokens=count("reasoning_tokens"),
        total_cost=cost if cost is not None else values.get("cost_usd"),
    )


def sample_usage(record: ItemRecord, model: str) -> dict[str, ModelUsage]:
    """Per model when the record breaks usage down by model (side calls included; newer records
    only, so read defensively), else the item's total under the run's model."""
    per_model = getattr(record, "usage_by_model", None)
    if isinstance(per_model, dict) and per_model and all(isinstance(v, dict) for v in per_model.values()):
        provider = model.split("/")[0]
        # one model (Codex): its cost is the record's, the gateway's price (Codex reports none itself)
        cost = record.cost_usd if len(per_model) == 1 else None
        return {name if "/" in name else f"{provider}/{name}": usage_of(v, cost) for name, v in per_model.items()}
    usage = {k: v for k, v in vars(record.usage).items() if v is not None}
    if not usage and record.cost_usd is None:
        return {}
    return {model: usage_of(usage, record.cost_usd)}


def extra_score_names(records: list[ItemRecord]) -> list[str]:
    """Boolean benchmark metrics (evidence_correct, combined, ...) besides the answer's own correctness."""
    names = {k for r in records for k, v in (r.metrics or {}).items() if isinstance(v, bool)}
    return sorted(names - {"answer_correct"})


def sample_scores(record: ItemRecord, extras: list[str]) -> dict[str, Score]:
    failed = record.status in FAILURE_STATUSES
    why = (
        f"harness error ({record.status}): counted as wrong"
        if failed
        else "stopped by a spend cap (budget_exceeded): not graded"
        if record.status in STOPPED_STATUSES
        else "no answer tag found"
        if record.status == "no_answer"
        else f"ungraded: {record.error}"
        if record.status == "ungraded"
        else None
    )
    scores = {
        MAIN_SCORE: Score(
            value=NOANSWER if record.status == "ungraded" else CORRECT if record.correct else INCORRECT,
            answer=record.prediction,
            explanation=why or record.answer_text,
            metadata=record.metrics or None,
        )
    }
    for name in extras:
        scores[name] = Score(value=CORRECT if (record.metrics or {}).get(name) is True else INCORRECT)
    return scores


def sample_error(record: ItemRecord) -> tuple[EvalError | None, list[EvalRetryError] | None]:
    """The final failure as the sample's error, earlier failed attempts as its retries. There is no
    Python traceback to give: Inspect's traceback fields carry the same one-line message."""

    def text(status, message):
        return f"{status}: {message or 'no message'}"

    retries = [
        EvalRetryError(message=line, traceback=line, traceback_ansi=line)
        for line in (text(r.get("status"), r.get("error")) for r in record.retries or [])
    ] or None
    if record.status not in FAILURE_STATUSES + STOPPED_STATUSES:
        return None, retries
    line = text(record.status, record.error)
    return EvalError(message=line, traceback=line, traceback_ansi=line), retries


def prompt_of(base: Path, transcript) -> str:
    if transcript is not None and transcript.prompt:
        return transcript.prompt
    try:  # a failure before the first event leaves no steps.json; meta.json has the prompt
        return ItemMeta.read(ItemDir(base).meta).prompt
    except (OSError, ValueError):
        return ""


def build_sample(run: LoadedRun, record: ItemRecord, model: str, extras: list[str]) -> EvalSample:
    base = item_dir(run, record)
    transcript, _ = load_transcript(run, record)
    user = prompt_message(prompt_of(base, transcript), transcript.prompt_images if transcript else [], base)
    conversation, times = transcript_messages(transcript, base, model) if transcript else ([], [])
    usage = sample_usage(record, model)
    last = next((m for m in reversed(conversation) if m.role == "assistant"), None)
    output = ModelOutput.from_message(last) if last else ModelOutput(model=model)
    output.model, output.usage = model, next(iter(usage.values()), None) if len(usage) == 1 else None
    error, retries = sample_error(record)
    scores, started = sample_scores(record, extras), utc(record.started_at)
    messages = [user, *conversation]
    metadata = {k: v for k, v in record.to_json().items() if k not in PLACED}
    metadata.update({"repeat": record.repeat, "transcript_error": transcript.error if transcript else None})
    return EvalSample(
        id=record.id,
        epoch=record.repeat + 1,
        input=[user],
        target=record.ground_truth,
        messages=messages,
        events=sample_events(messages, [None, *times], started, model, scores, record.ground_truth, error),
        output=output,
        scores=scores,
        metadata=metadata,
        model_usage=usage,
        started_at=utc_text(record.started_at),
        completed_at=utc_text(record.finished_at),
        total_time=None if record.elapsed_s is None else record.elapsed_s + (record.provider_wait_s or 0.0),
        working_time=record.elapsed_s,
        error=error,
        error_retries=retries,
        uuid=_digest(run.root.resolve().as_posix(), record.id, record.repeat),
    )


def eval_results(samples: list[EvalSample], names: list[str]) -> EvalResults:
    scores = []
    scored = [s.scores or {} for s in samples]  # build_sample gives every sample its scores
    for name in names:
        values = [sample[name].value == CORRECT for sample in scored]
        accuracy = sum(values) / len(values) if values else 0.0
        scores.append(
            EvalScore(
                name=name,
                scorer=SCORER,
                scored_samples=len(values),
                unscored_samples=0,
                metrics={"accuracy": EvalMetric(name="accuracy", value=accuracy)},
            )
        )
    completed = sum(s.error is None for s in samples)
    return EvalResults(total_samples=len(samples), completed_samples=completed, scores=scores)


def total_usage(samples: list[EvalSample]) -> dict[str, ModelUsage]:
    totals: dict[str, ModelUsage] = {}
    for sample in samples:
        for name, usage in sample.model_usage.items():
            totals[name] = totals[name] + usage if name in totals else usage.model_copy()
    return totals


def run_metadata(run: LoadedRun) -> dict:
    """What the reader needs to trust the numbers: configuration, CLI version, hashes, sandbox, scripted model."""
    manifest, config = run.manifest, run.config.as_dict()
    keys = (
        "agent",
        "cli_version",
        "model",
        "effort",
        "tools",
        "sandbox",
        "prompt_hash",
        "scorer_hash",
        "dataset_hash",
        "max_turns",
        "repeats",
    )
    return {
        **{k: config.get(k) for k in keys},
        "benchmark": run.benchmark,
        "run_name": run.name,
        "scripted_model": bool(manifest and manifest.scripted_model),
        **({"model_note": SCRIPTED_NOTE} if manifest and manifest.scripted_model else {}),
        "agent_eval_run": manifest.to_json() if manifest else None,
        "exported_by": f"agent-eval {__version__}",
    }


def run_to_eval_log(run: LoadedRun) -> EvalLog:
    config, manifest = run.config, run.manifest or RunManifest()
    model = inspect_model_name(config.agent, config.model)
    extras = extra_score_names(run.records)
    samples = [build_sample(run, record, model, extras) for record in run.records]
    created = utc_text(manifest.started_at) or min(
        (s.started_at for s in samples if s.started_at), default=datetime.now(timezone.utc).isoformat()
    )
    repeats = max(r.repeat for r in run.records) + 1
    dataset = manifest.dataset
    agent = config.agent or "unknown agent"
    solver_args = {k: getattr(config, k) for k in ("tools", "effort", "sandbox", "max_turns")} if run.manifest else {}
    spec = EvalSpec(
        eval_id=_digest("eval", run.root.resolve().as_posix()),
        run_id=_digest("run", run.name),
        created=created,
        task=run.name,
        task_id=_digest("task", run.name),
        task_display_name=run.name,
        task_description=f"{run.benchmark} · {run.label}",
        task_args=solver_args,
        solver=agent,
        solver_args=solver_args,
        tags=[
            t
            for t in (
                run.benchmark,
                agent,
                config.tools and f"tools={config.tools}",
                manifest.scripted_model and SCRIPTED_TAG,
            )
            if t
        ],
        dataset=EvalDataset(
            name=run.benchmark,
            location=dataset.path,
            samples=dataset.n_items,
            sample_ids=sorted({r.id for r in run.records}),
        ),
        model=model,
        config=EvalConfig(epochs=repeats),
        metadata=run_metadata(run),
        packages={"agent-eval": __version__, agent: str(config.cli_version or "unknown")},
    )
    plan = EvalPlan(steps=[EvalPlanStep(solver=agent, params=solver_args)])
    stats = EvalStats(
        started_at=created, completed_at=utc_text(manifest.finished_at) or "", model_usage=total_usage(samples)
    )
    return EvalLog(
        status="success" if manifest.finished_at else "cancelled",
        eval=spec,
        plan=plan,
        results=eval_results(samples, [MAIN_SCORE, *extras]),
        stats=stats,
        samples=samples,
    )


def export_run(run: LoadedRun, out: Path) -> EvalLog:
    """Write the run's Inspect log to `out` (.eval, or .json for Inspect's JSON format)."""
    log = run_to_eval_log(run)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(out))
    return log


def _digest(*parts) -> str:
    """Stable ids: exporting the same run twice gives the same log identity."""
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()[:22]
