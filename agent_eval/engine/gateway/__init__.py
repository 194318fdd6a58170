"""The model gateway: the user's credential stays outside every sandbox.

`Gateway` (server.py) runs once per run on 127.0.0.1; each item's CLI gets a dummy credential and
the gateway's URL (credentials.py), the gateway adds the real credential and streams the answer
back, and records what reached the API per item (traffic.py reads it, ledger.py keeps it, item.py
writes it); credential_check.py is `doctor`'s proof that a sandbox cannot find the credential.
`Redactor` (redact.py) removes any known secret from what the harness writes. docs/sandbox.md draws the request path.
"""

from agent_eval.engine.gateway.credentials import CredentialError, secret_values
from agent_eval.engine.gateway.item import record_item
from agent_eval.engine.gateway.redact import Redactor
from agent_eval.engine.gateway.server import Gateway, Lease

__all__ = ["Gateway", "Lease", "Redactor", "CredentialError", "record_item", "secret_values"]
