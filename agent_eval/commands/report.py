"""`agent-eval report RUN [RUN...] -o report.html`: one self-contained HTML file per set of runs.

Everything is inline (images as data: URIs, CSS and a few lines of JS), so the file opens
offline and can be mailed. The template (templates/report.html.j2) only lays out what
`build_context` prepares here; jinja2 autoescapes and StrictUndefined catches typos.
"""

from __future__ import annotations

from pathlib import Path

import click

from agent_eval.reading.html_report import build_context, dataset_items, render
from agent_eval.reading.runs import load_run


@click.command("report")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=Path("report.html"), show_default=True
)
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Dataset directory: supplies questions, original images where a run kept none (e.g. no-tool "
    "results), and for active observation the scenes behind the true boxes (default: run.json's).",
)
@click.option(
    "--max-image-px", default=1600, show_default=True, help="Downscale larger images for display (noted under them)."
)
@click.option("--title", default="agent-eval report", show_default=True)
def command(runs, output, data, max_image_px, title):
    """Write one self-contained HTML report of RUN(s): summaries, then every item's transcript with its images."""
    loaded = [load_run(path) for path in runs]
    html = render(build_context(loaded, dataset_items(data), max_image_px, title, data))
    output.write_text(html, encoding="utf-8")
    click.echo(f"report written to {output} ({len(html) / 1e6:.1f} MB, {sum(len(r.records) for r in loaded)} items)")
