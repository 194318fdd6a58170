"""Layer 3, the write path: runs items through sandboxed agent CLIs and records them. Never imports reading/.

api_judge.py     ApiJudge: the judge model a kind asks (model-graded scoring), called from here, cached per run
attempt.py       one attempt at one item: workdir, setup, sandboxed CLI, parse, classify, grade, record
context_watch.py what the gateway tells a kind of the model's context: usage, images per request, compaction point
egress.py        Egress: a kind's helper process's way out to exactly its hosts (a game online: the ARC API)
gateway/         the run's model gateway: the user's credential stays outside every sandbox
live_check.py    `doctor --live`: one tiny real item, end to end, before a long sweep
machine_check.py `doctor`'s checks: each agent CLI installed, its credential found and hidden; the sandbox
merging.py       shard runs of one configuration into one run
process.py       run_process: one CLI process, events streamed to disk, timeout, nothing left running
projection.py    what a sweep's cells will cost: per-item tokens, dollars and seconds measured earlier, extrapolated
provider_errors.py  a provider's error answer read for the fix it implies (e.g. the models it offers)
proxy_jail.py    the sandboxes' allowlisting proxies, in one jail per process
reply_grading.py `agent-eval score`: replies produced elsewhere graded into a run folder
regrading.py     `agent-eval regrade`: a finished run graded again (optionally its event streams re-parsed)
runner.py        Runner: what is left to do, items in parallel, retries, progress, the cost cap, resume
sandbox.py       Sandbox: bubblewrap from sandbox/policy.yaml
sandbox_check.py `doctor`'s sandbox checks: a real Sandbox around a canary (hidden files, network, tools)
saved_stream.py  `agent-eval parse`: one saved event stream through the adapter's parser and the failure table
scratch_dirs.py  temp folders named after their process; the next run removes a killed run's
slurm/           scale-out on Slurm: plan, batch scripts, shard states, submit, status, merge
selection.py     select, shard_of: which items a run takes; resolve_data_dir (--data, ./data, the samples)
sessions.py      an item's agent session: started, or continued after a restart (the CLI's own, or a fresh one)
sweep_plan.py    `sweep --plan`: per cell what is left, its projection, what it lacks, and the spend cap's verdict
sweeps.py        a sweep file: its grid and any `run` option checked line by line, run cell by cell (or a pilot)
"""
