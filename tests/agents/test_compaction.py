"""The CLIs' own context compaction, the adapters' half: the command that turns it off, the record of each
compaction, and the end of a session whose context was full (event shapes as the pinned CLIs printed them
against the scripted server, docs/cli-notes.md "Context compaction"; ids and sizes shortened here)."""

from __future__ import annotations

import json
from pathlib import Path

from agent_eval.agents.base import Auth, ItemContext
from agent_eval.agents.claude_code.adapter import ClaudeCode
from agent_eval.agents.codex.adapter import NO_COMPACTION_WINDOW, Codex
from agent_eval.agents.sessions import SESSION_MARKER
from agent_eval.datamodel.transcript import Transcript
from agent_eval.tools.toolset import ToolSet

THREAD = "01a2362c-8c3d-7722-8cd8-645deab4f1fe"


def context(tmp_path: Path, auto_compact: bool, env_key: str = "ANTHROPIC_API_KEY") -> ItemContext:
    for name in ("home", "work"):
        (tmp_path / name).mkdir(exist_ok=True)
    auth = Auth("custom_endpoint", ["127.0.0.1:9"], env={env_key: "k"}, base_url="http://127.0.0.1:9/v1")
    return ItemContext(
        "g", "m", None, None, "play", tmp_path / "work", tmp_path / "home", ToolSet(shell=True), [], auth,
        auto_compact=auto_compact,
    )  # fmt: skip


def marker(n: int) -> dict:
    return {"type": SESSION_MARKER, "n": n, "kind": "new", "reason": "handoff" if n > 1 else "start", "at": f"t{n}"}


def claude_text(text: str, model: str = "claude-opus-4-8") -> dict:
    return {"type": "assistant", "message": {"model": model, "content": [{"type": "text", "text": text}]}}


def claude_call(n: int) -> list[dict]:
    call = {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": f"echo A{n}"}}
    result = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": f"A{n}", "is_error": False}
    return [
        {"type": "assistant", "message": {"model": "claude-opus-4-8", "content": [call]}},
        {"type": "user", "message": {"role": "user", "content": [result]}},
    ]


COMPACT_BOUNDARY = {
    "type": "system",
    "subtype": "compact_boundary",
    "uuid": "59c0db98",
    "compact_metadata": {
        "trigger": "auto",
        "pre_tokens": 970039,
        "post_tokens": 703,
        "cumulative_dropped_tokens": 969336,
        "duration_ms": 25,
        "preserved_segment": {"head_uuid": "39377f47", "anchor_uuid": "0bc8f0c1", "tail_uuid": "803dde87"},
    },
    "logical_parent_uuid": "803dde87",
    "session_id": "dad1abdc",
}
COMPACTING = [
    {"type": "system", "subtype": "status", "status": "compacting", "compact_output_chars": 0},
    {"type": "system", "subtype": "status", "status": None, "compact_result": "success"},
]
SUMMARY_MESSAGE = {  # what the stream echoes after the boundary: the summary as the next user message
    "type": "user",
    "message": {"role": "user", "content": [{"type": "text", "text": "This session is being continued from a "
                                             "previous conversation that ran out of context. ..."}]},
}  # fmt: skip


def claude_result(**fields) -> dict:
    base = {"type": "result", "subtype": "success", "is_error": False, "result": "<answer>done</answer>",
            "terminal_reason": "completed", "api_error": None, "api_error_status": None, "num_turns": 5}  # fmt: skip
    return {**base, **fields}


def claude_game(compacted: bool) -> list[dict]:
    events = [claude_text("one"), *claude_call(1), claude_text("two"), *claude_call(2)]
    if compacted:
        events += [*COMPACTING, COMPACT_BOUNDARY, SUMMARY_MESSAGE]
    return events + [claude_text("three"), *claude_call(3), claude_text("<answer>done</answer>"), claude_result()]


# -- Claude Code -------------------------------------------------------------------------------------


def test_claude_compaction_is_recorded_before_the_step_that_followed_it(tmp_path):
    transcript = ClaudeCode().parse(claude_game(compacted=True), tmp_path, "claude-opus-4-8")
    assert transcript.compactions == [{"at": 6, "trigger": "auto", "pre_tokens": 970039, "session": 1}]
    assert transcript.steps[6].text == "three" and transcript.steps[5].text == "A2"
    assert "system/compact_boundary" not in transcript.unknown_events
    assert ClaudeCode().parse(claude_game(compacted=False), tmp_path, "m").compactions == []


def test_compactions_of_several_sessions_are_placed_in_the_joined_steps(tmp_path):
    first = [marker(1), *claude_game(compacted=True)]
    second = [marker(2), claude_text("four"), *claude_call(4), *COMPACTING, COMPACT_BOUNDARY, claude_result()]
    transcript = ClaudeCode().parse(first + second, tmp_path, "claude-opus-4-8")
    second_starts = transcript.sessions[1]["first_step"]
    assert second_starts == 10
    assert [(c["at"], c["session"]) for c in transcript.compactions] == [(6, 1), (second_starts + 3, 2)]


def test_claude_compaction_off_sets_its_switch_and_only_then(tmp_path):
    claude = ClaudeCode()
    assert claude.prepare(context(tmp_path, auto_compact=False)).env["DISABLE_AUTO_COMPACT"] == "1"
    assert "DISABLE_AUTO_COMPACT" not in claude.prepare(context(tmp_path, auto_compact=True)).env


def test_claude_a_full_context_is_told_apart_from_other_failures():
    claude = ClaudeCode()
    blocked = claude_result(is_error=True, result="Prompt is too long", terminal_reason="blocking_limit")
    refused = claude_result(
        is_error=True, result="Prompt is too long", terminal_reason="prompt_too_long", api_error_status=400
    )
    thrashing = claude_result(
        is_error=True,
        api_error="autocompact_thrashing",
        terminal_reason="rapid_refill_breaker",
        result="Autocompact is thrashing: the context refilled to the limit within 3 turns of the previous "
        "compact, 3 times in a row. ...",
    )
    synthetic = claude_text("Prompt is too long", model="<synthetic>")
    for result in (blocked, refused, thrashing):
        assert claude.ran_out_of_context([*claude_call(1), synthetic, result])
    other = claude_result(is_error=True, result="API Error: 500", api_error_status=500, terminal_reason="api_error")
    assert not claude.ran_out_of_context([*claude_call(1), other])
    assert not claude.ran_out_of_context(claude_game(compacted=True))  # compacted, then went on
    assert not claude.ran_out_of_context([*claude_call(1)])  # cut before its result: nothing said
    # only the last session counts: an earlier one that ran out was handed off already
    assert not claude.ran_out_of_context([marker(1), blocked, marker(2), *claude_call(1)])


# -- Codex -------------------------------------------------------------------------------------------


OUT_OF_ROOM = (
    "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying."
)


def codex_call(n: int) -> list[dict]:
    item = {"id": f"item_{n}", "type": "command_execution", "command": f"/bin/bash -lc 'echo A{n}'"}
    return [
        {"type": "item.completed", "item": {"id": f"item_m{n}", "type": "agent_message", "text": f"say {n}"}},
        {"type": "item.started", "item": {**item, "aggregated_output": "", "exit_code": None}},
        {"type": "item.completed", "item": {**item, "aggregated_output": f"A{n}\n", "exit_code": 0}},
    ]


def rollout_entry(kind: str, payload: dict | None = None) -> dict:
    return {"timestamp": "2026-12-02T09:53:38.000Z", "type": kind, "payload": payload or {}}


def rollout_call(n: int, total: int) -> list[dict]:
    usage = {"input_tokens": total - 10, "output_tokens": 10, "total_tokens": total}
    return [
        rollout_entry("response_item", {"type": "message", "role": "assistant", "content": []}),
        rollout_entry("response_item", {"type": "function_call", "name": "exec_command", "call_id": f"call_{n}"}),
        rollout_entry("token_usage_record", {"thread_id": THREAD, "usage": usage}),
        rollout_entry("response_item", {"type": "function_call_output", "call_id": f"call_{n}", "output": "A"}),
        rollout_entry("event_msg", {"type": "token_count", "info": {"last_token_usage": usage}}),
    ]


def write_rollout(item_dir: Path, entries: list[dict]) -> None:
    folder = item_dir / "home" / ".codex" / "sessions" / "2026" / "12" / "02"
    folder.mkdir(parents=True)
    meta = rollout_entry("session_meta", {"id": THREAD})
    start = rollout_entry("event_msg", {"type": "task_started", "model_context_window": 258400})
    lines = [json.dumps(e) for e in [meta, start, *entries]]
    (folder / f"rollout-2026-12-02T09-53-38-{THREAD}.jsonl").write_text("\n".join(lines) + "\n")


SUMMARY = [  # what Codex 0.171 logs of an automatic compaction mid-turn (exec --json prints nothing of it)
    rollout_entry("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text"}]}),
    rollout_entry("token_usage_record", {"thread_id": THREAD, "usage": {"output_tokens": 20, "total_tokens": 120}}),
    rollout_entry("event_msg", {"type": "token_count", "info": {"last_token_usage": {"total_tokens": 120}}}),
    rollout_entry("compacted", {"message": "Another language model started to solve this problem ...",
                                "replacement_history": []}),
    rollout_entry("event_msg", {"type": "item_completed", "item": {"type": "ContextCompaction", "id": "01a2"}}),
]  # fmt: skip


def test_codex_compaction_is_read_from_the_rollout(tmp_path):
    events = [{"type": "thread.started", "thread_id": THREAD}, {"type": "turn.started"}]
    events += codex_call(1) + codex_call(2) + codex_call(3)
    events += [{"type": "turn.completed", "usage": {"input_tokens": 300400, "output_tokens": 60}}]
    write_rollout(tmp_path, rollout_call(1, 110) + rollout_call(2, 300010) + SUMMARY + rollout_call(3, 110))
    transcript = Codex().parse(events, tmp_path, "gpt-5.5")
    assert transcript.compactions == [{"at": 6, "trigger": "auto", "pre_tokens": 300010, "session": 1}]
    assert transcript.steps[6].text == "say 3" and transcript.steps[5].text == "A2\n"
    assert transcript.num_turns == 4  # the summary was a response too


def test_codex_compaction_off_raises_every_limit_it_compacts_at(tmp_path):
    codex = Codex()
    ctx = context(tmp_path, auto_compact=False, env_key="OPENAI_API_KEY")
    argv = codex.prepare(ctx).argv
    switches = [argv[i + 1] for i, a in enumerate(argv) if a == "-c"]
    assert f"model_context_window={NO_COMPACTION_WINDOW}" in switches
    assert f"model_auto_compact_token_limit={NO_COMPACTION_WINDOW}" in switches
    catalog = json.loads((ctx.home / ".codex" / "model-catalog.json").read_text())
    assert {m["max_context_window"] for m in catalog["models"]} == {NO_COMPACTION_WINDOW}
    argv = codex.prepare(context(tmp_path, auto_compact=True, env_key="OPENAI_API_KEY")).argv
    switches = [argv[i + 1] for i, a in enumerate(argv) if a == "-c"]
    assert not any(s.startswith(("model_context_window", "model_auto_compact")) for s in switches)
    catalog = json.loads((ctx.home / ".codex" / "model-catalog.json").read_text())
    assert NO_COMPACTION_WINDOW not in {m["max_context_window"] for m in catalog["models"]}


def test_codex_running_out_of_room_is_told_apart_from_other_failures(tmp_path):
    codex = Codex()
    ran_out = [
        {"type": "thread.started", "thread_id": THREAD},
        {"type": "turn.started"},
        *codex_call(1),
        {"type": "error", "message": OUT_OF_ROOM},
        {"type": "turn.failed", "error": {"message": OUT_OF_ROOM}},
    ]
    assert codex.ran_out_of_context(ran_out)
    transcript = codex.parse(ran_out, tmp_path, "gpt-5.5")
    assert transcript.error.startswith("Codex ran out of room") and transcript.final_text is None
    refused = json.dumps({"error": {"message": "Your input exceeds the context window of this model."}})
    assert not codex.ran_out_of_context([*ran_out[:-2], {"type": "turn.failed", "error": {"message": refused}}])
    assert not codex.ran_out_of_context([*ran_out[:-1]])  # its turn not over yet
    done = {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}}
    assert not codex.ran_out_of_context([marker(1), *ran_out, marker(2), {"type": "turn.started"}, done])


def test_old_transcripts_read_without_compactions():
    old = {"agent": "codex", "steps": [], "schema_version": 3, "sessions": []}
    assert Transcript.from_json(old).compactions == []
    saved = Transcript(agent="codex", compactions=[{"at": 0, "trigger": "auto", "pre_tokens": 5, "session": 1}])
    assert Transcript.from_json(saved.to_json()).compactions == saved.compactions
