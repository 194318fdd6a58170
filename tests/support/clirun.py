"""Driving the agent-eval command line in tests: in process (invoke) or as the installed executable (AGENT_EVAL)."""

import json
import sys
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from agent_eval.cli import main

AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")


def invoke(*args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env)


def count_ids(run_dir: Path) -> Counter:
    ids = Counter()
    for path in run_dir.glob("*/items.jsonl"):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if record["status"] in ("ok", "no_answer"):
                ids[record["id"]] += 1
    return ids
