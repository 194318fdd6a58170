"""Where the user's credential lives: outside. What the sandbox gets instead: a per-item dummy.

`RealCredential` is what the gateway adds to each forwarded request (read from the user's
environment, or re-read from their login file on every request so a token their own CLI
refreshed is picked up). `inside_auth` is the `Auth` the sandboxed CLI is given: the same
kind of credential, but every secret replaced by a dummy `sk-agent-eval-gateway-<item>-<n>`
that only identifies the item to the gateway, and the gateway's loopback URL as its endpoint.
docs/sandbox.md tabulates what remains inside for each CLI and login kind.
"""
from __future__ import annotations

import base64
import json
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from agent_eval.agents.base import Auth

DUMMY_PREFIX = "sk-agent-eval-gateway-"
DUMMY_PATTERN = re.compile(re.escape(DUMMY_PREFIX) + r"([0-9a-f]{16})-([0-9]+)")
# Environment variables that hold a secret (base URLs do not).
SECRET_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "OPENAI_API_KEY", "CODEX_API_KEY")
UPSTREAMS = {  # the real endpoint when the user names none (ANTHROPIC_BASE_URL / OPENAI_BASE_URL)
    ("claude-code", "env"): "https://api.anthropic.com",
    ("claude-code", "file"): "https://api.anthropic.com",
    ("codex", "env"): "https://api.openai.com/v1",
    ("codex", "file"): "https://chatgpt.com/backend-api/codex",   # a ChatGPT login's backend
}
FAR_FUTURE_MS = 10 * 365 * 86400 * 1000   # the inside copy never looks expired: the CLI never refreshes
MIN_SECRET_LEN = 8                         # shorter strings are not redacted (they would hit ordinary text)


class CredentialError(RuntimeError):
    """The user's credential cannot be used (e.g. their login token expired): says what to do."""


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
    env_secrets = [name for name in SECRET_ENV if auth.env.get(name)]
    source = "file" if auth.files and not env_secrets else "env"
    if source == "file" and agent == "codex" and _codex_file_api_key(next(iter(auth.files.values()))):
        source = "env"    # `codex login --with-api-key` stores a plain API key in auth.json
    upstream = auth.base_url if auth.kind == "custom_endpoint" and auth.base_url else UPSTREAMS[(agent, source)]
    if source == "env":
        slots = [(lambda value=auth.env[name]: value) for name in env_secrets]
    else:
        login_file = next(iter(auth.files.values()))
        slots = [lambda: _login_access_token(agent, login_file)]
    return RealCredential(agent, auth, upstream.rstrip("/"), slots)


def secret_values(auth: Auth) -> list[str]:
    """Every secret the run was given: the credential variables, and every token-like string in a
    login file (access, refresh and id tokens, API keys stored there). For redaction."""
    values = [v for k, v in auth.env.items() if k in SECRET_ENV and v]
    for path in auth.files.values():
        try:
            values += [s for s in _strings(json.loads(Path(path).read_text())) if len(s) >= 16]
        except (OSError, ValueError):
            pass
    return sorted({v for v in values if len(v) >= MIN_SECRET_LEN}, key=len, reverse=True)


def inside_auth(agent: str, auth: Auth, token: str, base_url: str, scratch: Path) -> Auth:
    """The Auth handed to the sandboxed CLI: dummies for secrets, the gateway as endpoint, and
    dummy login files written under `scratch` (copied into the private home as before)."""
    gateway = base_url.split("://", 1)[1].split("/", 1)[0]
    env_secrets = [name for name in SECRET_ENV if auth.env.get(name)]
    if env_secrets:
        env = {name: dummy(token, n) for n, name in enumerate(env_secrets)}
        if agent == "claude-code":
            env["ANTHROPIC_BASE_URL"] = base_url
        return Auth("custom_endpoint", [gateway], env=env, base_url=base_url)
    files = {}
    for name, path in auth.files.items():
        data = json.loads(Path(path).read_text())
        target = scratch / Path(name).name
        target.write_text(json.dumps(_dummy_login(agent, data, token)))
        files[name] = target
    env = {"ANTHROPIC_BASE_URL": base_url} if agent == "claude-code" else {}
    return Auth("login", [gateway], env=env, files=files, base_url=base_url)


def _dummy_login(agent: str, data: dict, token: str) -> dict:
    """The user's login file with every secret replaced; what identifies the account stays."""
    if agent == "claude-code":
        oauth = dict(data.get("claudeAiOauth") or {})
        oauth["accessToken"] = dummy(token, 0)
        oauth.pop("refreshToken", None)          # refreshing happens outside (the user's own CLI)
        oauth["expiresAt"] = int(time.time() * 1000) + FAR_FUTURE_MS
        return {"claudeAiOauth": oauth}
    if data.get("OPENAI_API_KEY"):
        return {"OPENAI_API_KEY": dummy(token, 0), "tokens": None}
    tokens = dict(data.get("tokens") or {})
    out = {k: v for k, v in data.items() if k not in ("tokens", "OPENAI_API_KEY")}
    out["OPENAI_API_KEY"] = None
    out["tokens"] = {
        "id_token": _unsigned_jwt(tokens.get("id_token")),   # its claims (plan, account) without the signature
        "access_token": dummy(token, 0),
        "refresh_token": "agent-eval-gateway-no-refresh",
        "account_id": tokens.get("account_id"),
    }
    out["last_refresh"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())   # no proactive refresh
    return out


def _unsigned_jwt(jwt: str | None) -> str | None:
    """The same header and claims, a signature that proves nothing: the CLI only decodes the claims."""
    if not jwt or jwt.count(".") != 2:
        return jwt and "agent-eval.gateway.dummy"
    header, claims, _ = jwt.split(".")
    return f"{header}.{claims}.{base64.urlsafe_b64encode(b'agent-eval-gateway').decode().rstrip('=')}"


def _login_access_token(agent: str, path: Path) -> str:
    """The current access token from the user's login file (re-read: their own CLI may refresh it)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise CredentialError(f"cannot read the login file {path}: {e}") from None
    if agent == "claude-code":
        oauth = data.get("claudeAiOauth") or {}
        expires = oauth.get("expiresAt")
        if expires and expires < time.time() * 1000:
            raise CredentialError(f"the claude login in {path} expired; run `claude` once outside agent-eval to "
                                  "refresh it, then run again")
        return oauth.get("accessToken") or ""
    if data.get("OPENAI_API_KEY"):
        return data["OPENAI_API_KEY"]
    return (data.get("tokens") or {}).get("access_token") or ""


def _codex_file_api_key(path: Path) -> bool:
    try:
        return bool(json.loads(Path(path).read_text()).get("OPENAI_API_KEY"))
    except (OSError, ValueError, AttributeError):
        return False


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def scratch_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="agent-eval-gateway-"))
