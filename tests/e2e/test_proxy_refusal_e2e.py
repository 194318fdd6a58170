"""When the sandbox's proxy refuses the model API (a 403 of its own), both real CLIs' items end as
`sandbox_error` naming the refused URL: not `auth_error`, which would stop the run and send the user
to their credential. Here the item's allowlist is made to lack the run's gateway."""

from __future__ import annotations

import dataclasses
import os
import signal

import pytest

from agent_eval.datamodel.results import read_records
from agent_eval.engine.gateway import server as gateway_server
from agent_eval.engine.proxy_jail import ItemProxy, ProxyError
from agent_eval.scripted import ScriptedServer
from support.agentrun import AGENTS, run_agent, wait_until_gone


@pytest.mark.parametrize("agent", AGENTS)
def test_a_refused_endpoint_is_a_sandbox_error_not_an_auth_error(agent, sample_data, tmp_path, monkeypatch):
    real = gateway_server.inside_auth

    def gateway_not_allowed(*args, **kwargs):
        auth = real(*args, **kwargs)
        return dataclasses.replace(auth, endpoints=["127.0.0.1:9"])  # the CLI still gets the gateway's URL

    monkeypatch.setattr(gateway_server, "inside_auth", gateway_not_allowed)
    with ScriptedServer({"turns": [{"final": "<answer>A</answer>"}]}) as server:
        outcome = run_agent(
            agent, "none", server, sample_data, tmp_path / "out", ids="RC-0", run_name="r", timeout_s=120
        )
        reached = list(server.requests)
    record = outcome.store.records()[0]
    assert reached == []  # nothing got past the proxy
    assert record.status == "sandbox_error", (record.status, record.error)
    refused = record.error.split("the sandbox's proxy refused ", 1)[1].split(" (not an allowed endpoint")[0]
    assert "http://127.0.0.1:" in refused and "sandbox/policy.yaml" in record.error  # codex also tries github.com
    assert outcome.stopped_for_auth is None


def test_a_sandbox_that_does_not_start_fails_its_item_not_the_run(sample_data, tmp_path, monkeypatch):
    """A proxy that does not come up for one item (seen on a loaded machine: "the sandbox's proxy did not
    start") is that item's sandbox_error, run again on resume; the run's other items run, and nothing crashes.
    The proxy is awaited once the CLI has started (Sandbox.ready): the CLI is stopped, and nothing of it is left."""
    real = ItemProxy.ready
    failed: list[str] = []

    def first_fails(proxy):
        if not failed:
            failed.append("once")
            raise ProxyError("the sandbox's proxy did not start: (injected)")
        return real(proxy)

    monkeypatch.setattr(ItemProxy, "ready", first_fails)
    with ScriptedServer({"turns": [{"final": "<answer>A</answer>"}]}) as server:
        outcome = run_agent("codex", "none", server, sample_data, tmp_path / "out", ids="RC-0,MPT-0", jobs=1)
    records = {r.id: r for r in outcome.store.records()}
    statuses = sorted(r.status for r in records.values())
    assert statuses == ["ok", "sandbox_error"], statuses
    broken = next(r for r in records.values() if r.status == "sandbox_error")
    assert "the item's sandbox did not start" in broken.error and "(injected)" in broken.error
    assert outcome.stopped_for_auth is None

    assert not wait_until_gone(str(tmp_path))  # the CLI it had started (its sandbox, its config) is gone
    # Resumed, the failed item runs again (and now starts).
    monkeypatch.setattr(ItemProxy, "ready", real)
    with ScriptedServer({"turns": [{"final": "<answer>A</answer>"}]}) as server:
        run_agent("codex", "none", server, sample_data, tmp_path / "out", ids="RC-0,MPT-0", jobs=1)
        assert len(server.requests) >= 1
    assert sorted(r.status for r in outcome.store.latest_records().values()) == ["ok", "ok"]


def test_a_sandbox_that_a_sigterm_stops_is_left_for_the_resume(sample_data, tmp_path, monkeypatch):
    """Slurm's preemption or requeue sends SIGTERM to every process of the job at once: an item whose proxy jail
    dies of it while starting is not recorded as a sandbox_error (seen in CI: that record, then the resume's, made
    the item count twice). The run stops; the resume runs the item, and it is recorded once."""
    real = ItemProxy.ready

    def terminated_while_starting(proxy):
        monkeypatch.setattr(ItemProxy, "ready", real)
        os.kill(os.getpid(), signal.SIGTERM)  # to the runner (its handler stops the run) ...
        raise ProxyError("the proxy jail has exited: ")  # ... and to the jail, which dies of it

    monkeypatch.setattr(ItemProxy, "ready", terminated_while_starting)
    scenario = {"turns": [{"final": "<answer>A</answer>"}]}
    with ScriptedServer(scenario) as server:
        outcome = run_agent("codex", "none", server, sample_data, tmp_path / "out", ids="RC-0,MPT-0", jobs=1)
    assert outcome.interrupted and list(outcome.store.records()) == []

    with ScriptedServer(scenario) as server:
        resumed = run_agent("codex", "none", server, sample_data, tmp_path / "out", ids="RC-0,MPT-0", jobs=1)
    assert not resumed.interrupted
    appended = [r for task in outcome.store.task_dirs() for r in read_records(task / "items.jsonl")[0]]
    assert sorted((r.id, r.status) for r in appended) == [("MPT-0", "ok"), ("RC-0", "ok")]  # every line, once each
