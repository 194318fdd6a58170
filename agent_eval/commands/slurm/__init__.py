"""`agent-eval slurm`: submit a run or a sweep to Slurm as one array of shards plus a merge job,
follow it with `status`; `merge` is what the dependent job runs. See docs/scale-out.md.

submit.py   `slurm submit`: a run (the `run` options) or a sweep as one array of cells x shards
status.py   `slurm status RESULTS`: per shard what is graded, failed and missing
finish.py   `slurm merge DIR`: what the dependent job runs once every array task has ended
plan.py     what a submission runs, kept in `<name>.slurm/job.json` beside the scripts
scripts.py  the two batch scripts a submission writes, readable and rerunnable by hand
state.py    where each shard stands, read from its folder against the items the plan expects
"""

from __future__ import annotations

import click

from agent_eval.commands.slurm import finish, status, submit


@click.group("slurm")
def command():
    """Run on a Slurm cluster: submit (array of shards + merge job), status, merge."""


command.add_command(submit.command)
command.add_command(status.command)
command.add_command(finish.command)
