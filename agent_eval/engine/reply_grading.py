"""`agent-eval score`: replies produced elsewhere (a no-tool track, another harness) graded by a kind's own
rules and judge into a run folder laid out as `run` lays it out, so show, report and compare read it.

REPLIES.jsonl holds `{"id": ..., "reply": ...}` per line (optionally `"repeat": n`). A line that is not
such an object, names an item the dataset lacks, or repeats an (id, repeat) is a DataError naming the
file and line. Scoring again into the same folder keeps what was graded and grades the rest (the
judge's answers come from the run's cache either way)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.progress import Progress

from agent_eval import __version__
from agent_eval.benchmarks.base import Benchmark
from agent_eval.datamodel.config import RunConfig
from agent_eval.datamodel.itemdir import ItemDir, now_iso
from agent_eval.datamodel.jsonl import DataError, jsonl_rows
from agent_eval.datamodel.manifest import DatasetInfo, RunIdentity, RunManifest
from agent_eval.datamodel.records import ItemRecord
from agent_eval.datamodel.results import prepare_store
from agent_eval.engine.api_judge import attach_judge
from agent_eval.engine.attempt import item_record

AGENT = "replies"  # the run's agent: answers that came from a file, not from a CLI run here


@dataclass(frozen=True)
class Reply:
    where: str
    id: str
    repeat: int
    text: str | None


def read_replies(path: Path, known: set[str]) -> list[Reply]:
    replies, seen = [], set()
    try:
        rows = jsonl_rows(path)
    except OSError as error:
        raise DataError(f"{path}: cannot be read ({error.strerror})") from None
    for where, row in rows:
        if "id" not in row or "reply" not in row:
            raise DataError(f'{where}: expected an object with "id" and "reply" (the reply may be null)')
        if row["reply"] is not None and not isinstance(row["reply"], str):
            raise DataError(f'{where}: "reply" must be a string or null, got {type(row["reply"]).__name__}')
        item_id, repeat = str(row["id"]), row.get("repeat", 0)
        if not isinstance(repeat, int) or repeat < 0:
            raise DataError(f'{where}: "repeat" must be a whole number from 0')
        if item_id not in known:
            raise DataError(f"{where}: id {item_id!r} is not an item of the dataset; check --data")
        if (item_id, repeat) in seen:
            raise DataError(f"{where}: id {item_id!r} (repeat {repeat}) appears twice; keep one reply per item")
        seen.add((item_id, repeat))
        replies.append(Reply(where, item_id, repeat, row["reply"]))
    if not replies:
        raise DataError(f"{path}: holds no replies")
    return replies


def record_of(benchmark: Benchmark, item, reply: Reply, item_dir: ItemDir) -> ItemRecord:
    started_at, graded = now_iso(), None
    if not (reply.text or "").strip():  # nothing to read and nothing to ask a judge about: wrong, as a run's would be
        status, error = "no_answer", "the reply is empty"
    else:
        graded = benchmark.grade(reply.text, item, item_dir)
        if graded.ungraded:
            status, error = "ungraded", graded.ungraded
        elif not graded.has_answer_tag or graded.malformed:
            status, error = "no_answer", "the reply holds no answer the benchmark can read"
        else:
            status, error = "ok", None
    return item_record(
        benchmark,
        item,
        reply.repeat,
        status,
        error,
        graded,
        answer_text=reply.text,
        started_at=started_at,
        finished_at=now_iso(),
    )


def score_config(benchmark: Benchmark, dataset, model: str, judge_model: str | None) -> RunConfig:
    # No agent ran here: no tool mode, no sandbox (None, not "none": nothing ran unsandboxed).
    config = RunConfig(agent=AGENT, model=model, tools="none", sandbox=None, judge_model=judge_model)
    config.benchmark = benchmark.name
    config.scorer_hash = benchmark.scorer_hash()
    config.dataset_hash = dataset.content_hash()
    return config


def replies_manifest(store, config: RunConfig, dataset, replies_path: Path, finished: bool) -> RunManifest:
    """run.json of a scoring, as this session of it writes it."""
    return RunManifest(
        run_name=store.root.name,
        config=RunIdentity(**config.identity()),
        options={"replies": str(replies_path.resolve())},
        dataset=DatasetInfo(path=str(Path(dataset.root).resolve()), layout=dataset.layout, n_items=len(dataset.items)),
    ).session(store.read_manifest(), finished, __version__)


def score(
    benchmark: Benchmark,
    dataset,
    replies_path: Path,
    out_dir: Path,
    run_name: str,
    model: str,
    judge_model: str | None,
    environ: dict[str, str],
    console,
) -> dict:
    if not benchmark.grades_text:
        raise DataError(f"{benchmark.name} items are not graded from a reply's text alone; `score` cannot grade them")
    items = {item.id: item for item in dataset.items}
    replies = read_replies(replies_path, set(items))
    judge = attach_judge(benchmark, judge_model, environ, console)
    config = score_config(benchmark, dataset, model, judge_model)
    store = prepare_store(out_dir, run_name, config, redo=False, console=console)
    if judge is not None:
        judge.bind(store.root)
    progress = Progress(console=console, transient=True)
    store.write_manifest(replies_manifest(store, config, dataset, replies_path, finished=False))
    done = store.done_keys()
    todo = [r for r in replies if (r.id, r.repeat) not in done]
    with progress:
        task = progress.add_task("grading replies", total=len(todo))
        for reply in todo:
            item_dir = ItemDir(store.sandbox_dir(reply.id, reply.repeat))  # nothing ran: it stays empty
            store.append(record_of(benchmark, items[reply.id], reply, item_dir))
            progress.advance(task)
    rollup = store.write_summaries(benchmark.extra_rollup)
    store.write_manifest(replies_manifest(store, config, dataset, replies_path, finished=True))
    return {"root": store.root, "graded": len(todo), "kept": len(replies) - len(todo), "rollup": rollup}
