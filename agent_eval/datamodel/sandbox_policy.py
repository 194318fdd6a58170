"""sandbox/policy.yaml read: what an agent's world may hold and reach (the agent adapters read its endpoints;
the engine's sandbox builds command lines from it; the ARC-AGI-3 game jail shares its system binds)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

PROJECT_ROOT = Path(__file__).resolve().parents[2]
POLICY_PATH = PROJECT_ROOT / "sandbox" / "policy.yaml"


class SandboxError(RuntimeError):
    pass


class SandboxStartFailed(SandboxError):
    """One item's sandbox did not start (its proxy did not come up, e.g. on a machine under heavy load): the
    item's failure (`sandbox_error`, run again on resume), not the run's."""


@dataclass(frozen=True)
class MemoryDir:
    """A folder of the CLI's own state that nothing reads back (caches, state databases, bundled files): in the
    sandbox it is a tmpfs, so the CLI's writes there never reach the disk and leave with the sandbox. Only what it
    holds when the CLI starts (what the adapter wrote: config, ...) and the entries named in `kept` (folders the
    CLI writes what the harness reads back into: its session log) are the folder's on disk, bound into it."""

    path: Path
    kept: tuple[str, ...] = ()


@lru_cache(maxsize=None)
def load_policy(path: Path = POLICY_PATH) -> dict[str, Any]:
    with open(path) as f:
        policy = yaml.safe_load(f)
    if not isinstance(policy, dict) or policy.get("version") != 1:
        raise SandboxError(f"{path}: unsupported policy version {policy.get('version')!r}")
    return policy


def policy_endpoints(agent: str, auth: str) -> list[str]:
    """The policy's endpoint list for an agent ("claude-code", "codex") and auth kind."""
    table = load_policy()["network"]["endpoints"]
    try:
        return list(table[agent][auth])
    except KeyError:
        raise SandboxError(f"sandbox/policy.yaml lists no endpoints for {agent}/{auth}") from None


def system_binds(readonly: list[str], usr_links: list[str]) -> list[str]:
    """bwrap options for the system's read-only folders and the /usr-merged links (/bin -> usr/bin, ...):
    links are recreated as links, folders bound read-only. A read-only path that is a link into another of them
    stays that link: /etc/localtime -> /usr/share/zoneinfo/Etc/UTC names the time zone by its target, and bound as
    a plain file it names none (Claude Code then reads about 1,300 files of /usr/share/zoneinfo to find which zone
    it is, every start: docs/performance.md, 6f)."""
    o: list[str] = []
    for p in readonly:
        if _links_within(p, readonly):
            o += ["--symlink", os.readlink(p), p]
        else:
            o += ["--ro-bind-try", p, p]
    for p in usr_links:
        if os.path.islink(p):
            o += ["--symlink", os.readlink(p), p]
        elif os.path.isdir(p):
            o += ["--ro-bind", p, p]
    return o


def _links_within(path: str, readonly: list[str]) -> bool:
    """Whether `path` is a link to something inside another of the read-only folders."""
    if not os.path.islink(path):
        return False
    target = os.path.realpath(path)
    return any(target.startswith(root.rstrip("/") + "/") for root in readonly if root != path)


def confined_process(hostname: str, uid: int = 65534) -> list[str]:
    """bwrap's options for a third-party process confined outside the agent's sandbox (a game, a browser): every
    namespace its own (the network an empty loopback), an unprivileged user, no capabilities, gone with its
    parent, a session of its own (no terminal to write into)."""
    return [
        "--unshare-all",
        "--unshare-user",
        *("--uid", str(uid), "--gid", str(uid)),
        "--die-with-parent",
        "--new-session",
        *("--cap-drop", "ALL"),
        *("--hostname", hostname),
    ]
