"""What the run's gateway tells a kind of its item's model context, as the item runs: the context each answer
reports (ItemSetup.on_context), the images each request carries (on_request_images), and the moment the CLI
reaches its own compaction point (on_compaction_point: a game's --context handoff:cli).

The compaction point is seen as each CLI allows (docs/cli-notes.md, "Context compaction"):

- a CLI whose PreCompact hook blocks its compaction (`Agent.hook_blocks_compaction`: Claude Code) keeps its point;
  the adapter installs a hook that appends its input to SIGNAL in the CLI's home and blocks. The hook runs before
  the request that would have been compacted; as that request's answer streams by (its usage, before any tool call
  of it reaches a tool), the new line is read here and the kind is told.
- a CLI whose hook cannot block (Codex 0.171) runs with its compaction off, and its own threshold for the model
  (`Agent.compaction_point`) is compared here with the context each answer reports.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from agent_eval.agents.base import Agent
from agent_eval.benchmarks.base import ItemSetup
from agent_eval.engine.gateway.ledger import Ledger

SIGNAL = "compaction-points.jsonl"  # in the CLI's home: a line each time its hook blocked a compaction


def context_tokens(usage: dict) -> int:
    """The model's context after one answer: what it read (cached included) and what it wrote."""
    return int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0)


class ContextWatch:
    """One item's watch (its attempt's sessions share it); `signal` is what ItemContext.compaction_signal gets."""

    def __init__(self, setup: ItemSetup, agent: Agent, model: str, home: Path):
        self.setup = setup
        self.agent = agent.name
        self.model = model
        told = setup.on_compaction_point is not None
        self.signal = home / SIGNAL if told and agent.hook_blocks_compaction else None
        self.point = agent.compaction_point(model) if told and self.signal is None else None
        if told and self.signal is None and self.point is None:
            raise ValueError(f"{agent.name} has no compaction hook that can block and no known compaction point")
        self._read = self.signal.stat().st_size if self.signal is not None and self.signal.exists() else 0
        self._lock = threading.Lock()

    def install(self, ledger: Ledger) -> None:
        if self.setup.on_context is not None or self.setup.on_compaction_point is not None:
            ledger.on_usage = self.usage
        ledger.on_request_images = self.setup.on_request_images

    def usage(self, usage: dict) -> None:
        """An answer's usage as it streams by (the gateway's thread)."""
        tokens = context_tokens(usage)
        if self.setup.on_context is not None:
            self.setup.on_context(tokens)
        tell = self.setup.on_compaction_point
        if tell is None:
            return
        if self.point is not None and tokens >= self.point:
            tell(f"the context reached {tokens} tokens, {self.agent}'s own threshold for {self.model} ({self.point})")
        for fired in self._hook_fired():
            tell(f"{self.agent}'s PreCompact hook blocked its compaction (trigger {fired.get('trigger') or '?'})")

    def _hook_fired(self) -> list[dict]:
        """The hook's lines written since the last look (each the hook's input; {} for one that does not parse)."""
        if self.signal is None:
            return []
        with self._lock:
            try:
                with self.signal.open("rb") as handle:
                    handle.seek(self._read)
                    text = handle.read()
            except FileNotFoundError:
                return []
            end = text.rfind(b"\n") + 1  # a line still being written waits for the next look
            self._read += end
        fired = []
        for line in text[:end].decode(errors="replace").splitlines():
            if line.strip():
                try:
                    fired.append(json.loads(line))
                except ValueError:
                    fired.append({})
        return fired
