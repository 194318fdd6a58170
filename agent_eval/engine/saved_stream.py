"""One saved event stream through an adapter's parser and the failure table, as the record fields it would
give (`agent-eval parse`): for debugging a CLI's output, and for checking a parser fix against real
transcripts before `regrade --reparse` applies it to a run."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path

from agent_eval.agents import get_agent
from agent_eval.agents.failures import classify
from agent_eval.benchmarks.answers import extract_answer
from agent_eval.datamodel.process_result import ProcessResult
from agent_eval.datamodel.transcript import saved_events


def parse_saved_stream(
    agent_name: str, stream: Path, rollout: Path | None = None, exit_code: int = 0, model: str = ""
) -> dict:
    """The record fields this stream gives: parsed by the agent's adapter (its Codex rollout where given),
    classified by the failure table, as `run` and `regrade --reparse` would."""
    agent = get_agent(agent_name)
    with tempfile.TemporaryDirectory(prefix="agent-eval-parse-") as scratch:
        item_dir = Path(scratch)
        if rollout is not None:  # where the Codex adapter looks for it in an item's private home
            sessions = item_dir / "home" / ".codex" / "sessions"
            sessions.mkdir(parents=True)
            shutil.copyfile(rollout, sessions / "rollout-saved.jsonl")
        events = saved_events(stream)
        transcript = agent.parse(events, item_dir, model)
    result = ProcessResult(exit_code=exit_code, events=events)
    outcome = classify(result, transcript, extract_answer(transcript.final_text)[1], timeout_s=0)
    return {
        "status": outcome.status,
        "error": outcome.error,
        "events": len(events),
        "usage": asdict(transcript.usage),
        "usage_by_model": transcript.usage_by_model,
        "cost_usd": transcript.cost_usd,
        "num_turns": transcript.num_turns,
        "tool_calls": transcript.tool_calls,
        "api_retries": transcript.api_retries,
        "unknown_events": transcript.unknown_events,
        "error_status": transcript.error_status,
        "final_text": transcript.final_text,
        "steps": [
            {"kind": s.kind, "tool": s.tool, "text": s.text[:200], "images": s.images, "is_error": s.is_error}
            for s in transcript.steps
        ],
    }
