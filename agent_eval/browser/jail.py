"""The page host's jail: a game page is third-party code, so the browser that runs it (Playwright's driver and
Chromium, started by page_host.py) lives in a bubblewrap jail of its own.

Its own user, pid, IPC, UTS and network namespaces: the network is an empty loopback, so nothing the page
asks for leaves the jail (every request is answered by the host itself: the game's folder, the pinned
libraries, or a refusal) and nothing outside (the agent's sandbox included) can reach the browser or the
page. Read-only: the system's /usr and libraries, the fonts, the Python that runs the host (its venv, with
Playwright), this package's folder, the game's folder and the pinned libraries' folders. A private /tmp
(the browser's fresh profile) and /dev/shm. No home, no results folder, no project checkout."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from agent_eval.datamodel.sandbox_policy import confined_process, load_policy, system_binds

PACKAGE_DIR = Path(__file__).resolve().parent
# What Python, Playwright's node driver and Chromium read from /etc (fonts, locale, the loader, Chromium's own).
SYSTEM_READONLY = [
    "/usr",
    "/etc/alternatives",
    "/etc/fonts",
    "/etc/localtime",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/chromium",
    "/etc/chromium.d",
    "/etc/ssl",
]


class JailMissing(RuntimeError):
    """bubblewrap is not installed: the browser games cannot run confined (so they do not run)."""


def python_dirs() -> list[Path]:
    """The folders the running Python needs: its venv (Playwright lives there) and the installation under it."""
    dirs = [Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(sys.executable).resolve().parent]
    return list(dict.fromkeys(d for d in dirs if not _under_usr(d)))


def _under_usr(path: Path) -> bool:
    return path == Path("/usr") or Path("/usr") in path.parents


def jail_argv(readonly: list[Path]) -> list[str]:
    """bwrap's command line up to `--`: the jail, with `readonly` folders bound at their own paths."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise JailMissing("browser games need bubblewrap (apt-get install bubblewrap, or `make setup`)")
    o = [bwrap, *confined_process("browser")]
    o += system_binds(SYSTEM_READONLY, load_policy()["usr_links"])
    o += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
    # this package and the package's __init__ (the page host imports agent_eval.browser.libraries)
    for path in [*python_dirs(), PACKAGE_DIR, PACKAGE_DIR.parent / "__init__.py", *readonly]:
        o += ["--ro-bind", str(path), str(path)]
    return [*o, "--setenv", "HOME", "/tmp", "--chdir", "/tmp", "--"]
