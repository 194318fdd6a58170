#!/usr/bin/env bash
# The one set-up step: system packages, the Python venv, and the pinned agent CLIs.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages: bubblewrap (the OS sandbox), socat + tinyproxy (its allowlisting network door),
# chromium (the report's browser test), curl (sandbox leak tests).
SYSTEM_PACKAGES="bubblewrap socat tinyproxy-bin chromium curl"
missing=""
for pkg in $SYSTEM_PACKAGES; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing system packages:$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
  else
    echo "setup: missing system packages:$missing" >&2
    echo "setup: run this as root, then 'make setup' again:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
  fi
fi

# Python: an isolated venv with exactly the versions in requirements.lock (pip-compile of pyproject.toml
# with the test and inspect extras; `make lock` regenerates it), then the package itself, editable.
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -r requirements.lock
.venv/bin/python -m pip install -q --no-deps -e .

# The ARC-AGI-3 game toolkit (arc-agi, arcengine) needs Python >= 3.12, agent-eval runs on python3 (3.11):
# the games run under a venv of their own, .venv-arc, with exactly requirements-arc.lock (hashes checked;
# `make lock-arc` regenerates it). No such Python: one line, and every other kind works without it.
arc_python=""
for cand in ${ARC_PYTHON:-} python3.12 python3.13 python3 \
    $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -V); do
  p=$(command -v "$cand" 2>/dev/null) || continue
  if "$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then arc_python=$p; break; fi
done
if [ -n "$arc_python" ]; then
  [ -x .venv-arc/bin/python ] || "$arc_python" -m venv .venv-arc
  .venv-arc/bin/python -m pip install -q --require-hashes -r requirements-arc.lock
  echo "setup: ARC-AGI-3 game toolkit in .venv-arc ($(.venv-arc/bin/python --version))"
else
  echo "setup: no Python >= 3.12 (PATH, ~/.pyenv/versions): ARC-AGI-3 games unavailable, every other kind works"
fi

# Agent CLIs: exactly the versions in package-lock.json, inside the project.
npm ci --no-audit --no-fund --loglevel=error
echo "setup: done. claude $(node_modules/.bin/claude --version 2>/dev/null | head -1); codex $(node_modules/.bin/codex --version 2>/dev/null | head -1)"
