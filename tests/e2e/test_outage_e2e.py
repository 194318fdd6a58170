"""An outage costs no running item its work (issue 31), with the real Claude Code and Codex CLIs, sandboxed,
against the scripted model server standing in for the provider.

The provider fails every request (HTTP 500, side requests included) for 30 s, then answers; beside that, it
fails every request of one item (the maze question) always. While it answers no one, the run's gateway holds
the items' requests (the CLIs see a slow answer, not an error) and probes one at a time; once a probe is
answered the held requests go and every other item ends `ok` in its first attempt, the wait recorded as the
provider's (`provider_wait_s`), not the agent's. The poisoned item's failures count against it only once the
provider answers the others: it alone ends `upstream_error`. Both CLIs run side by side, and beside them the
second scenario (an item the provider always fails, resumed alone), in one module fixture: most of it is the
outage's wait, and each test asserts on its own scenario's results.
docs/reliability.md lists the row; perf/provider_failures.py measures the same scenarios.
"""

from __future__ import annotations

import io
import json
import threading
from collections import Counter

import pytest
from rich.console import Console

from agent_eval.agents.registry import efforts_by_agent, scripted_environ
from agent_eval.benchmarks import load_benchmark
from agent_eval.datamodel.config import RunConfig
from agent_eval.engine.runner import Runner
from agent_eval.engine.selection import select
from agent_eval.scripted import ScriptedServer
from support.agentrun import AGENTS, MODELS

OUTAGE_S = 30  # long enough that every item's requests meet it and are held (half of it at least, asserted)
TIMEOUT_S = 24  # --timeout, shorter than the outage: the held time is not the attempt's (an item takes a few s)
FAULTS = {"status": 500, "for_s": OUTAGE_S, "poison": "maze"}  # MPT-0 asks about a maze
IDS = "CCC-0,LIS-0,FDS-0,MPT-0"


def side_by_side(runs: dict, sample_data, tmp_path) -> dict:
    """Every `run(agent, sample_data, out, results)` of `runs` (name -> run) for both CLIs at once (CI time):
    {name: {agent: its results}}, none an error."""
    results: dict = {name: {} for name in runs}
    threads = [
        threading.Thread(target=run, args=(agent, sample_data, tmp_path / name / agent, results[name]))
        for name, run in runs.items()
        for agent in AGENTS
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for name in runs:
        for agent in AGENTS:
            assert not isinstance(results[name][agent], BaseException), (name, agent, results[name][agent])
    return results


def run_items(agent: str, sample_data, out, server: ScriptedServer, ids: str) -> tuple:
    """One `run` of the items (tools none, --outage-hold-minutes 5, --timeout 24 s: shorter than the outage, as the
    held time is not the attempt's), the way the command builds it: (outcome, what it printed)."""
    benchmark, dataset = load_benchmark(sample_data)
    config = RunConfig(
        agent=agent,
        model=MODELS[agent],
        tools="none",
        jobs=4,
        timeout_s=TIMEOUT_S,
        unpriced=True,
        outage_hold_minutes=5,
    )
    config.validate(efforts_by_agent())
    said = io.StringIO()
    runner = Runner(
        config,
        benchmark,
        dataset,
        select(dataset, ids=ids),
        out,
        console=Console(file=said, width=250),
        environ=scripted_environ(agent, server.url),
        scripted_model=True,
    )
    return runner.run(), said.getvalue()


def run_through_an_outage(agent: str, sample_data, out, results: dict) -> None:
    try:
        with ScriptedServer({"turns": ["<answer>1</answer>"]}, faults=FAULTS) as server:
            outcome, said = run_items(agent, sample_data, out, server, IDS)
            requests = server.main_requests()
        results[agent] = (outcome, requests, said)
    except BaseException as error:  # noqa: BLE001 - reported by the test's thread
        results[agent] = error


@pytest.fixture(scope="module")
def scenarios(sample_data, tmp_path_factory) -> dict:
    """Both scenarios for both CLIs, all four side by side: {"outage" | "resumed_alone": {agent: results}}."""
    runs = {"outage": run_through_an_outage, "resumed_alone": run_then_resume_alone}
    return side_by_side(runs, sample_data, tmp_path_factory.mktemp("outage"))


def test_an_outage_longer_than_the_timeout_ends_every_item_ok_and_only_the_item_always_failed_ends_upstream_error(
    scenarios,
):
    """Both CLIs: the 3 items the outage held end `ok` in their first attempt, the outage's time recorded as the
    provider's (held, not failed: no CLI saw an error); the item the provider always fails alone `upstream_error`,
    counted against it only once the provider answered the others."""
    for agent in AGENTS:
        outcome, requests, said = scenarios["outage"][agent]
        records = {r.id: r for r in outcome.store.records()}
        assert Counter(r.status for r in records.values()) == {"ok": 3, "upstream_error": 1}, (agent, records)
        # The provider really failed everyone, then answered: the held requests went once a probe was answered.
        ok_failures = sum(records[i].gateway["upstream"]["outage_failures"] for i in ("CCC-0", "LIS-0", "FDS-0"))
        assert ok_failures >= 1  # the others' own requests failed during the outage too (each held, not counted)
        outcomes = Counter(r.outcome for r in requests)
        assert outcomes["fault:500"] >= 3 and outcomes["final"] >= 3, outcomes
        assert "provider down: " in said and "holding the requests" in said, said
        assert "provider answering again after " in said, said
        for item in ("CCC-0", "LIS-0", "FDS-0"):
            record = records[item]
            assert record.status == "ok" and record.correct is not None and record.attempts == 1, (agent, record)
            upstream = record.gateway["upstream"]
            # Held, not failed: none of the provider's failures counted against it and no CLI saw one.
            assert upstream["outage_failures"] == sum(upstream["failures"].values()), (agent, upstream)
            assert not upstream["gave_up"] and upstream["refused"] == 0
            assert record.gateway["http_errors"] == [] and not record.api_retries, (agent, record.gateway)
            # The outage's time is the provider's (provider_wait_s), not the agent's (elapsed_s).
            assert record.provider_wait_s > OUTAGE_S / 2, (agent, record.provider_wait_s)
            wall = json.loads((outcome.store.root / "sandboxes" / record.id / "meta.json").read_text())["exit"]
            assert record.elapsed_s < wall["elapsed_s"] - OUTAGE_S / 2
        poisoned = records["MPT-0"]
        assert poisoned.status == "upstream_error" and not poisoned.correct and poisoned.prediction == ""
        assert "the provider failed: HTTP 500 x" in poisoned.error
        assert "in a row while it answered the run's other requests" in poisoned.error, poisoned.error
        assert poisoned.gateway["upstream"]["gave_up"] and not poisoned.gateway["upstream"]["outage"]


def run_then_resume_alone(agent: str, sample_data, out, results: dict) -> None:
    """`run` over a good item and one the provider always fails, then `run` again: the resume runs the failed
    item alone (were it held as an outage, for the 5 minutes of the bound)."""
    try:
        with ScriptedServer({"turns": ["<answer>1</answer>"]}, faults={"status": 500, "match": "maze"}) as server:
            runs = [run_items(agent, sample_data, out, server, "CCC-0,MPT-0") for _ in range(2)]
            probes = [r for r in server.requests if r.kind == "health_probe"]
        results[agent] = (runs, probes)
    except BaseException as error:  # noqa: BLE001 - reported by the test's thread
        results[agent] = error


def test_an_item_the_provider_always_fails_resumed_alone_ends_its_own_failure_without_being_held(scenarios):
    """Alone, nothing else is answered, so the item's failures look like an outage; the gateway asks the provider
    itself (a small probe to the same model, answered) and ends the item as its own failure at once, instead of
    holding it the outage bound (5 minutes here; before the probe it was held all of it). Both CLIs side by side."""
    for agent in AGENTS:
        (first, _), (resumed, said) = scenarios["resumed_alone"][agent][0]
        probes = scenarios["resumed_alone"][agent][1]
        records = {r.id: r for r in first.store.records()}
        assert records["CCC-0"].status == "ok"
        lines = [json.loads(line) for path in first.store.root.glob("*/items.jsonl") for line in path.open()]
        poisoned = [line for line in lines if line["id"] == "MPT-0"]
        assert [line["status"] for line in poisoned] == ["upstream_error", "upstream_error"], (agent, poisoned)
        # The first run: the other item's answer, or the gateway's probe if the item failed first, made the
        # failures the item's own.
        assert "4 in a row while it answered the " in poisoned[0]["error"], poisoned[0]["error"]
        assert not poisoned[0]["gateway"]["upstream"]["outage"]
        # The resume ran it alone ("1 to run"): the gateway's own probe was answered, so it ended at once.
        assert "1 to run" in said, said
        alone = poisoned[1]
        upstream = alone["gateway"]["upstream"]
        assert upstream["own_evidence"] == "probe" and upstream["gave_up"] and not upstream["outage"], upstream
        assert (
            "the gateway's own probe of the same model: the provider is up, so these failures are this item's "
            in (alone["error"])
        ), alone["error"]
        assert alone["provider_wait_s"] < 60, alone  # held seconds, not the 5-minute bound
        assert probes and {(p.status, p.body["model"]) for p in probes} == {(200, MODELS[agent])}, probes
