"""`agent-eval export --format inspect RUN [RUN...] -o OUT`: runs as logs other tools read.

One run and `-o FILE.eval` writes that file; several runs, or a folder of runs (a sweep's
directory), write one `<run name>.eval` each into the folder `-o DIR`, which `inspect view
--log-dir DIR` lists. The format's own module (export_inspect) loads only here, so the
command's help works without the optional dependency.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from agent_eval.datamodel.results import RunStore
from agent_eval.reading.runs import RunError, load_run

FORMATS = ("inspect",)
SUFFIXES = (".eval", ".json")  # Inspect's binary log (zip) and its JSON form


class ExportError(click.ClickException):
    """One line for the user, exit code 2 (as for every bad input)."""

    exit_code = 2


MISSING = (
    "inspect-ai is not installed: pip install -e '.[inspect]' (`make setup` installs it), then run the export again"
)


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


@click.command("export")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="inspect",
    show_default=True,
    help="inspect: UK AISI Inspect's log format, for `inspect view` and inspect_ai.log.",
)
@click.option(
    "-o",
    "--out",
    type=click.Path(path_type=Path),
    required=True,
    help="FILE.eval for one run; a folder for several runs or a sweep (one <run>.eval each).",
)
def command(runs, fmt, out):
    """Export runs as Inspect logs: one sample per item and repeat, with the transcript, the images
    the agent saw, the grade, token usage and the run's configuration.

    \b
    agent-eval export --format inspect results/RUN -o RUN.eval
    agent-eval export --format inspect results/sweeps/NAME -o logs/   # every cell of a sweep
    inspect view --log-dir logs/ --host 127.0.0.1
    """
    try:
        from agent_eval.reading.export_inspect import export_run
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] != "inspect_ai":
            raise
        raise ExportError(MISSING) from None
    dirs = run_dirs(runs)
    targets = destinations(dirs, out)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, transient=True) as progress:
        bar = progress.add_task("exporting", total=len(dirs))
        for run_dir, target in zip(dirs, targets):
            progress.update(bar, description=f"exporting {run_dir.name}")
            log = export_run(load_run(run_dir), target)
            samples = log.samples or []
            errors = sum(s.error is not None for s in samples)
            progress.console.print(
                f"wrote {target} ({len(samples)} samples" + (f", {errors} with errors" if errors else "") + ")",
                soft_wrap=True,
                markup=False,
                highlight=False,
            )
            progress.advance(bar)
    folder = out if targets[0].parent == out else out.parent
    click.echo(f"open in Inspect's viewer: inspect view --log-dir {folder} --host 127.0.0.1")
