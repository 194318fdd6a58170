"""The gateway's own probe (engine/gateway/health_probe.py) tells an item the provider always fails from an
outage without waiting the outage bound out, with nothing else running: the run's gateway against the scripted
model server (its faults: one item's prompt failing, the whole provider down, the run's model down), both wires.
The real CLIs on the same path: tests/e2e/test_outage_e2e.py."""

from __future__ import annotations

import http.client
import json
import re
import urllib.error
import urllib.request

import pytest

from agent_eval.agents.base import Auth
from agent_eval.engine.gateway import Gateway
from agent_eval.engine.gateway.health_probe import PROBE_TEXT, probe_body
from agent_eval.engine.gateway.upstream_health import ITEM_FAILURES
from agent_eval.scripted import ScriptedServer

REAL = "sk-REAL-" + "x" * 24
WIRES = {  # agent -> (its credential variable, the gateway path its CLI posts to, a request body)
    "claude-code": ("ANTHROPIC_API_KEY", "/v1/messages"),
    "codex": ("OPENAI_API_KEY", "/responses"),
}
MODELS = {"claude-code": "claude-probe-test", "codex": "gpt-probe-test"}


def body(agent: str, prompt: str) -> dict:
    model = MODELS[agent]
    if agent == "claude-code":
        return {
            "model": model,
            "max_tokens": 100,
            "stream": True,
            "system": "You are a coding agent.\nPrimary working directory: /work",  # (a main request, not a side one)
            "messages": [{"role": "user", "content": prompt}],
        }
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}
    return {"model": model, "stream": True, "store": False, "instructions": "You are Codex.", "input": [user]}


def gateway_for(agent: str, url: str, hold_s: float) -> Gateway:
    variable, _ = WIRES[agent]
    base = url if agent == "claude-code" else url + "/v1"
    return Gateway(agent, Auth("custom_endpoint", ["x"], env={variable: REAL}, base_url=base), outage_hold_s=hold_s)


def send(gateway: Gateway, lease, agent: str, prompt: str) -> tuple[int, str | None]:
    """One CLI request through the gateway: (status, x-should-retry), the answer read whole (status 0: cut)."""
    variable, path = WIRES[agent]
    dummy = lease.auth.env[variable]
    headers = {"Content-Type": "application/json"}
    headers.update({"x-api-key": dummy} if agent == "claude-code" else {"Authorization": f"Bearer {dummy}"})
    request = urllib.request.Request(
        gateway.base_url + path, data=json.dumps(body(agent, prompt)).encode(), method="POST", headers=headers
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            answer.read()
            return answer.status, answer.headers.get("x-should-retry")
    except urllib.error.HTTPError as failed:
        return failed.code, failed.headers.get("x-should-retry")
    except http.client.IncompleteRead:  # a cut stream (its start had reached the CLI)
        return 0, None


def a_cli_retrying(gateway, lease, agent: str, prompt: str, tries: int = 4) -> list[tuple[int, str | None]]:
    """Like a CLI: sends again after a failure until it is told not to (or answered)."""
    codes = []
    for _ in range(tries):
        codes.append(send(gateway, lease, agent, prompt))
        if codes[-1][0] == 200 or codes[-1][1] == "false":
            break
    return codes


@pytest.mark.parametrize("agent", list(WIRES))
def test_an_item_the_provider_always_fails_alone_ends_its_own_failure_without_waiting_the_bound(agent):
    """Nothing else runs: the item's first failure looks like an outage, so the gateway probes the same model;
    the provider answers the probe, and the item's failures are its own: counted, the gateway gives up after
    ITEM_FAILURES of them, well inside an outage bound of 10 minutes, and the verdict says why."""
    with ScriptedServer({"turns": ["<answer>1</answer>"]}, faults={"status": 500, "match": "maze"}) as server:
        with gateway_for(agent, server.url, hold_s=600.0) as gateway, gateway.lease() as lease:
            codes = a_cli_retrying(gateway, lease, agent, "Which way through the maze?")
            refused = send(gateway, lease, agent, "Which way through the maze?")
        probes = [r for r in server.requests if r.kind == "health_probe"]
        failed = [r for r in server.main_requests() if r.outcome == "fault:500"]
    assert codes == [(500, None), (500, "false")] and refused == (400, "false")
    health = lease.upstream
    assert health.gave_up and not health.held_in_outage and health.failures_in_a_row == ITEM_FAILURES
    assert health.outage_failures >= 1 and health.own_evidence == "probe"
    assert len(failed) == ITEM_FAILURES + health.outage_failures  # nothing more reached the provider
    # The probe: the same model, the same wire and path, the CLI's envelope, a one-line question, answered.
    assert probes and {(p.status, p.body["model"], p.path) for p in probes} == {(200, MODELS[agent], failed[0].path)}
    original = body(agent, "x")
    assert probes[0].body == json.loads(json.dumps(probe_body(server.requests[0].api, MODELS[agent], original)))
    assert PROBE_TEXT in json.dumps(probes[0].body) and "maze" not in json.dumps(probes[0].body)
    assert gateway.probes.answered >= 1 and gateway.spend.session_usd == 0.0  # (a test model has no price)
    verdict = health.verdict()
    assert (
        "while it answered the gateway's own probe of the same model: the provider is up, so these failures "
        in (verdict)
        and "are this item's own, not an outage" in verdict
    ), verdict
    assert health.to_json()["own_evidence"] == "probe" and not health.to_json()["outage"]


@pytest.mark.parametrize("agent", list(WIRES))
@pytest.mark.parametrize(
    "faults",
    [{"status": 500}, {"truncate": True}, {"status": 500, "model": "probe-test"}],
    ids=["provider-down", "every-stream-cut", "the-model-down"],
)
def test_an_outage_is_held_to_the_bound_the_probe_failing_too(agent, faults):
    """The provider (or the run's model) fails everyone: the probe to the same model fails as well, so the item's
    request is held as an outage, its failures never counted, until the bound (2 s here), then refused."""
    with ScriptedServer({"turns": ["<answer>1</answer>"]}, faults=faults) as server:
        with gateway_for(agent, server.url, hold_s=2.0) as gateway, gateway.lease() as lease:
            codes = a_cli_retrying(gateway, lease, agent, "Which way through the maze?", tries=3)
        probes = [r for r in server.requests if r.kind == "health_probe"]
    health = lease.upstream
    assert codes[-1] == (400, "false") and health.gave_up and health.held_in_outage >= 2.0
    assert health.failures_in_a_row == 0 and health.own_evidence is None
    assert re.search(r"it answered no request of the run while this item's was held \d+s", health.verdict())
    assert probes and all(p.body["model"] == MODELS[agent] for p in probes)
    assert all(p.outcome in ("fault:500", "truncate") for p in probes)
    assert gateway.probes.answered == 0 and gateway.probes.sent == len(probes)
