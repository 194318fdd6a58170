"""`agent-eval export --format inspect RUN [RUN...] -o OUT`: runs as logs other tools read
(reading/export_runs.py). The format's own module loads only when the command runs, so its help
works without the optional dependency."""

from __future__ import annotations

from pathlib import Path

import click

from agent_eval.reading.export_runs import export_inspect_logs

FORMATS = ("inspect",)


class ExportError(click.ClickException):
    """One line for the user, exit code 2 (as for every bad input)."""

    exit_code = 2


MISSING = (
    "inspect-ai is not installed: pip install -e '.[inspect]' (`make setup` installs it), then run the export again"
)


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
        folder = export_inspect_logs(runs, out)
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] != "inspect_ai":
            raise
        raise ExportError(MISSING) from None
    click.echo(f"open in Inspect's viewer: inspect view --log-dir {folder} --host 127.0.0.1")
