"""The adapters' parsers and the failure table on event streams shaped like the ones real Claude Code
and Codex runs print (shapes from public fixtures and issue threads; the values are made up here)."""

import json

import pytest
from click.testing import CliRunner

from agent_eval.agents.claude_code.events import HIDDEN_THINKING, parse_claude_events
from agent_eval.agents.codex.events import parse_codex_events
from agent_eval.agents.failures import classify
from agent_eval.benchmarks.activevision.scoring import extract_answer
from agent_eval.cli import main
from agent_eval.datamodel.process_result import ProcessResult


def outcome(transcript, exit_code=0):
    return classify(ProcessResult(exit_code=exit_code), transcript, extract_answer(transcript.final_text)[1], 60)


def claude_result(**fields):
    base = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "num_turns": 3,
        "result": "<answer>B</answer>",
        "total_cost_usd": 0.2629,
        "api_error_status": None,
    }
    return {**base, **fields}


def test_claude_usage_is_summed_over_model_usage_with_side_calls_and_thinking(tmp_path):
    # `usage` covers the main model's last part only; modelUsage lists the side model (titles) too.
    events = [
        {"type": "system", "subtype": "init", "model": "claude-opus-4-8", "tools": []},
        {
            "type": "assistant",
            "message": {
                "model": "claude-opus-4-8",
                "content": [
                    {"type": "thinking", "thinking": "", "signature": "EqQBCkYIBxgCKkC..."},
                    {"type": "text", "text": "<answer>B</answer>"},
                ],
            },
        },
        claude_result(
            usage={
                "input_tokens": 5,
                "cache_creation_input_tokens": 30316,
                "cache_read_input_tokens": 59073,
                "output_tokens": 1587,
                "output_tokens_details": {"thinking_tokens": 86},
            },
            modelUsage={
                "claude-haiku-4-5-20251001": {
                    "inputTokens": 2823,
                    "outputTokens": 270,
                    "cacheReadInputTokens": 0,
                    "cacheCreationInputTokens": 0,
                    "costUSD": 0.004173,
                },
                "claude-opus-4-8": {
                    "inputTokens": 5,
                    "outputTokens": 1900,
                    "cacheReadInputTokens": 59073,
                    "cacheCreationInputTokens": 30316,
                    "costUSD": 0.2587115,
                    "thinkingTokens": 120,
                },
            },
        ),
    ]
    t = parse_claude_events(events, tmp_path)
    assert t.usage.input_tokens == 2823 + 5 + 59073 + 30316
    assert t.usage.cached_input_tokens == 59073
    assert t.usage.output_tokens == 270 + 1900  # more than `usage` said (1587)
    assert t.usage.reasoning_tokens == 120
    assert set(t.usage_by_model) == {"claude-haiku-4-5-20251001", "claude-opus-4-8"}
    assert t.usage_by_model["claude-haiku-4-5-20251001"]["cost_usd"] == 0.004173
    assert t.cost_usd == 0.2629
    reasoning = [s for s in t.steps if s.kind == "reasoning"]
    assert [s.text for s in reasoning] == [HIDDEN_THINKING]  # kept, saying it was empty
    assert outcome(t).status == "ok"


def test_claude_usage_falls_back_to_usage_with_thinking_tokens(tmp_path):
    t = parse_claude_events(
        [
            claude_result(
                usage={
                    "input_tokens": 10,
                    "cache_read_input_tokens": 4,
                    "output_tokens": 7,
                    "output_tokens_details": {"thinking_tokens": 3},
                }
            )
        ],
        tmp_path,
    )
    assert (t.usage.input_tokens, t.usage.cached_input_tokens, t.usage.output_tokens, t.usage.reasoning_tokens) == (
        14,
        4,
        7,
        3,
    )


def test_unknown_system_subtypes_and_event_types_are_counted(tmp_path):
    events = [
        {"type": "system", "subtype": "init"},
        {"type": "system", "subtype": "compact_boundary"},  # known: recorded as a compaction
        {"type": "system", "subtype": "hook_response"},
        {"type": "system", "subtype": "hook_response"},
        {"type": "tool_progress"},
        claude_result(),
    ]
    t = parse_claude_events(events, tmp_path)
    assert t.unknown_events == {"system/hook_response": 2, "tool_progress": 1}
    assert [(c["trigger"], c["pre_tokens"]) for c in t.compactions] == [(None, None)]


def test_claude_retries_without_a_status_end_in_an_error_that_says_so(tmp_path):
    # The CLI retried, the last time after a connection error (no HTTP status), and printed no result.
    events = [
        {"type": "system", "subtype": "init"},
        {"type": "system", "subtype": "api_retry", "error_status": 529},
        {"type": "system", "subtype": "api_retry", "error_status": None},
    ]
    t = parse_claude_events(events, tmp_path)
    assert t.api_retries == [529, None] and t.error_status is None
    assert t.error == "API error without an HTTP status (retried 2 times)"


@pytest.mark.parametrize(
    "text,status",
    [
        (
            'API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}',
            "agent_error",
        ),
        ('API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"bad"}}', "request_error"),
        ('API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}', "rate_limited"),
        ("Not logged in · Please run /login", "auth_error"),
        ("Invalid API key · Please run /login", "auth_error"),
    ],
)
def test_claude_placeholder_text_is_the_clis_never_an_answer(tmp_path, text, status):
    # The CLI writes its notice as a "<synthetic>" assistant message and a result that may say success.
    events = [
        {"type": "assistant", "message": {"model": "<synthetic>", "content": [{"type": "text", "text": text}]}},
        claude_result(result=text, total_cost_usd=0),
    ]
    t = parse_claude_events(events, tmp_path)
    assert t.final_text is None and t.error == text
    assert all(s.is_error for s in t.steps if s.kind == "text")
    assert outcome(t, exit_code=1).status == status


def codex_stream(*tail):
    return [{"type": "thread.started", "thread_id": "0199a213-aaaa"}, {"type": "turn.started"}, *tail]


HIGH_DEMAND = "We're currently experiencing high demand, which may cause temporary errors."


def test_codex_capacity_failure_is_a_rate_limit(tmp_path):
    events = codex_stream(
        *[{"type": "error", "message": f"Reconnecting... {n}/5 ({HIGH_DEMAND})"} for n in range(1, 6)],
        {"type": "turn.failed", "error": {"message": HIGH_DEMAND}},
    )
    t = parse_codex_events(events, tmp_path)
    assert outcome(t, exit_code=1).status == "rate_limited"


def test_codex_reconnects_before_a_completed_turn_are_transient(tmp_path):
    events = codex_stream(
        {"type": "error", "message": f"Reconnecting... 1/5 ({HIGH_DEMAND})"},
        {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": "<answer>4</answer>"}},
        {
            "type": "turn.completed",
            "usage": {
                "input_tokens": 1200,
                "cached_input_tokens": 200,
                "output_tokens": 300,
                "reasoning_output_tokens": 40,
            },
        },
    )
    t = parse_codex_events(events, tmp_path)
    assert outcome(t).status == "ok" and t.usage.reasoning_tokens == 40


@pytest.mark.parametrize(
    "message",
    [
        json.dumps(
            {
                "error": {
                    "message": "Unsupported value: 'reasoning.effort' does not support 'max'.",
                    "type": "invalid_request_error",
                    "param": "reasoning.effort",
                    "code": "unsupported_value",
                }
            }
        ),
        json.dumps({"detail": "The 'gpt-5.2-codex' model is not supported when using Codex with a ChatGPT account."}),
        json.dumps(
            {
                "error": {
                    "message": "The model `gpt-9` does not exist or you do not have access to it.",
                    "type": "invalid_request_error",
                    "code": "model_not_found",
                }
            }
        ),
    ],
)
def test_codex_invalid_requests_are_request_errors(tmp_path, message):
    events = codex_stream({"type": "error", "message": message}, {"type": "turn.failed", "error": {"message": message}})
    t = parse_codex_events(events, tmp_path)
    assert outcome(t, exit_code=1).status == "request_error"


def test_codex_placeholder_message_is_not_graded(tmp_path):
    events = codex_stream(
        {"type": "item.completed", "item": {"id": "i", "type": "agent_message", "text": "API Error: 400 bad request"}},
        {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}},
    )
    t = parse_codex_events(events, tmp_path)
    assert t.final_text is None and outcome(t).status == "request_error"


def command_item(item_id: str, command: str, **done) -> dict:
    status = {"aggregated_output": "", "exit_code": None, "status": "in_progress", **done}
    return {"id": item_id, "type": "command_execution", "command": f"/bin/bash -lc {command!r}", **status}


def test_a_codex_command_still_running_when_the_turn_ends_is_a_tool_call_the_model_made(tmp_path):
    """Codex 0.171 leaves a command running past its exec yield (10 s) in the background and answers the model
    "Process running with session ID …"; the model answered, the turn ended and the command's item.completed never
    came (a loaded full run, a 10 s command: tool_calls 0 where Claude Code counts its call). The stream's shape."""
    events = codex_stream(
        {"type": "item.started", "item": command_item("item_0", "echo looked")},
        {
            "type": "item.completed",
            "item": command_item(
                "item_0", "echo looked", aggregated_output="looked\n", exit_code=0, status="completed"
            ),
        },
        {"type": "item.started", "item": command_item("item_1", "python3 -c 'import time; time.sleep(10)'")},
        {"type": "item.completed", "item": {"id": "item_2", "type": "agent_message", "text": "<answer>7</answer>"}},
        {"type": "turn.completed", "usage": {"input_tokens": 200, "output_tokens": 40}},
    )
    t = parse_codex_events(events, tmp_path)
    assert t.tool_calls == 2 and t.final_text == "<answer>7</answer>" and outcome(t).status == "ok"
    assert [(s.kind, s.call_id) for s in t.steps] == [
        ("tool_call", "item_0"),
        ("tool_result", "item_0"),
        ("tool_call", "item_1"),
        ("tool_result", "item_1"),
        ("text", None),
    ]
    assert t.steps[2].input == {"command": "/bin/bash -lc \"python3 -c 'import time; time.sleep(10)'\""}
    assert (
        t.steps[3].text.startswith("[no result in Codex's stream: the call was still running")
        and not t.steps[3].is_error
    )
    assert t.steps[1].text == "looked\n"


def test_parse_command_prints_one_json_record(tmp_path):
    stream = tmp_path / "stream.jsonl"
    stream.write_text(
        "\n".join(
            json.dumps(e)
            for e in codex_stream(
                {
                    "type": "item.completed",
                    "item": {
                        "id": "c",
                        "type": "command_execution",
                        "command": "python3 x.py",
                        "aggregated_output": "7\n",
                        "exit_code": 0,
                        "status": "completed",
                    },
                },
                {"type": "item.completed", "item": {"id": "m", "type": "agent_message", "text": "<answer>7</answer>"}},
                {
                    "type": "turn.completed",
                    "usage": {
                        "input_tokens": 900,
                        "cached_input_tokens": 100,
                        "output_tokens": 50,
                        "reasoning_output_tokens": 20,
                    },
                },
            )
        )
        + "\n"
    )
    result = CliRunner().invoke(main, ["parse", "--agent", "codex", str(stream)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["status"] == "ok" and data["final_text"] == "<answer>7</answer>" and data["tool_calls"] == 1
    assert data["usage"] == {
        "input_tokens": 900,
        "cached_input_tokens": 100,
        "output_tokens": 50,
        "reasoning_tokens": 20,
    }
    assert data["num_turns"] == 2 and data["cost_usd"] is None
    failed = CliRunner().invoke(main, ["parse", "--agent", "codex", str(stream), "--exit-code", "2"])
    assert json.loads(failed.output)["status"] == "agent_error"


def test_a_403_from_the_sandboxs_proxy_is_a_sandbox_error_naming_what_was_refused(tmp_path):
    """tinyproxy answers what the policy does not allow with a 403: that is not the credential's fault
    (an auth_error would stop the run and send the user to their login)."""
    events = [
        claude_result(
            subtype="error_during_execution",
            is_error=True,
            api_error_status=403,
            result="Failed to authenticate. API Error: 403 Filtered",
        )
    ]  # as Claude Code says it
    transcript = parse_claude_events(events, tmp_path)
    refused = ProcessResult(exit_code=1, proxy_refused=["http://127.0.0.1:41234/v1/messages"])
    got = classify(refused, transcript, False, 60)
    assert got.status == "sandbox_error" and "proxy refused http://127.0.0.1:41234/v1/messages" in got.error
    assert classify(ProcessResult(exit_code=1), transcript, False, 60).status == "auth_error"  # nothing refused
    unauthorised = parse_claude_events(
        [
            claude_result(
                subtype="error_during_execution",
                is_error=True,
                api_error_status=401,
                result="API Error: 401 invalid x-api-key",
            )
        ],
        tmp_path,
    )
    assert classify(refused, unauthorised, False, 60).status == "auth_error"  # a refusal beside a real 401
    forbidden = parse_claude_events(
        [
            claude_result(
                subtype="error_during_execution", is_error=True, api_error_status=403, result="API Error: 403 Forbidden"
            )
        ],
        tmp_path,
    )
    routine = ProcessResult(exit_code=1, proxy_refused=["github.com:443"])  # Codex is refused this on every item
    assert classify(routine, forbidden, False, 60).status == "auth_error"  # the API's own 403 stays an auth error
