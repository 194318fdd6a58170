"""`agent-eval parse`: one saved event stream through an adapter's parser and the failure table,
printed as the record fields it would give. For debugging a CLI's output, and for checking a parser
fix against real transcripts before `regrade --reparse` applies it to a run."""

from __future__ import annotations

import json
from pathlib import Path

import click

from agent_eval.agents import registry as agent_registry
from agent_eval.engine.saved_stream import parse_saved_stream


@click.command("parse")
@click.option("--agent", type=click.Choice(agent_registry.names()), required=True, help="Which CLI wrote the stream.")
@click.argument("stream", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option(
    "--rollout",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    default=None,
    help="Codex: its session log (rollout-*.jsonl), which holds view_image calls and the turn count.",
)
@click.option(
    "--exit-code", type=int, default=0, show_default=True, help="The CLI's exit code, for the classification."
)
@click.option("--model", default="", help="The model, where the cost is computed from a price table (Codex).")
def command(agent, stream, rollout, exit_code, model):
    """Print the parsed record of one saved STREAM (the CLI's JSONL output, or a run's
    sandboxes/<id>/transcript.jsonl) as one JSON object: status, error, usage (input_tokens,
    cached_input_tokens, output_tokens, reasoning_tokens), per-model usage, cost_usd, num_turns,
    tool_calls, final_text."""
    click.echo(json.dumps(parse_saved_stream(agent, stream, rollout, exit_code, model), indent=1, ensure_ascii=False))
