"""Scale-out on Slurm (`agent-eval slurm`, docs/scale-out.md): a run or a sweep as one array of shard
tasks plus a merge job, followed by `status`. The command parses options and calls one function here.

submission.py  submit: check what the nodes would refuse, plan, write the scripts, queue them (sbatch)
plan.py        SlurmPlan: what runs where, kept in `<name>.slurm/job.json`
scripts.py     the two batch scripts: array.sbatch (one task per cell x shard) and merge.sbatch
state.py       where each shard stands (its folder against the plan) and what Slurm says of the tasks
status.py      what `slurm status` prints: the shards' table, the failures, the gaps, the merge
merge.py       what the merge job runs: every cell's shards into one run, or the gaps named
"""
