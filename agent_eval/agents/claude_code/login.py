"""Claude Code's login file (`~/.claude/.credentials.json`): what the gateway reads and what the sandbox gets."""

from __future__ import annotations

import time
from pathlib import Path

from agent_eval.agents.base import CredentialError

FAR_FUTURE_MS = 10 * 365 * 86400 * 1000  # the inside copy never looks expired: the CLI never refreshes


def dummy_login(data: dict, dummy: str) -> dict:
    oauth = dict(data.get("claudeAiOauth") or {})
    oauth["accessToken"] = dummy
    oauth.pop("refreshToken", None)  # refreshing happens outside (the user's own CLI)
    oauth["expiresAt"] = int(time.time() * 1000) + FAR_FUTURE_MS
    return {"claudeAiOauth": oauth}


def access_token(data: dict, path: Path) -> str:
    oauth = data.get("claudeAiOauth") or {}
    expires = oauth.get("expiresAt")
    if expires and expires < time.time() * 1000:
        raise CredentialError(
            f"the claude login in {path} expired; run `claude` once outside agent-eval to refresh it, then run again"
        )
    return oauth.get("accessToken") or ""
