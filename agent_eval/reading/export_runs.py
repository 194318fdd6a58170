"""Which runs an export takes and where each goes: a run, or every run of a folder (a sweep's directory);
one run and `-o FILE.eval` writes that file, several write `<run name>.eval` each into the folder `-o DIR`.
The format's own module (export_inspect.py, which needs the optional inspect-ai) loads only when called."""

from __future__ import annotations

from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from agent_eval.datamodel.results import RunStore
from agent_eval.reading.runs import RunError, load_run

SUFFIXES = (".eval", ".json")  # Inspect's binary log (zip) and its JSON form


def export_inspect_logs(paths: tuple[Path, ...], out: Path) -> Path:
    """Each run as an Inspect log, a progress bar while it goes and a line per file written; the folder
    `inspect view --log-dir` opens. ModuleNotFoundError (inspect_ai) before anything is read or written."""
    from agent_eval.reading.export_inspect import export_run

    dirs = run_dirs(paths)
    targets = destinations(dirs, out)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, transient=True) as progress:
        bar = progress.add_task("exporting", total=len(dirs))
        for run_dir, target in zip(dirs, targets):
            progress.update(bar, description=f"exporting {run_dir.name}")
            log = export_run(load_run(run_dir), target)
            errors = sum(s.error is not None for s in log.samples)
            progress.console.print(
                f"wrote {target} ({len(log.samples)} samples" + (f", {errors} with errors" if errors else "") + ")",
                soft_wrap=True,
                markup=False,
                highlight=False,
            )
            progress.advance(bar)
    return out if targets[0].parent == out else out.parent


def run_dirs(paths: tuple[Path, ...]) -> list[Path]:
    """Each RUN as given, or the runs inside it when it is a folder of runs (a sweep's directory).
    A run.json marks a run; results without one (the benchmark's own) are known by <task>/items.jsonl."""
    found = []
    for path in paths:
        if not path.is_dir():
            raise RunError(f"{path}: no such run directory")
        subdirs = sorted(p for p in path.iterdir() if p.is_dir())
        if RunStore(path).manifest_path.is_file():
            found.append(path)
        elif inner := [p for p in subdirs if RunStore(p).manifest_path.is_file()]:
            found += inner
        elif RunStore(path).task_dirs():
            found.append(path)
        elif inner := [p for p in subdirs if RunStore(p).task_dirs()]:
            found += inner
        else:
            raise RunError(f"{path}: neither a run directory (no <task>/items.jsonl) nor a folder of runs")
    return found


def destinations(runs: list[Path], out: Path) -> list[Path]:
    """A file for a single run named FILE.eval, else `<out>/<run name>.eval` per run."""
    if len(runs) == 1 and out.suffix in SUFFIXES:
        return [out]
    if out.suffix in SUFFIXES:
        raise RunError(
            f"-o {out}: {len(runs)} runs to export, one file each: give a folder, e.g. -o {out.with_suffix('')}"
        )
    if out.exists() and not out.is_dir():
        raise RunError(f"-o {out}: exists and is not a folder")
    names = [run.name for run in runs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise RunError(f"several runs are named {', '.join(twice)}: export them to separate folders")
    return [out / f"{name}.eval" for name in names]
