"""The model gateway: the user's credential stays outside every sandbox.

`Gateway` (server.py) runs once per run on 127.0.0.1; each item's CLI gets a dummy credential and
the gateway's URL (credentials.py), the gateway adds the real credential and streams the answer
back, and records what reached the API per item (traffic.py reads it, ledger.py keeps it and appends
each request to the item's gateway.jsonl, datamodel/gateway_journal.py reads those files back in every form, for
the read path too, while a run goes; item.py writes the item's totals); prefix.py finds where each request's prompt
stops extending its session's previous one (a prompt-cache break) and why, from hashes; planted_break.py is the
tests' planted break; credential_check.py is `doctor`'s proof that a sandbox cannot find the credential.
spend.py prices every answer and keeps the spend caps (a request past one never leaves). limiter.py
is the run's one rate limiter (concurrency, the provider's waits, a breaker on its failures);
upstream_health.py keeps each item's dealings with the provider (holds, give-up, the upstream_error
verdict); usage_limit.py recognises a subscription's usage limit (Claude's, ChatGPT's) and keeps the run's wait
for its window to reset; health_probe.py is the gateway's own small request to the same model when a failure looks like
an outage (answered: the provider is up, the item's failures are its own). `Redactor` (redact.py) removes
any known secret from what the harness writes. docs/sandbox.md draws the request path.
"""

from agent_eval.engine.gateway.credentials import CredentialError, secret_values
from agent_eval.engine.gateway.item import apply_spend, past_usage_bound, record_item
from agent_eval.engine.gateway.redact import Redactor
from agent_eval.engine.gateway.server import Gateway, Lease
from agent_eval.engine.gateway.spend import RunSpend, SpendLimits

__all__ = [
    "Gateway",
    "Lease",
    "Redactor",
    "CredentialError",
    "RunSpend",
    "SpendLimits",
    "apply_spend",
    "past_usage_bound",
    "record_item",
    "secret_values",
]
