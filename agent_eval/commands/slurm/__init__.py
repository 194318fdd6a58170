"""`agent-eval slurm`: submit a run or a sweep to Slurm as one array of shards plus a merge job,
follow it with `status`; `merge` is what the dependent job runs. See docs/scale-out.md."""

from __future__ import annotations

import click

from agent_eval.commands.slurm import finish, status, submit


@click.group("slurm")
def command():
    """Run on a Slurm cluster: submit (array of shards + merge job), status, merge."""


command.add_command(submit.command)
command.add_command(status.command)
command.add_command(finish.command)
