"""What a run lends a benchmark kind for as long as one session of the run lasts (`Benchmark.run_scope`).

Some kinds hold something for a whole run rather than an item: ARC-AGI-3 games played online keep one scorecard
at the ARC API, opened before the first game and closed when the run ends. The engine opens the scope around the
run's items (closing it also on Ctrl-C and SIGTERM) and hands the kind these services; the kinds (benchmarks/)
never import the engine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

from agent_eval.datamodel.config import RunConfig


class EgressError(Exception):
    """A way out that could not be opened (its proxy did not start): one line."""


class Egress(Protocol):
    """A door to exactly the hosts asked for: a unix socket (`net_dir`/`socket_name`) that a jail binds; every
    connection through it reaches an allowlisting proxy outside. Closed when its user is done."""

    net_dir: Path
    socket_name: str

    def refused_requests(self) -> list[str]: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class RunServices:
    run_root: Path  # the run's folder
    run_name: str
    config: RunConfig  # what was asked: agent, model, tools, repeats, shard, the kind's options
    items: Sequence[Any]  # the items this session of the run has to run (none: a resume of a finished run)
    environ: Mapping[str, str]  # the user's environment (where credentials are read, never copied into an item)
    previous: dict[str, Any]  # what the kind recorded of the run in an earlier session (run.json's kind_run)
    record: Callable[[dict[str, Any]], None]  # replaces run.json's kind_run, on disk at once
    open_egress: Callable[[list[str]], Egress]  # a proxy letting exactly these "host:port"s or URLs through
    add_secret: Callable[[str], None]  # a value the harness scrubs from every item folder and record it writes
    say: Callable[[str], None]  # one line to the user, above the progress bar
