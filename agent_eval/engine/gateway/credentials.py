"""Where the user's credential lives: outside. What the sandbox gets instead: a per-item dummy.

`RealCredential` is what the gateway adds to each forwarded request (read from the user's
environment, or re-read from their login file on every request so a token their own CLI
refreshed is picked up). `inside_auth` is the `Auth` the sandboxed CLI is given: the same
kind of credential, but every secret replaced by a dummy `sk-agent-eval-gateway-<item>-<n>`
that only identifies the item to the gateway, and the gateway's loopback URL as its endpoint.
docs/sandbox.md tabulates what remains inside for each CLI and login kind.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from agent_eval.agents.base import Agent, Auth, CredentialError
from agent_eval.agents.registry import agent_class, names
from agent_eval.engine.scratch_dirs import owned_dir

DUMMY_PREFIX = "sk-agent-eval-gateway-"
DUMMY_PATTERN = re.compile(re.escape(DUMMY_PREFIX) + r"([0-9a-f]{16})-([0-9]+)")
MIN_SECRET_LEN = 8  # shorter strings are not redacted (they would hit ordinary text)

__all__ = [
    "CredentialError",
    "RealCredential",
    "dummy",
    "inside_auth",
    "real_credential",
    "secret_env",
    "secret_values",
]


def secret_env() -> tuple[str, ...]:
    """Every registered CLI's credential variables (base URLs are not secrets), in registry order."""
    return tuple(dict.fromkeys(name for agent in names() for name in agent_class(agent).secret_env))


def dummy(token: str, n: int) -> str:
    return f"{DUMMY_PREFIX}{token}-{n}"


@dataclass
class RealCredential:
    """The secrets, in slot order (slot n is what dummy `...-n` stands for), and the real endpoint."""

    agent: str
    auth: Auth
    upstream: str
    slots: list[Callable[[], str]]

    def value(self, slot: int) -> str:
        return self.slots[slot]()


def real_credential(agent: str, auth: Auth) -> RealCredential:
    """The credential's formats (login files, default endpoints) are the agent adapter's to know."""
    cli = agent_class(agent)
    env_secrets = [name for name in secret_env() if auth.env.get(name)]
    source = "file" if auth.files and not env_secrets else "env"
    if source == "file" and cli.login_holds_api_key(_read(next(iter(auth.files.values())), quiet=True)):
        source = "env"  # e.g. `codex login --with-api-key` stores a plain API key in auth.json
    upstream = auth.base_url if auth.kind == "custom_endpoint" and auth.base_url else cli.upstreams[source]
    slots: list[Callable[[], str]]
    if source == "env":
        slots = [_constant(auth.env[name]) for name in env_secrets]
    else:
        login_file = next(iter(auth.files.values()))
        slots = [lambda: cli.login_access_token(_read(login_file), login_file)]
    return RealCredential(agent, auth, upstream.rstrip("/"), slots)


def _constant(value: str) -> Callable[[], str]:
    return lambda: value


def secret_values(auth: Auth) -> list[str]:
    """Every secret the run was given: the credential variables, and every token-like string in a
    login file (access, refresh and id tokens, API keys stored there). For redaction."""
    secret_names = secret_env()
    values = [v for k, v in auth.env.items() if k in secret_names and v]
    for path in auth.files.values():
        try:
            values += [s for s in _strings(json.loads(Path(path).read_text())) if len(s) >= 16]
        except (OSError, ValueError):
            pass
    return sorted({v for v in values if len(v) >= MIN_SECRET_LEN}, key=len, reverse=True)


def inside_auth(agent: str, auth: Auth, token: str, base_url: str, scratch: Path) -> Auth:
    """The Auth handed to the sandboxed CLI: dummies for secrets, the gateway as endpoint, and
    dummy login files written under `scratch` (copied into the private home as before)."""
    cli: type[Agent] = agent_class(agent)
    gateway = base_url.split("://", 1)[1].split("/", 1)[0]
    endpoint = {cli.endpoint_env: base_url} if cli.endpoint_env else {}
    env_secrets = [name for name in secret_env() if auth.env.get(name)]
    if env_secrets:
        env = {name: dummy(token, n) for n, name in enumerate(env_secrets)}
        return Auth("custom_endpoint", [gateway], env={**env, **endpoint}, base_url=base_url)
    files = {}
    for name, path in auth.files.items():
        target = scratch / Path(name).name
        target.write_text(json.dumps(cli.dummy_login(_read(path), dummy(token, 0))))
        files[name] = target
    return Auth("login", [gateway], env=endpoint, files=files, base_url=base_url)


def _read(path: Path, quiet: bool = False) -> dict:
    """A login file's JSON object (quiet: {} when it cannot be read)."""
    try:
        data = json.loads(Path(path).read_text())
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return data
    except (OSError, ValueError) as e:
        if quiet:
            return {}
        raise CredentialError(f"cannot read the login file {path}: {e}") from None


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def scratch_dir() -> Path:
    return owned_dir("agent-eval-gateway-")  # named after this process: removed by a later run if it dies
