"""The provider's limits and failures met at the run's gateway, with the real Claude Code and Codex CLIs,
sandboxed, against the scripted model server standing in for the provider:

- a provider that allows 4 requests at once (429 + retry-after beyond that) while the run has --jobs 16:
  the gateway's limiter holds the requests, no CLI sees a 429 and no item fails for rate limits;
- a provider answering 500 (or cutting every stream) on every request of every item: an outage; the gateway
  holds the requests up to the outage bound (--outage-hold-minutes, 6 s here), probing one at a time, the run
  says so, then the items end `upstream_error` after a handful of requests (a cut stream reaches a CLI once, a
  held request is refused with a 4xx no CLI retries: Codex gives up before a long --timeout), no process of
  theirs is left, and a resume once the provider recovers finishes them.
tests/e2e/test_outage_e2e.py has an outage that ends, and one item the provider always fails.
docs/reliability.md lists these rows; perf/rate_limits.py measures the wall time of the first case.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_eval.agents.registry import scripted_environ
from agent_eval.benchmarks.activevision.samples import write_sample_set
from agent_eval.cli import main
from agent_eval.datamodel.records import ItemRecord
from agent_eval.datamodel.results import RunStore
from agent_eval.scripted import ScriptedServer
from support.agentrun import AGENTS, MODELS, run_agent, wait_until_gone

ANSWER = {"turns": ["<answer>1</answer>"]}


@pytest.fixture(scope="module")
def eight_items(tmp_path_factory) -> tuple[Path, str]:
    """(data dir, ids): eight items, twice what the provider below allows at once."""
    root = tmp_path_factory.mktemp("eight") / "data"
    write_sample_set(root, seed=0, per_task=2)
    ids = sorted(json.loads(line)["id"] for line in (root / "metadata.jsonl").read_text().splitlines())[:8]
    return root, ",".join(ids)


@pytest.mark.parametrize("agent", AGENTS)
def test_jobs_16_against_a_provider_allowing_4_at_once_no_item_fails_for_rate_limits(agent, eight_items, tmp_path):
    faults = {"concurrency": 4, "retry_after": 1, "delay": 4}  # long enough for the CLIs' requests to overlap
    data, ids = eight_items
    with ScriptedServer(ANSWER, faults=faults) as server:
        outcome = run_agent(agent, "none", server, data, tmp_path, ids=ids, jobs=16, timeout_s=120)
        refused = [r for r in server.requests if r.kind == "over_limit"]
        peak = server.peak_in_flight
    records = outcome.store.records()
    assert len(records) == 8 and Counter(r.status for r in records) == {"ok": 8}
    assert refused and peak == 4  # the provider's limit was really met, and held
    # Every 429 stayed at the gateway: it saw each one, the CLIs none.
    upstream = [r.gateway["upstream"] for r in records]
    assert sum(u["rate_limited"] for u in upstream) == len(refused)
    assert all(r.gateway["http_errors"] == [] and not r.api_retries and r.attempts == 1 for r in records)
    # The time held is recorded per item, and is not the agent's.
    assert any(r.provider_wait_s > 0.5 for r in records)
    for record in records:
        wall = json.loads((outcome.store.root / "sandboxes" / record.id / "meta.json").read_text())["exit"]["elapsed_s"]
        assert record.provider_wait_s == record.gateway["upstream"]["held_s"]
        assert record.elapsed_s == pytest.approx(wall - record.provider_wait_s, abs=0.002)
    waited = max(records, key=lambda r: r.provider_wait_s)
    shown = CliRunner().invoke(main, ["show", str(outcome.store.root), waited.id], env={"COLUMNS": "200"})
    assert f"(+{waited.provider_wait_s:.0f}s waiting for the provider)" in shown.output, shown.output


def run_cli(agent: str, server: ScriptedServer, data: Path, out: Path, jobs: int, hold_minutes: float = 30):
    """`agent-eval run` (tools python: each item's CLI has an MCP server and a shell besides) over three items."""
    env = {**scripted_environ(agent, server.url), "COLUMNS": "250"}
    return CliRunner().invoke(
        main,
        [
            "run",
            "--agent",
            agent,
            "--model",
            MODELS[agent],
            "--tools",
            "python",
            "--data",
            str(data),
            "--out-dir",
            str(out),
            "--run-name",
            "r",
            "--ids",
            "CCC-0,LIS-0,FDS-0",
            "--jobs",
            str(jobs),
            "--timeout",
            "120",
            "--unpriced",
            "--outage-hold-minutes",
            f"{hold_minutes:g}",
        ],
        env=env,
    )


@pytest.mark.parametrize("faults", [{"status": 500}, {"truncate": True}], ids=["500", "cut"])
@pytest.mark.parametrize("agent", AGENTS)
def test_a_provider_down_for_the_whole_bound_ends_items_upstream_error_in_few_requests_and_a_resume_finishes_them(
    agent, faults, sample_data, tmp_path
):
    """Both CLIs retry a 500 or a cut stream; with nothing answered the failures are an outage: the gateway holds
    the CLI's next request (read whole before the CLI sees any of it, so no further cut reaches it) up to the bound,
    then refuses it with a 4xx no CLI retries: the provider's failure, `upstream_error` (Codex's 5 reconnects
    after cuts were `agent_error` before), well before --timeout (120 s), and every item's whole process group (the
    CLI, its MCP server, the shell) is gone. (Was also F::test_stream_cut_every_time_... and
    F::test_codex_gives_up_on_a_cut_stream_before_a_long_timeout, one item each.)"""
    with ScriptedServer(ANSWER, faults=faults) as server:
        failed = run_cli(agent, server, sample_data, tmp_path, jobs=3, hold_minutes=0.1)
        sent = len(server.main_requests())
        outcomes = {r.outcome for r in server.main_requests()}
        # the sandboxes' lifeline watchers exit once the run has closed them: gone within moments, or left over
        left = wait_until_gone(str(tmp_path / "r"))
        server.faults = None  # the provider recovers
        resumed = run_cli(agent, server, sample_data, tmp_path, jobs=3)
    assert failed.exit_code == 0, failed.output
    assert left == []  # no CLI, MCP server or shell of the failed run outlived it
    assert outcomes == {"fault:500" if "status" in faults else "truncate"}, outcomes  # the provider answered none
    first: dict[str, ItemRecord] = {}  # a resume appends: each item's first line is the first run's
    for path in sorted((tmp_path / "r").glob("*/items.jsonl")):
        for line in path.read_text().splitlines():
            record = ItemRecord.from_json(json.loads(line))
            first.setdefault(record.id, record)
    first = list(first.values())
    assert Counter(r.status for r in first) == {"upstream_error": 3}
    what = "HTTP 500" if "status" in faults else "stream cut"
    for record in first:
        # Held, never failed for its own sake: nothing was answered; its request was held the whole bound.
        upstream = record.gateway["upstream"]
        assert upstream["outage"] and upstream["outage_failures"] == sum(upstream["failures"].values())
        assert upstream["refused"] >= 1, upstream  # its held request refused at the bound, not passed on
        assert "answered no request of the run while this item's was held" in record.error, record.error
        assert not record.correct and record.prediction == ""
        if upstream["upstream_requests"]:
            assert record.error.startswith("the provider failed"), record.error
        else:  # its CLI's first request came once the breaker held everyone, and its turn to probe never came
            assert record.error.startswith("the provider answered no request"), record.error
    assert any(f"the provider failed: {what} x" in record.error for record in first)
    # A handful for the whole run: one probe at a time, at most every 15 s (Codex alone made 120 before).
    assert sent <= 15, sent
    assert re.search(
        r"provider down: \d+ failed requests in a row \(.*\), none answered; holding the requests \(up to 6s "
        r"each\)",
        failed.output,
    ), failed.output
    assert "3 item(s) ended upstream_error" in failed.output
    assert "3 item(s) upstream_error: the provider failed them" in " ".join(failed.output.split())  # the table's note
    # The resume reruns exactly those, and they finish.
    assert resumed.exit_code == 0, resumed.output
    latest = RunStore(tmp_path / "r").records()
    assert len(latest) == 3 and Counter(r.status for r in latest) == {"ok": 3}
