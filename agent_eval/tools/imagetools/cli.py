"""`agent-eval-image-tools`: the image tools as a shell command (python mode).

Same operations and the same saved views and palette as the MCP server; prints JSON
(inspect, info) or the pixel grid as text (read-pixels) to stdout.
"""

from __future__ import annotations

import json
import os
import sys

import click

from agent_eval.tools.imagetools import descriptions as d
from agent_eval.tools.imagetools.errors import ToolInputError
from agent_eval.tools.imagetools.ops import DEFAULT_SIZE
from agent_eval.tools.imagetools.service import ImageTools, format_pixels


def _region_options(fn):
    for name, text in reversed((("x", d.X), ("y", d.Y), ("width", d.WIDTH), ("height", d.HEIGHT))):
        fn = click.option(f"--{name}", type=int, default=None, help=text)(fn)
    return click.option("--path", default=None, help=d.PATH)(fn)


def _run(call):
    try:
        return call()
    except ToolInputError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--workdir",
    default=None,
    type=click.Path(file_okay=False, exists=True),
    help="Working directory holding the image (default: current directory).",
)
@click.pass_context
def main(ctx, workdir):
    """Look at the task image: inspect (crop + enlarge), read-pixels, info. Views are saved under views/."""
    ctx.obj = ImageTools(workdir or os.getcwd())


@main.command()
@_region_options
@click.option("--size", type=int, default=DEFAULT_SIZE, show_default=True, help=d.SIZE)
@click.option("--grid", type=int, default=0, help=d.GRID)
@click.pass_obj
def inspect(tools: ImageTools, x, y, width, height, path, size, grid):
    """Crop a region exactly, enlarge it (nearest neighbour), save it as views/NNN-inspect.png.

    Prints JSON metadata; open the file named in "saved" to look at the view.
    """
    spec = {k: v for k, v in (("x", x), ("y", y), ("width", width), ("height", height)) if v is not None}
    views = _run(lambda: tools.inspect([spec], size, grid, path))
    click.echo(json.dumps(views[0].meta))


@main.command("read-pixels")
@_region_options
@click.option("--rows", type=int, default=None, help=d.ROWS)
@click.option("--columns", type=int, default=None, help=d.COLUMNS)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON instead of text.")
@click.pass_obj
def read_pixels(tools: ImageTools, x, y, width, height, path, rows, columns, as_json):
    """Read the centre pixel of each of rows x columns bins; print palette and symbol rows."""
    result = _run(lambda: tools.read_pixels(x, y, width, height, rows, columns, path))
    click.echo(json.dumps(result) if as_json else format_pixels(result))


@main.command()
@click.option("--path", default=None, help=d.PATH)
@click.pass_obj
def info(tools: ImageTools, path):
    """Size, mode, distinct colours and a colour histogram, as JSON."""
    click.echo(json.dumps(_run(lambda: tools.info(path))))


if __name__ == "__main__":
    main()
