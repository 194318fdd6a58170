"""Sessions that outlive the harness, the adapters' half: the command that starts or continues a session,
whether the CLI's own record can be continued, and the parsers on streams of several sessions (shapes
as the pinned CLIs print them, docs/cli-notes.md "Sessions"; the values are made up here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_eval.agents.base import Auth, ItemContext, SessionPlan
from agent_eval.agents.claude_code.adapter import ClaudeCode
from agent_eval.agents.claude_code.session_file import project_dir_name
from agent_eval.agents.codex.adapter import Codex
from agent_eval.agents.codex.events import UNFINISHED
from agent_eval.agents.sessions import SESSION_MARKER
from agent_eval.datamodel.transcript import Transcript
from agent_eval.tools.toolset import ToolSet

SID = "7b1f8a52-3c1e-4b8e-9a55-0c2f6f1d9e10"
THREAD = "01a23610-855c-7c33-a570-3cc9bea2eb15"


def marker(n, kind, reason, session_id=None):
    return {"type": SESSION_MARKER, "n": n, "kind": kind, "reason": reason, "session_id": session_id, "at": f"t{n}"}


def context(tmp_path, session=None, images=()):
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "work").mkdir(exist_ok=True)
    auth = Auth("custom_endpoint", ["127.0.0.1:9"], env={"ANTHROPIC_API_KEY": "k"}, base_url="http://127.0.0.1:9")
    return ItemContext(
        item_id="g",
        model="m",
        effort=None,
        max_turns=None,
        prompt="the harness restarted; go on with the game",
        workdir=tmp_path / "work",
        home=tmp_path / "home",
        tools=ToolSet(shell=True),
        inline_images=list(images),
        auth=auth,
        session=session,
    )


# -- the plan and the commands -----------------------------------------------------------------------


def test_a_resume_needs_an_id_and_kinds_are_named():
    with pytest.raises(ValueError):
        SessionPlan("resume", None)
    with pytest.raises(ValueError):
        SessionPlan("continue", SID)
    assert SessionPlan("new", None).session_id is None


def test_claude_sets_the_id_of_a_new_session_and_resumes_with_the_note_and_images(tmp_path):
    claude = ClaudeCode()
    new_id = claude.new_session_id()
    assert new_id and new_id != claude.new_session_id() and len(new_id) == 36
    argv = claude.prepare(context(tmp_path, SessionPlan("new", new_id))).argv
    assert argv[argv.index("--session-id") + 1] == new_id and "--resume" not in argv
    image = tmp_path / "frame.png"
    image.write_bytes(b"\x89PNG fake")
    invocation = claude.prepare(context(tmp_path, SessionPlan("resume", SID), images=[image]))
    assert invocation.argv[invocation.argv.index("--resume") + 1] == SID and "--session-id" not in invocation.argv
    message = json.loads(invocation.stdin)
    kinds = [block["type"] for block in message["message"]["content"]]
    assert kinds == ["image", "text"] and "harness restarted" in message["message"]["content"][1]["text"]
    assert "--resume" not in claude.prepare(context(tmp_path)).argv  # no plan: as before


def test_codex_continues_the_thread_with_execs_own_flags_before_resume(tmp_path):
    codex = Codex()
    assert codex.new_session_id() is None  # Codex picks the thread id itself
    image = tmp_path / "work" / "frame.png"
    ctx = context(tmp_path, SessionPlan("resume", THREAD), images=[image])
    ctx.auth = Auth("custom_endpoint", ["127.0.0.1:9"], env={"OPENAI_API_KEY": "k"}, base_url="http://127.0.0.1:9/v1")
    argv = codex.prepare(ctx).argv
    assert argv[-3:] == ["resume", THREAD, "-"]
    assert argv.index("--json") < argv.index("resume") and argv.index(f"--image={image}") < argv.index("resume")
    assert "danger-full-access" in argv
    new = codex.prepare(context(tmp_path, SessionPlan("new", None))).argv
    assert "resume" not in new and new[-1] == "-"


# -- can_resume ------------------------------------------------------------------------------------


def claude_record(home: Path, workdir: Path, session_id: str, lines: list[dict]) -> Path:
    path = home / ".claude" / "projects" / project_dir_name(workdir) / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def claude_lines(session_id):
    return [
        {"type": "queue-operation", "operation": "enqueue", "sessionId": session_id},
        {"type": "user", "sessionId": session_id, "message": {"role": "user", "content": "play"}},
        {"type": "assistant", "sessionId": session_id, "message": {"role": "assistant", "content": []}},
    ]


def test_claude_can_resume_a_whole_record_and_one_with_a_torn_last_line(tmp_path):
    claude, home, work = ClaudeCode(), tmp_path / "home", tmp_path / "work"
    work.mkdir()
    assert project_dir_name(Path("/tmp/a_b.c/work")) == "-tmp-a-b-c-work"
    assert not claude.can_resume(home, work, SID)  # missing
    path = claude_record(home, work, SID, claude_lines(SID))
    assert claude.can_resume(home, work, SID)
    with path.open("a") as torn:
        torn.write('{"type":"user","message":{"role":"us')  # what SIGKILL mid-write leaves
    assert claude.can_resume(home, work, SID)
    assert not claude.can_resume(home, tmp_path / "elsewhere", SID)  # the record is kept per cwd
    other = "0c9d7c5e-2b7a-4a43-8f6e-3a0b9b7a1d22"
    claude_record(home, work, other, claude_lines(other)[:1])  # killed at its start: no message yet
    assert not claude.can_resume(home, work, other)
    path.unlink()
    assert not claude.can_resume(home, work, SID)


def codex_rollout(home: Path, thread: str, entries: list[dict]) -> Path:
    path = home / ".codex" / "sessions" / "2026" / "12" / "02" / f"rollout-2026-12-02T09-23-02-{thread}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    return path


def rollout_head(thread=THREAD):
    return [
        {"type": "session_meta", "payload": {"id": thread, "session_id": thread}},
        {"type": "event_msg", "payload": {"type": "task_started"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": []}},
    ]


def test_codex_can_resume_a_whole_rollout_and_one_with_a_torn_last_line(tmp_path):
    codex, home, work = Codex(), tmp_path / "home", tmp_path / "work"
    assert not codex.can_resume(home, work, THREAD)  # missing
    path = codex_rollout(home, THREAD, rollout_head())
    assert codex.can_resume(home, work, THREAD)
    with path.open("a") as torn:
        torn.write('{"timestamp":"2026-12-02T09:23:02.212Z","type":"resp')
    assert codex.can_resume(home, work, THREAD)
    other = "01a23611-0000-7000-8000-000000000001"
    codex_rollout(home, other, rollout_head(other)[:2])  # no user message yet: nothing to go on with
    assert not codex.can_resume(home, work, other)
    path.unlink()
    assert not codex.can_resume(home, work, THREAD)


# -- Claude Code: several sessions in one stream -----------------------------------------------------


def claude_init(session_id=SID):
    return {"type": "system", "subtype": "init", "session_id": session_id, "model": "claude-opus-4-8", "tools": []}


def claude_message(message_id, *blocks, input_tokens=100):
    usage = {"input_tokens": input_tokens, "cache_read_input_tokens": 40, "output_tokens": 1}
    return {
        "type": "assistant",
        "session_id": SID,
        "message": {"id": message_id, "model": "claude-opus-4-8", "content": list(blocks), "usage": usage},
    }


def tool_use(call_id, command):
    return {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}


def tool_result(call_id, text):
    return {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": call_id, "content": text}]}}


def claude_result(text, inputs, outputs, cost, turns):
    return {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": text,
        "num_turns": turns,
        "session_id": SID,
        "total_cost_usd": cost,
        "usage": {"input_tokens": 100, "cache_read_input_tokens": 40, "output_tokens": 20},
        "modelUsage": {
            "claude-opus-4-8": {
                "inputTokens": inputs,
                "cacheReadInputTokens": 40 * inputs // 100,
                "cacheCreationInputTokens": 0,
                "outputTokens": outputs,
                "costUSD": cost,
            }
        },
    }


CLAUDE_CUT = [  # two API messages, the second cut while its tool ran: no result
    claude_init(),
    claude_message("msg_1", {"type": "text", "text": "first"}),
    claude_message("msg_1", tool_use("toolu_1", "echo MARK")),  # same message: counted once
    tool_result("toolu_1", "MARK"),
    claude_message("msg_2", tool_use("toolu_2", "sleep 30")),
]


def test_claude_two_sessions_the_first_cut_make_one_transcript(tmp_path):
    events = [
        marker(1, "new", "start", SID),
        *CLAUDE_CUT,
        marker(2, "resume", "harness restarted", SID),
        claude_init(),
        claude_message("msg_3", {"type": "text", "text": "<answer>4</answer>"}),
        # after a cut session the CLI restored no totals: the result counts this process alone
        claude_result("<answer>4</answer>", inputs=100, outputs=20, cost=0.001, turns=1),
    ]
    t = ClaudeCode().parse(events, tmp_path, "claude-opus-4-8")
    assert [s.kind for s in t.steps] == ["text", "tool_call", "tool_result", "tool_call", "text"]
    assert t.tool_calls == 2 and t.final_text == "<answer>4</answer>" and t.error is None
    assert [(s["n"], s["kind"], s["reason"], s["session_id"], s["at"], s["first_step"]) for s in t.sessions] == [
        (1, "new", "start", SID, "t1", 0),
        (2, "resume", "harness restarted", SID, "t2", 4),
    ]
    # the cut session: each message's streamed usage once (input whole, output as message_start gave it)
    assert t.usage.input_tokens == 2 * 140 + 140 and t.usage.cached_input_tokens == 3 * 40
    assert t.usage.output_tokens == 2 * 1 + 20
    assert t.num_turns == 2 + 1 and t.cost_usd == pytest.approx(0.001)
    assert t.unknown_events == {}  # the markers are not unknown events
    assert Transcript.from_json(json.loads(json.dumps(t.to_json()))).sessions == t.sessions


def test_claude_a_resume_after_a_clean_end_counts_only_its_own_usage(tmp_path):
    # --resume restores the totals the last clean exit saved: result 3's modelUsage and cost include result 1's.
    events = [
        marker(1, "new", "start", SID),
        claude_init(),
        claude_message("msg_1", {"type": "text", "text": "<answer>1</answer>"}),
        claude_result("<answer>1</answer>", inputs=100, outputs=20, cost=0.001, turns=1),
        marker(2, "resume", "harness restarted", SID),
        *CLAUDE_CUT,
        marker(3, "resume", "harness restarted", SID),
        claude_init(),
        claude_message("msg_9", {"type": "text", "text": "<answer>9</answer>"}),
        claude_result("<answer>9</answer>", inputs=300, outputs=60, cost=0.003, turns=2),
    ]
    t = ClaudeCode().parse(events, tmp_path, "claude-opus-4-8")
    assert t.usage.input_tokens == 140 + 2 * 140 + (300 - 100) * 140 // 100
    assert t.usage.output_tokens == 20 + 2 + 40
    assert t.cost_usd == pytest.approx(0.003)  # session 1 + session 3's own; the cut one reported none
    assert t.num_turns == 1 + 2 + 2 and t.final_text == "<answer>9</answer>"
    assert [s["first_step"] for s in t.sessions] == [0, 1, 5]
    assert t.usage_by_model["claude-opus-4-8"]["output_tokens"] == 62


def test_claude_the_last_sessions_error_is_the_outcome(tmp_path):
    events = [
        marker(1, "new", "start", SID),
        claude_init(),
        claude_message("msg_1", {"type": "text", "text": "<answer>1</answer>"}),
        claude_result("<answer>1</answer>", inputs=100, outputs=20, cost=0.001, turns=1),
        marker(2, "resume", "harness restarted", SID),
        {
            **claude_result("API Error: 500", 0, 0, 0, 0),
            **{"is_error": True, "modelUsage": {}, "usage": {"input_tokens": 0}, "api_error_status": 500},
        },
    ]
    t = ClaudeCode().parse(events, tmp_path, "claude-opus-4-8")
    assert t.final_text is None and t.error_status == 500 and t.usage.output_tokens == 20


def test_a_stream_without_markers_parses_as_before(tmp_path):
    events = [claude_init(), claude_message("m", {"type": "text", "text": "hi"}), claude_result("hi", 100, 20, 0.1, 1)]
    t = ClaudeCode().parse(events, tmp_path, "claude-opus-4-8")
    assert t.sessions == [] and t.final_text == "hi" and t.usage.output_tokens == 20
    assert Transcript.from_json({"agent": "codex", "steps": []}).sessions == []  # an older steps.json


# -- Codex: several sessions in one stream -----------------------------------------------------------


def item(kind, item_id, **fields):
    return {"type": "item.completed", "item": {"id": item_id, "type": kind, **fields}}


def command(item_id, cmd, output):
    return item("command_execution", item_id, command=cmd, aggregated_output=output, exit_code=0)


def record(n):
    usage = {"input_tokens": 100 * n, "cached_input_tokens": 40 * n, "output_tokens": 20 * n}
    return {"type": "token_usage_record", "payload": {"usage": {**usage, "reasoning_output_tokens": 5 * n}}}


def call(call_id, cmd, output=True):
    entries = [
        {"type": "response_item", "payload": {"type": "function_call", "name": "exec_command", "call_id": call_id}}
    ]
    if output:
        entries.append({"type": "response_item", "payload": {"type": "function_call_output", "call_id": call_id}})
    return entries


CODEX_EVENTS = [
    marker(1, "new", "start"),
    {"type": "thread.started", "thread_id": THREAD},
    {"type": "turn.started"},
    item("agent_message", "item_0", text="first"),
    command("item_1", "echo MARK", "MARK\n"),
    {"type": "item.started", "item": {"id": "item_2", "type": "command_execution", "command": "sleep 30"}},
    marker(2, "resume", "harness restarted", THREAD),
    {"type": "thread.started", "thread_id": THREAD},
    {"type": "turn.started"},
    command("item_0", "echo AGAIN", "AGAIN\n"),
    item("agent_message", "item_1", text="<answer>4</answer>"),
    # the running total: session 1's first response (its last token_count) + this session's two
    {"type": "turn.completed", "usage": {"input_tokens": 300, "cached_input_tokens": 120, "output_tokens": 60}},
]


def test_codex_two_sessions_the_first_cut_count_every_logged_response(tmp_path):
    codex_rollout(
        tmp_path / "home",
        THREAD,
        [
            *rollout_head(),
            record(1),
            *call("c1", "echo MARK"),
            record(1),  # the cut session's second response: logged, though no token_count followed
            *call("c2", "sleep 30", output=False),
            {"type": "event_msg", "payload": {"type": "task_started"}},
            record(1),
            *call("c3", "echo AGAIN"),
            record(1),
        ],
    )
    t = Codex().parse(CODEX_EVENTS, tmp_path, "gpt-5.5")
    assert [(s.kind, s.call_id) for s in t.steps] == [
        ("text", None),
        ("tool_call", "item_1"),
        ("tool_result", "item_1"),
        ("tool_call", "item_2"),  # the call the session was cut in: made, as Claude Code's is counted
        ("tool_result", "item_2"),  # (a note: no result came)
        ("tool_call", "s2.item_0"),  # item ids restart in every exec
        ("tool_result", "s2.item_0"),
        ("text", None),
    ]
    assert t.steps[4].text == UNFINISHED and t.tool_calls == 3
    assert t.usage.input_tokens == 400 and t.usage.output_tokens == 80 and t.usage.reasoning_tokens == 20
    assert t.num_turns == 4 and t.final_text == "<answer>4</answer>" and t.error is None
    assert [(s["n"], s["kind"], s["session_id"], s["first_step"]) for s in t.sessions] == [
        (1, "new", THREAD, 0),  # the id Codex reported, which the marker of a new session cannot know
        (2, "resume", THREAD, 5),
    ]
    assert t.usage_by_model["gpt-5.5"]["input_tokens"] == 400


def test_codex_without_the_rollout_counts_the_running_totals_once(tmp_path):
    t = Codex().parse(CODEX_EVENTS, tmp_path, "gpt-5.5")
    assert t.usage.input_tokens == 300 and t.usage.output_tokens == 60  # nothing counted twice
    assert t.num_turns == 2 + 2  # tool rounds + 1 per session when the rollout is gone
    again = [
        *CODEX_EVENTS,
        marker(3, "resume", "harness restarted", THREAD),
        {"type": "thread.started", "thread_id": THREAD},
        {"type": "turn.started"},
        item("agent_message", "item_0", text="<answer>5</answer>"),
        {"type": "turn.completed", "usage": {"input_tokens": 400, "cached_input_tokens": 160, "output_tokens": 80}},
    ]
    t = Codex().parse(again, tmp_path, "gpt-5.5")
    assert t.usage.input_tokens == 400 and t.final_text == "<answer>5</answer>"


def test_events_before_the_first_marker_are_the_first_session(tmp_path):
    # e.g. a stream begun before markers existed, then continued by a version that writes them
    events = [
        claude_init(),
        claude_message("msg_1", {"type": "text", "text": "<answer>1</answer>"}),
        claude_result("<answer>1</answer>", inputs=100, outputs=20, cost=0.001, turns=1),
        marker(2, "resume", "harness restarted", SID),
        claude_init(),
        claude_message("msg_2", {"type": "text", "text": "<answer>2</answer>"}),
        claude_result("<answer>2</answer>", inputs=200, outputs=40, cost=0.002, turns=1),
    ]
    t = ClaudeCode().parse(events, tmp_path, "claude-opus-4-8")
    assert [(s["n"], s["kind"], s["reason"], s["session_id"], s["first_step"]) for s in t.sessions] == [
        (1, "new", "start", SID, 0),
        (2, "resume", "harness restarted", SID, 1),
    ]
    assert t.usage.output_tokens == 40 and t.cost_usd == pytest.approx(0.002) and t.num_turns == 2


def test_the_session_id_is_the_clis_word_not_the_markers(tmp_path):
    other = "0c9d7c5e-2b7a-4a43-8f6e-3a0b9b7a1d22"
    assert ClaudeCode().session_id_of([marker(1, "new", "start", other)]) is None
    assert ClaudeCode().session_id_of([marker(1, "new", "start", other), claude_init(SID)]) == SID
    assert Codex().session_id_of(CODEX_EVENTS) == THREAD and Codex().session_id_of([marker(1, "new", "s")]) is None


def cost_state(inputs, cost):
    usage = {"inputTokens": inputs, "cacheReadInputTokens": 40 * inputs // 100, "outputTokens": inputs // 5}
    return {"type": "cost-state", "sessionId": SID, "totalCostUSD": cost, "modelUsage": {"claude-opus-4-8": usage}}


def test_claude_takes_off_what_a_killed_process_saved_in_the_record(tmp_path):
    # Session 1 ended cleanly (3 calls, its cost state saved) after the harness had stopped reading it: its
    # result is not in the stream, yet the resumed process started from those totals. The record tells.
    enqueue = {"type": "queue-operation", "operation": "enqueue", "sessionId": SID}
    claude_record(
        tmp_path / "home",
        tmp_path / "work",
        SID,
        [enqueue, *claude_lines(SID)[1:], cost_state(300, 0.003), enqueue, cost_state(400, 0.004)],
    )
    resumed = claude_result("<answer>4</answer>", inputs=400, outputs=80, cost=0.004, turns=1)
    events = [marker(1, "new", "start", SID), *CLAUDE_CUT, marker(2, "resume", "again", SID), claude_init(), resumed]
    t = ClaudeCode().parse(events, tmp_path, "claude-opus-4-8")
    assert t.usage.input_tokens == 2 * 140 + 140  # the cut session's stream, then the resumed one's own call
    assert t.cost_usd == pytest.approx(0.001) and t.usage.output_tokens == 2 + 20


def test_a_fresh_session_after_a_lost_record_is_counted_on_its_own(tmp_path):
    fresh = "0c9d7c5e-2b7a-4a43-8f6e-3a0b9b7a1d22"
    events = [
        marker(1, "new", "start", SID),
        claude_init(),
        claude_message("msg_1", {"type": "text", "text": "<answer>1</answer>"}),
        claude_result("<answer>1</answer>", inputs=100, outputs=20, cost=0.001, turns=1),
        marker(2, "new", "session transcript missing", fresh),
        claude_init(fresh),
        claude_message("msg_2", {"type": "text", "text": "<answer>2</answer>"}),
        {**claude_result("<answer>2</answer>", inputs=100, outputs=20, cost=0.001, turns=1), "session_id": fresh},
    ]
    t = ClaudeCode().parse(events, tmp_path, "claude-opus-4-8")
    assert [(s["kind"], s["reason"], s["session_id"]) for s in t.sessions] == [
        ("new", "start", SID),
        ("new", "session transcript missing", fresh),
    ]
    assert t.usage.output_tokens == 40 and t.cost_usd == pytest.approx(0.002)  # another id: nothing taken off
