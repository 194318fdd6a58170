"""Headless Debian chromium, as the report tests drive it (installed by make setup: missing is a failure, not a
skip)."""

import shutil
import subprocess

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def chromium(tmp_path, *args, url):
    # `make setup` installs chromium: a missing browser is a failed setup, not a reason to skip.
    assert shutil.which(CHROMIUM), "chromium is not installed: run `make setup` (apt-get install chromium)"
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        "--enable-logging=stderr",
        "--v=0",
        *args,
        url,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)
