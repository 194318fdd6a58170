"""Combine shard runs of one configuration into one run: the best record per item and repeat."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from agent_eval.benchmarks import get_benchmark, registry
from agent_eval.datamodel.config import identity_differences
from agent_eval.datamodel.records import ItemRecord
from agent_eval.datamodel.results import ResultsError, RunStore


def _better(old: ItemRecord | None, new: ItemRecord) -> bool:
    """A graded record beats a harness failure; between equals the later one wins."""
    if old is None:
        return True
    if old.is_final != new.is_final:
        return new.is_final
    return (new.finished_at or "") >= (old.finished_at or "")


def merge_runs(out: Path, runs: list[Path]) -> RunStore:
    stores = [RunStore(path) for path in runs]
    manifests = []
    for store in stores:
        manifest = store.read_manifest()
        if manifest is None:
            raise ResultsError(f"{store.root}: no run.json; is this an agent-eval run directory?")
        manifests.append(manifest)
    for store, manifest in zip(stores[1:], manifests[1:]):
        differences = identity_differences(manifests[0].config.as_dict(), manifest.config.as_dict())
        if differences:
            raise ResultsError(
                f"{store.root} was run with a different configuration than {stores[0].root} "
                f"({'; '.join(differences)}); only shards of one run can be merged"
            )
    if out.exists() and any(out.iterdir()):
        raise ResultsError(f"{out} exists and is not empty; merge into a new directory")
    chosen: dict[tuple[str, int], tuple[ItemRecord, RunStore]] = {}
    for store in stores:
        for record in store.records():
            if _better(chosen.get(record.key, (None,))[0], record):
                chosen[record.key] = (record, store)
    merged = RunStore(out)
    for (item_id, repeat), (record, store) in sorted(chosen.items()):
        merged.append(record)
        source = store.sandbox_dir(item_id, repeat)
        if source.is_dir():
            shutil.copytree(source, merged.sandbox_dir(item_id, repeat), symlinks=True)
    first = manifests[0]
    merged.write_summaries(get_benchmark(first.config.benchmark or registry.DEFAULT).extra_rollup)
    finished = [m.finished_at for m in manifests]
    done = [at for at in finished if at]
    merged.write_manifest(
        first.but(
            run_name=out.name,
            options={**first.options, "shard": None},
            dataset=replace(first.dataset, selection={**first.dataset.selection, "shard": None}),
            merged_from=[str(store.root.resolve()) for store in stores],
            started_at=min(m.started_at or "" for m in manifests) or None,
            finished_at=max(done) if len(done) == len(finished) else None,
        )
    )
    return merged
