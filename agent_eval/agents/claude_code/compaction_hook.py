"""Claude Code's compaction point, seen and blocked by a PreCompact hook (a game's --context handoff:cli).

Checked with 2.1.332 headless (`-p`, stream-json) against the scripted server (docs/cli-notes.md, "Context
compaction"; tests/e2e/test_compaction_hook_e2e.py): a PreCompact command hook given with `--settings FILE` runs
with `--setting-sources ""` too; before the request that would be compacted it gets its input on stdin (one JSON
object: session_id, transcript_path, cwd, hook_event_name "PreCompact", trigger "auto", custom_instructions) and
its exit status 2 blocks the compaction: the stream shows `system/status` "compacting" then `status: null` with
no `compact_result`, no summary request is sent, the request goes out uncompacted, and the hook runs again before
each later request while the context stays past the point. Its stderr reaches neither the model nor the stream.

The hook runs inside the item's sandbox (same paths), so it only appends to a file in the CLI's home and exits 2:
whatever else fails, the compaction stays blocked."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

SETTINGS_FILE = "agent-eval-settings.json"  # in the CLI's config dir, given with --settings
HOOK_TIMEOUT_S = 10


def hook_settings(signal: Path) -> dict:
    """Settings whose PreCompact hook appends its input to `signal` (a line each time) and blocks the compaction."""
    where = shlex.quote(str(signal))
    command = f"cat >> {where}; echo >> {where}; exit 2"
    return {"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}]}]}}


def write_settings(config_dir: Path, signal: Path) -> Path:
    """The settings file for --settings (the caller passes its path)."""
    path = config_dir / SETTINGS_FILE
    path.write_text(json.dumps(hook_settings(signal)), encoding="utf-8")
    return path
