"""Codex's login file (`~/.codex/auth.json`): a ChatGPT login's tokens, or a plain API key
(`codex login --with-api-key`). What the gateway reads and what the sandbox gets."""

from __future__ import annotations

import base64
import time
from pathlib import Path


def holds_api_key(data: dict) -> bool:
    return bool(data.get("OPENAI_API_KEY"))


def dummy_login(data: dict, dummy: str) -> dict:
    if data.get("OPENAI_API_KEY"):
        return {"OPENAI_API_KEY": dummy, "tokens": None}
    tokens = dict(data.get("tokens") or {})
    out = {k: v for k, v in data.items() if k not in ("tokens", "OPENAI_API_KEY")}
    out["OPENAI_API_KEY"] = None
    out["tokens"] = {
        "id_token": _unsigned_jwt(tokens.get("id_token")),  # its claims (plan, account) without the signature
        "access_token": dummy,
        "refresh_token": "agent-eval-gateway-no-refresh",
        "account_id": tokens.get("account_id"),
    }
    out["last_refresh"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())  # no proactive refresh
    return out


def access_token(data: dict, path: Path) -> str:
    if data.get("OPENAI_API_KEY"):
        return data["OPENAI_API_KEY"]
    return (data.get("tokens") or {}).get("access_token") or ""


def _unsigned_jwt(jwt: str | None) -> str | None:
    """The same header and claims, a signature that proves nothing: the CLI only decodes the claims."""
    if not jwt or jwt.count(".") != 2:
        return jwt and "agent-eval.gateway.dummy"
    header, claims, _ = jwt.split(".")
    return f"{header}.{claims}.{base64.urlsafe_b64encode(b'agent-eval-gateway').decode().rstrip('=')}"
