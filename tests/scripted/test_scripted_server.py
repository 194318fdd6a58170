"""The scripted model server: wire formats, turn selection, faults, recording; plus one
end-to-end smoke run of each real CLI against it (marked e2e)."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from agent_eval.engine.gateway.health_probe import PROBE_TEXT, probe_body
from agent_eval.scripted import ScenarioError, ScriptedServer, has_image, load_scenario, offered_tool_names, prompt_text
from agent_eval.scripted.conversation import clean_tool_output
from agent_eval.scripted.scenario import parse_faults
from agent_eval.scripted.server import GATEWAY_PROBE_TEXT

ROOT = Path(__file__).resolve().parents[2]

TWO_TURNS = {
    "turns": [
        {"say": "Let me look.", "call": "shell", "input": {"command": "echo hi > out.txt && cat out.txt"}},
        {"final": "The answer is <answer>{last_tool_output}</answer>"},
    ]
}
BASH = {"name": "Bash", "description": "run", "input_schema": {"type": "object"}}
EXEC = {"type": "function", "name": "exec_command", "parameters": {"type": "object"}}
ENV_BLOCK = {
    "role": "system",
    "content": [{"type": "text", "text": "# Environment\n - Primary working directory: /work/x\n"}],
}


# ---- helpers ---------------------------------------------------------------------------


def post(
    url: str,
    path: str,
    body: dict | None,
    headers: dict | None = None,
    conn: http.client.HTTPConnection | None = None,
    timeout: float = 10,
):
    """POST JSON; returns (status, headers, raw body bytes)."""
    own = conn is None
    if own:
        conn = http.client.HTTPConnection(urlsplit(url).hostname, urlsplit(url).port, timeout=timeout)
    data = json.dumps(body).encode() if body is not None else b""
    conn.request("POST", path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
    resp = conn.getresponse()
    raw = resp.read()
    if own:
        conn.close()
    return resp.status, dict(resp.getheaders()), raw


def sse(raw: bytes) -> list[tuple[str, dict]]:
    events = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        lines = dict(line.split(": ", 1) for line in block.split("\n"))
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def anthropic_body(messages=None, tools=(BASH,), stream=True, prompt="count the dots"):
    msgs = messages if messages is not None else [{"role": "user", "content": prompt}, ENV_BLOCK]
    body = {"model": "claude-test", "messages": msgs, "tools": list(tools), "max_tokens": 100}
    if stream:
        body["stream"] = True
    return body


def tool_round(output: str = "hi\n", image: bool = False) -> list[dict]:
    content: object = output
    if image:
        content = [
            {"type": "text", "text": output},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}},
        ]
    return [
        {"role": "user", "content": "count the dots"},
        ENV_BLOCK,
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": content}]},
    ]


def responses_body(items=None, tools=(EXEC,), prompt="count the dots"):
    base = [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "sys"}]},
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "<environment_context>\n  <cwd>/work/y</cwd>\n</environment_context>"}
            ],
        },
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]},
    ]
    return {"model": "gpt-test", "stream": True, "input": base + list(items or []), "tools": list(tools)}


def anthropic_result(events) -> tuple[str, list[dict], str]:
    """(text, tool_use blocks with parsed input, stop_reason) from Anthropic SSE events."""
    text, calls, partial, stop = "", [], {}, None
    for name, data in events:
        if name == "content_block_start" and data["content_block"]["type"] == "tool_use":
            calls.append(dict(data["content_block"]))
            partial[data["index"]] = ""
        elif name == "content_block_delta":
            delta = data["delta"]
            if delta["type"] == "text_delta":
                text += delta["text"]
            else:
                partial[data["index"]] += delta["partial_json"]
        elif name == "message_delta":
            stop = data["delta"]["stop_reason"]
    for call, raw in zip(calls, partial.values()):
        call["input"] = json.loads(raw)
    return text, calls, stop


def responses_result(events) -> tuple[str, list[dict], dict]:
    text = "".join(d["delta"] for n, d in events if n == "response.output_text.delta")
    calls = [
        d["item"]
        for n, d in events
        if n == "response.output_item.done" and d["item"]["type"] in ("function_call", "custom_tool_call")
    ]
    completed = [d for n, d in events if n == "response.completed"]
    return text, calls, completed[0]["response"] if completed else {}


# ---- Anthropic Messages --------------------------------------------------------------


def test_anthropic_stream_framing_and_tool_call():
    with ScriptedServer(TWO_TURNS) as srv:
        status, headers, raw = post(srv.url, "/v1/messages?beta=true", anthropic_body())
    assert status == 200 and headers["Content-Type"].startswith("text/event-stream")
    assert headers["Transfer-Encoding"] == "chunked"
    events = sse(raw)
    names = [n for n, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert all(d["type"] == n for n, d in events)
    start = events[0][1]["message"]
    assert start["usage"]["input_tokens"] == 100 and start["usage"]["cache_read_input_tokens"] == 40
    text, calls, stop = anthropic_result(events)
    assert text == "Let me look."
    assert [c["name"] for c in calls] == ["Bash"]
    assert calls[0]["input"] == {"command": "echo hi > out.txt && cat out.txt"}
    assert calls[0]["id"].startswith("toolu_")
    assert stop == "tool_use"
    assert events[-2][1]["usage"] == {"output_tokens": 20}


def test_anthropic_final_after_tool_result_and_keep_alive():
    with ScriptedServer(TWO_TURNS) as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        first = post(srv.url, "/v1/messages?beta=true", anthropic_body(), conn=conn)
        second = post(srv.url, "/v1/messages?beta=true", anthropic_body(tool_round("hi\n")), conn=conn)
        conn.close()
        turns = [r.turn for r in srv.main_requests()]
    assert first[0] == second[0] == 200
    text, calls, stop = anthropic_result(sse(second[2]))
    assert (text, calls, stop) == ("The answer is <answer>hi</answer>", [], "end_turn")
    assert turns == [0, 1]


def test_retried_request_replays_the_same_turn():
    with ScriptedServer(TWO_TURNS) as srv:
        for _ in range(3):
            post(srv.url, "/v1/messages", anthropic_body())
        outcomes = [(r.turn, r.outcome) for r in srv.main_requests()]
    assert outcomes == [(0, "call:Bash")] * 3


def test_view_file_maps_to_read_with_absolute_path_and_cwd_placeholder():
    scenario = {"turns": [{"call": "view_file", "input": {"path": "img.png"}}, {"final": "cwd={cwd}"}]}
    read = {"name": "Read", "input_schema": {"type": "object"}}
    with ScriptedServer(scenario) as srv:
        _, _, raw = post(srv.url, "/v1/messages", anthropic_body(tools=[read]))
        _, calls, _ = anthropic_result(sse(raw))
        _, _, raw2 = post(srv.url, "/v1/messages", anthropic_body(tool_round(), tools=[read]))
    assert calls[0]["name"] == "Read" and calls[0]["input"] == {"file_path": "/work/x/img.png"}
    assert anthropic_result(sse(raw2))[0] == "cwd=/work/x"


def test_claude_mcp_tool_resolved_by_suffix():
    scenario = {"turns": [{"call": "crop", "input": {"x": 1}}, {"final": "done"}]}
    tools = [
        {"name": "mcp__img__crop", "input_schema": {"type": "object"}},
        {"name": "DeferredToolPlaceholder", "input_schema": {}, "defer_loading": True},
    ]
    with ScriptedServer(scenario) as srv:
        _, _, raw = post(srv.url, "/v1/messages", anthropic_body(tools=tools))
        req = srv.main_requests()[0]
    assert anthropic_result(sse(raw))[1][0]["name"] == "mcp__img__crop"
    assert offered_tool_names(req) == ["mcp__img__crop"]
    assert offered_tool_names(req, include_deferred=True) == ["mcp__img__crop", "DeferredToolPlaceholder"]


def test_tool_not_offered_gives_visible_error_not_a_fake_call():
    scenario = {"turns": [{"call": "crop", "input": {}}, {"final": "never"}]}
    with ScriptedServer(scenario) as srv:
        _, _, raw = post(srv.url, "/v1/messages", anthropic_body())
        rec = srv.main_requests()[0]
    text, calls, stop = anthropic_result(sse(raw))
    assert calls == [] and stop == "end_turn"
    assert text == "SCRIPTED-ERROR: tool crop not offered (offered: Bash)"
    assert rec.outcome == "scripted-error"


def test_concurrent_conversations_do_not_interfere():
    from concurrent.futures import ThreadPoolExecutor

    delay_s = 0.5

    scenario = {
        "turns": [
            {"call": "shell", "input": {"command": "echo a"}},
            {"call": "shell", "input": {"command": "echo b"}},
            {"final": "{last_tool_output}"},
        ]
    }
    with ScriptedServer(scenario, faults={"delay": delay_s}) as srv:

        def ask(k: int):
            msgs = tool_round(f"out{k}") if k % 3 else [{"role": "user", "content": "go"}, ENV_BLOCK]
            if k % 3 == 2:
                msgs = msgs + [
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": f"r{k}"}]},
                ]
            return k, anthropic_result(sse(post(srv.url, "/v1/messages", anthropic_body(msgs))[2]))

        start = time.monotonic()
        with ThreadPoolExecutor(12) as pool:
            results = dict(pool.map(ask, range(12)))
        elapsed = time.monotonic() - start
    for k, (text, calls, _) in results.items():
        if k % 3 == 0:
            assert calls[0]["input"] == {"command": "echo a"}
        elif k % 3 == 1:
            assert calls[0]["input"] == {"command": "echo b"}
        else:
            assert text == f"r{k}" and calls == []
    # Served in parallel: one after another they take 12 x delay_s at least. (At 0.2 s, with "< 1.5 s", a loaded
    # machine failed it served in parallel: 1.64 s at load 18.)
    assert elapsed < 12 * delay_s


def test_invalid_json_is_a_400():
    with ScriptedServer(TWO_TURNS) as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
        conn.request("POST", "/v1/messages", body=b"{not json", headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        resp.read()
        conn.close()
        assert resp.status == 400 and srv.requests[0].outcome == "bad-json"


def test_rules_match_the_prompt_first_match_wins():
    scenario = {
        "rules": [
            {"match": "count the", "turns": ["<answer>count</answer>"]},
            {"match": "colou?r", "turns": ["<answer>color</answer>"]},
            {"turns": ["<answer>default</answer>"]},
        ]
    }
    with ScriptedServer(scenario) as srv:
        answers = [
            anthropic_result(sse(post(srv.url, "/v1/messages", anthropic_body(prompt=p))[2]))[0]
            for p in ("please count the dots", "what colour is it", "hello")
        ]
        rules = [r.rule for r in srv.main_requests()]
    assert answers == ["<answer>count</answer>", "<answer>color</answer>", "<answer>default</answer>"]
    assert rules == [0, 1, 2]


def test_parallel_calls_consume_one_result_each():
    rule = load_scenario({"turns": [{"calls": [{"call": "a"}, {"call": "b"}]}, {"call": "c"}, {"final": "end"}]}).rules[
        0
    ]
    assert [rule.turn_for(n)[0] for n in range(5)] == [0, 0, 1, 2, 2]
    exhausted = load_scenario({"turns": [{"call": "a"}]}).rules[0]
    assert exhausted.turn_for(1) == (1, None)


def test_scenario_exhausted_is_reported():
    with ScriptedServer({"turns": [{"call": "shell", "input": {"command": "true"}}]}) as srv:
        _, _, raw = post(srv.url, "/v1/messages", anthropic_body(tool_round()))
    assert anthropic_result(sse(raw))[0].startswith("SCRIPTED-ERROR: scenario exhausted")


def test_side_requests_are_answered_and_counted_apart():
    faults = {"status": 429, "times": 1}
    with ScriptedServer(TWO_TURNS, faults=faults) as srv:
        title = {
            "model": "claude-haiku",
            "max_tokens": 64,
            "system": [{"type": "text", "text": "Generate a short title for this session."}],
            "messages": [{"role": "user", "content": "count the dots"}],
        }
        status, headers, raw = post(srv.url, "/v1/messages", title)  # not streamed
        streamed = post(srv.url, "/v1/messages", {**title, "stream": True})  # no tools, no env block
        main = post(srv.url, "/v1/messages", anthropic_body())  # first main: the fault
        kinds = [r.kind for r in srv.requests]
    assert status == 200 and json.loads(raw)["content"][0]["type"] == "text"
    assert streamed[0] == 200 and sse(streamed[2])[-1][0] == "message_stop"
    assert main[0] == 429
    assert kinds == ["side", "side", "main"]


def test_mode_none_main_request_is_not_a_side_request():
    with ScriptedServer({"turns": ["<answer>3</answer>"]}) as srv:
        image_msg = {
            "role": "user",
            "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}},
                {"type": "text", "text": "How many?"},
            ],
        }
        _, _, raw = post(srv.url, "/v1/messages", anthropic_body([image_msg, ENV_BLOCK], tools=()))
        req = srv.requests[0]
    assert req.kind == "main" and has_image(req) and offered_tool_names(req) == []
    assert prompt_text(req) == "How many?"
    assert anthropic_result(sse(raw))[0] == "<answer>3</answer>"


def test_count_tokens_head_and_get():
    with ScriptedServer(TWO_TURNS) as srv:
        status, _, raw = post(srv.url, "/v1/messages/count_tokens?beta=true", anthropic_body())
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
        conn.request("HEAD", "/")
        head = conn.getresponse()
        head.read()
        conn.request("GET", "/v1/models")
        models = conn.getresponse()
        models_body = json.loads(models.read())
        conn.close()
        kinds = [r.kind for r in srv.requests]
    assert status == 200 and json.loads(raw) == {"input_tokens": 100}
    assert head.status == 200 and models.status == 200 and models_body["data"]
    assert kinds == ["count_tokens", "probe", "models"]


# ---- OpenAI Responses -----------------------------------------------------------------


def test_responses_stream_framing_and_function_call():
    with ScriptedServer(TWO_TURNS) as srv:
        status, headers, raw = post(srv.url, "/v1/responses", responses_body())
    events = sse(raw)
    names = [n for n, _ in events]
    assert status == 200 and names[0] == "response.created" and names[-1] == "response.completed"
    assert [d["sequence_number"] for _, d in events] == list(range(len(events)))
    assert "response.output_item.added" in names and "response.output_text.delta" in names
    text, calls, response = responses_result(events)
    assert text == "Let me look."
    assert calls[0]["name"] == "exec_command" and calls[0]["call_id"].startswith("call_")
    assert json.loads(calls[0]["arguments"]) == {"cmd": "echo hi > out.txt && cat out.txt"}
    assert response["usage"] == {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 40},
        "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 5},
        "total_tokens": 120,
    }


def test_responses_final_strips_codex_exec_header():
    output = (
        "Chunk ID: 73f083\nWall time: 0.0020 seconds\nProcess exited with code 0\n"
        "Original token count: 1\nOutput:\nhi\n"
    )
    items = [
        {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": output},
    ]
    with ScriptedServer(TWO_TURNS) as srv:
        _, _, raw = post(srv.url, "/v1/responses", responses_body(items))
    text, calls, _ = responses_result(sse(raw))
    assert (text, calls) == ("The answer is <answer>hi</answer>", [])
    assert clean_tool_output("Wall time: 0.004 seconds\nOutput:") == ""


def test_responses_namespace_function_call_for_codex_mcp():
    scenario = {
        "turns": [
            {"call": "swatch", "input": {"color": "red"}},
            {"call": "mcp__stub__echo", "input": {"text": "x"}},
            {"final": "ok"},
        ]
    }
    ns = {
        "type": "namespace",
        "name": "mcp__stub",
        "description": "",
        "tools": [
            {"type": "function", "name": "echo", "parameters": {}},
            {"type": "function", "name": "swatch", "parameters": {}},
        ],
    }
    tools = [EXEC, ns, {"type": "web_search", "external_web_access": False}]
    result_with_image = [
        {"type": "function_call", "name": "swatch", "namespace": "mcp__stub", "arguments": "{}", "call_id": "c1"},
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": [
                {"type": "input_text", "text": "Wall time: 0.0040 seconds\nOutput:"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBOR"},
            ],
        },
    ]
    with ScriptedServer(scenario) as srv:
        _, _, first = post(srv.url, "/v1/responses", responses_body(tools=tools))
        _, _, second = post(srv.url, "/v1/responses", responses_body(result_with_image, tools=tools))
        reqs = srv.main_requests()
    call1 = responses_result(sse(first))[1][0]
    call2 = responses_result(sse(second))[1][0]
    assert (call1["name"], call1["namespace"], json.loads(call1["arguments"])) == (
        "swatch",
        "mcp__stub",
        {"color": "red"},
    )
    assert (call2["name"], call2["namespace"]) == ("echo", "mcp__stub")
    assert offered_tool_names(reqs[0]) == ["exec_command", "mcp__stub__echo", "mcp__stub__swatch", "web_search"]
    assert not has_image(reqs[0]) and has_image(reqs[1])


def test_responses_lite_additional_tools_and_custom_tool():
    scenario = {"turns": [{"call": "exec", "input": {"input": "text('hi')"}}, {"final": "ok"}]}
    lite = {
        "type": "additional_tools",
        "role": "developer",
        "tools": [{"type": "namespace", "name": "functions", "tools": [{"type": "custom", "name": "exec"}]}],
    }
    with ScriptedServer(scenario) as srv:
        _, _, raw = post(srv.url, "/v1/responses", {**responses_body(tools=()), "input": [lite]})
    call = responses_result(sse(raw))[1][0]
    assert call["type"] == "custom_tool_call" and call["namespace"] == "functions"
    assert call["input"] == "text('hi')"


def test_code_mode_models_get_scripts_for_exec():
    """gpt-5.6+/gpt-6.x: one freeform `functions.exec` (JavaScript) tool; calls become scripts."""
    scenario = {
        "turns": [
            {"call": "shell", "input": {"command": "echo hi"}},
            {"call": "swatch", "input": {"color": "red"}},
            {"final": "{last_tool_output}"},
        ]
    }
    desc = (
        "### `exec_command`\n```ts\ndeclare const tools: { exec_command(args: {cmd: string}): Promise<unknown>; };\n```"
    )
    lite = {
        "type": "additional_tools",
        "role": "developer",
        "tools": [
            {
                "type": "namespace",
                "name": "functions",
                "tools": [{"type": "custom", "name": "exec", "description": desc}],
            }
        ],
    }
    first_result = [
        {"type": "custom_tool_call", "name": "exec", "namespace": "functions", "input": "", "call_id": "c1"},
        {
            "type": "custom_tool_call_output",
            "call_id": "c1",
            "output": [
                {"type": "input_text", "text": "Script completed\nWall time 0.1 seconds\nOutput:\n"},
                {"type": "input_text", "text": "hi\n"},
            ],
        },
    ]
    with ScriptedServer(scenario) as srv:
        base = responses_body(tools=())
        calls = [
            responses_result(sse(post(srv.url, "/v1/responses", {**base, "input": [lite] + base["input"] + items})[2]))
            for items in ([], first_result[:2], first_result * 2)
        ]
    shell, swatch = calls[0][1][0], calls[1][1][0]
    assert shell["input"] == 'const r = await tools.exec_command({"cmd": "echo hi"});\ntext(r.output);'
    assert 'const want = "swatch"' in swatch["input"] and '{"color": "red"}' in swatch["input"]
    assert calls[1][0] == "" and calls[2][0] == "hi"


def test_responses_image_prompt_detected():
    img = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_image", "image_url": "data:image/png;base64,iVBOR"}],
    }
    with ScriptedServer({"turns": ["<answer>1</answer>"]}) as srv:
        post(srv.url, "/v1/responses", responses_body([img], tools=()))
        req = srv.requests[0]
    assert has_image(req) and "count the dots" in prompt_text(req)


# ---- the CLIs' own compaction, and turns that fail ---------------------------------------

CLAUDE_SUMMARY_ASK = (
    "CRITICAL: Respond with TEXT ONLY. ...\nYour task is to create a detailed summary of the conversation so far, ..."
)
CODEX_SUMMARY_ASK = "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM ..."
THREE_CALLS = {
    "rules": [
        {
            "match": "count the",
            "turns": [{"call": "shell", "input": {"command": f"echo {n}"}} for n in (1, 2, 3)]
            + [{"fail": {"status": 400, "code": "context_length_exceeded", "message": "too long"}}],
        }
    ],
    "faults": {"status": 429, "match": "count the"},  # every main request of this rule is refused ...
}


def test_claudes_summary_request_gets_a_summary_and_the_script_goes_on_after_it():
    # Claude Code asks in the last user message, after the tool results the summary is to cover
    ask = tool_round("hi") + [{"role": "user", "content": [{"type": "text", "text": CLAUDE_SUMMARY_ASK}]}]
    with ScriptedServer(THREE_CALLS, faults={}) as srv:
        _, _, raw = post(srv.url, "/v1/messages", anthropic_body(ask))
        summary = anthropic_result(sse(raw))
        # after it: the summary as the first user message, then the turns it did not cover, kept verbatim
        after = [
            {"role": "user", "content": "This session is being continued ...\n\n" + summary[0]},
            ENV_BLOCK,
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "2"}]},
        ]
        _, _, raw = post(srv.url, "/v1/messages", anthropic_body(after))
        kinds = [(r.kind, r.outcome) for r in srv.requests]
        summary_request = srv.compaction_requests()[0]
    assert summary[1] == [] and summary[2] == "end_turn"  # text only
    assert "SCRIPTED-SUMMARY: 1 tool results so far." in summary[0] and "count the dots" in summary[0]
    assert CLAUDE_SUMMARY_ASK not in summary[0] and prompt_text(summary_request) == "count the dots"
    assert kinds == [("compaction", "summary"), ("main", "call:Bash")]
    assert anthropic_result(sse(raw))[1][0]["input"] == {"command": "echo 3"}  # 1 summarised + 1 kept: turn 3


def test_codex_summary_request_counts_on_from_an_earlier_summary_and_meets_no_fault():
    earlier = "Another language model started to solve this problem ...\nSCRIPTED-SUMMARY: 1 tool results so far."
    items = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": earlier}]},
        {"type": "function_call", "call_id": "c2", "name": "exec_command", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c2", "output": "2"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": CODEX_SUMMARY_ASK}]},
    ]
    with ScriptedServer(THREE_CALLS) as srv:
        _, _, raw = post(srv.url, "/v1/responses", responses_body(items, tools=()))  # Codex offers no tools then
        summary = responses_result(sse(raw))[0]
        after = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": summary}]}]
        refused = post(srv.url, "/v1/responses", responses_body(after))
    assert summary.count("SCRIPTED-SUMMARY") == 1 and "SCRIPTED-SUMMARY: 2 tool results so far." in summary
    assert refused[0] == 429  # the faults are the main requests', never the summary's
    assert [r.kind for r in srv.requests] == ["compaction", "main"]


def test_a_summary_ask_earlier_in_the_conversation_is_no_summary_request():
    items = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": CODEX_SUMMARY_ASK}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "count the dots"}]},
    ]
    with ScriptedServer(THREE_CALLS, faults={}) as srv:
        post(srv.url, "/v1/responses", responses_body(items))
    assert srv.requests[0].kind == "main" and srv.requests[0].outcome == "call:exec_command"


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/responses"])
def test_a_fail_turn_answers_its_api_error_each_time_it_is_due(path):
    messages = tool_round("1")
    messages[-1]["content"] += [{"type": "tool_result", "tool_use_id": "t", "content": n} for n in ("2", "3")]
    items = [{"type": "function_call_output", "call_id": f"c{n}", "output": str(n)} for n in (1, 2, 3)]
    body = anthropic_body(messages) if path == "/v1/messages" else responses_body(items)
    with ScriptedServer(THREE_CALLS, faults={}) as srv:
        answers = [post(srv.url, path, body) for _ in range(2)]
    assert [a[0] for a in answers] == [400, 400] and [r.outcome for r in srv.requests] == ["fail:400"] * 2
    error = json.loads(answers[0][2])["error"]
    assert error["message"] == "too long" and error["type"] == "invalid_request_error"
    if path == "/v1/responses":
        assert error["code"] == "context_length_exceeded"


# ---- faults ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "status,err_type",
    [(429, "rate_limit_error"), (529, "overloaded_error"), (500, "api_error"), (403, "permission_error")],
)
def test_status_fault_first_n_then_normal(status, err_type):
    with ScriptedServer({**TWO_TURNS, "faults": {"status": status, "times": 2}}) as srv:
        results = [post(srv.url, "/v1/messages", anthropic_body()) for _ in range(3)]
    assert [r[0] for r in results] == [status, status, 200]
    assert json.loads(results[0][2])["error"]["type"] == err_type


def test_status_fault_always_and_should_retry_header():
    faults = {"status": 401, "should_retry": False, "retry_after": 0}
    with ScriptedServer(TWO_TURNS, faults=faults) as srv:
        results = [post(srv.url, "/v1/responses", responses_body()) for _ in range(3)]
    assert [r[0] for r in results] == [401] * 3
    assert results[0][1]["x-should-retry"] == "false" and results[0][1]["retry-after"] == "0"
    assert json.loads(results[0][2])["error"]["code"] == "invalid_api_key"


def test_delay_fault():
    with ScriptedServer(TWO_TURNS, faults={"delay": 0.5}) as srv:
        start = time.monotonic()
        status = post(srv.url, "/v1/messages", anthropic_body())[0]
    assert status == 200 and time.monotonic() - start >= 0.5


def test_hang_fault_never_answers_and_close_releases_it(tmp_path):
    log = tmp_path / "req.jsonl"
    srv = ScriptedServer(TWO_TURNS, log, faults={"hang": True, "times": 1}).start()
    try:
        with pytest.raises(TimeoutError):
            post(srv.url, "/v1/messages", anthropic_body(), timeout=0.5)
        assert post(srv.url, "/v1/messages", anthropic_body())[0] == 200  # times: 1
        assert [r.outcome for r in srv.main_requests()] == ["hang", "call:Bash"]
    finally:
        start = time.monotonic()
        srv.close()
    assert time.monotonic() - start < 5
    assert [json.loads(line)["outcome"] for line in log.read_text().splitlines()] == ["hang", "call:Bash"]


@pytest.mark.parametrize("path,body", [("/v1/messages", anthropic_body()), ("/v1/responses", responses_body())])
def test_truncate_fault_closes_mid_stream(path, body):
    with ScriptedServer(TWO_TURNS, faults={"truncate": True, "times": 1}) as srv:
        with pytest.raises((http.client.IncompleteRead, ConnectionError)):
            post(srv.url, path, body)
        assert post(srv.url, path, body)[0] == 200


def test_fault_setter_resets_counter():
    with ScriptedServer(TWO_TURNS) as srv:
        assert post(srv.url, "/v1/messages", anthropic_body())[0] == 200
        srv.faults = {"status": 500, "times": 1}
        assert post(srv.url, "/v1/messages", anthropic_body())[0] == 500
        assert post(srv.url, "/v1/messages", anthropic_body())[0] == 200


@pytest.mark.parametrize("path,make", [("/v1/messages", anthropic_body), ("/v1/responses", responses_body)])
def test_fault_match_limits_faults_and_times_to_matching_prompts(path, make):
    faults = {"status": 429, "times": 2, "match": "maze"}
    with ScriptedServer(TWO_TURNS, faults=faults) as srv:
        statuses = [
            post(srv.url, path, make(prompt=p))[0]
            for p in ("count the dots", "trace the maze", "count again", "maze again", "maze third")
        ]
    assert statuses == [200, 429, 200, 429, 200]  # `times` counts matching requests only


def test_fault_match_applies_to_delay():
    with ScriptedServer(TWO_TURNS, faults={"delay": 30, "match": "maze"}) as srv:
        start = time.monotonic()
        assert post(srv.url, "/v1/messages", anthropic_body(prompt="count the dots"))[0] == 200
        assert time.monotonic() - start < 5
        with pytest.raises(TimeoutError):
            post(srv.url, "/v1/messages", anthropic_body(prompt="trace the maze"), timeout=0.5)


def test_fault_for_s_ends_an_outage_and_poison_fails_its_prompts_always():
    """`for_s`: the fault hits only within N s of the first main request it met (an outage that ends); `poison`:
    main requests whose prompt matches get the fault always, whatever times/for_s say, and are not counted."""
    faults = {"status": 500, "for_s": 1.0, "times": 3, "poison": "maze"}
    with ScriptedServer(TWO_TURNS, faults=faults) as srv:
        during = [post(srv.url, "/v1/messages", anthropic_body(prompt=p))[0] for p in ("count", "trace the maze")]
        time.sleep(1.1)
        after = [post(srv.url, "/v1/responses", responses_body(prompt=p))[0] for p in ("count", "maze again", "count")]
        srv.faults = {"truncate": True, "for_s": 0.5}  # the clock starts again with new faults
        with pytest.raises((http.client.IncompleteRead, ConnectionError)):
            post(srv.url, "/v1/messages", anthropic_body())
        time.sleep(0.6)
        assert post(srv.url, "/v1/messages", anthropic_body())[0] == 200
    assert during == [500, 500] and after == [200, 500, 200]


def test_fault_model_limits_faults_to_the_models_it_names():
    """`model`: only requests naming a matching model meet the faults (a model down while others answer)."""
    with ScriptedServer(TWO_TURNS, faults={"status": 500, "model": "^gpt-test$"}) as srv:
        down = post(srv.url, "/v1/responses", responses_body())[0]
        other = post(srv.url, "/v1/responses", {**responses_body(), "model": "gpt-other"})[0]
        claude = post(srv.url, "/v1/messages", anthropic_body())[0]
    assert (down, other, claude) == (500, 200, 200)


@pytest.mark.parametrize("wire", ["anthropic", "responses"])
def test_the_gateways_health_probe_meets_the_providers_faults_not_an_items(wire):
    """The run's gateway asks the provider whether it is up (engine/gateway/health_probe.py): the server answers
    its probe as it would answer any request to that model at that moment, except the faults that `match` or
    `poison` only some items' prompts; it plays no turn and counts in no `times`."""
    path, original = ("/v1/messages", anthropic_body()) if wire == "anthropic" else ("/v1/responses", responses_body())
    probe = probe_body(wire, original["model"], original)
    cases = [
        ({"status": 500, "match": "maze"}, 200),  # one item's failure: the provider is up
        ({"status": 500, "times": 0, "poison": "maze"}, 200),  # (only the poisoned prompts fail)
        ({"status": 500}, 500),  # an outage: the probe fails too
        ({"truncate": True}, "cut"),
        ({"status": 500, "model": original["model"]}, 500),  # the model is down: so is the probe to it
        ({"status": 500, "model": "another-model"}, 200),
    ]
    for faults, expected in cases:
        with ScriptedServer(TWO_TURNS, faults=faults) as srv:
            try:
                status = post(srv.url, path, probe)[0]
            except (http.client.IncompleteRead, ConnectionError):
                status = "cut"
            (rec,) = srv.requests
        assert (faults, status, rec.kind) == (faults, expected, "health_probe")
        assert srv.main_requests() == []
    with ScriptedServer(TWO_TURNS, faults={"status": 500, "times": 1}) as srv:
        statuses = [post(srv.url, path, body)[0] for body in (probe, original, probe, original)]
    assert statuses == [500, 500, 200, 200]  # the probe meets `times` as it stands, and never counts in it
    assert PROBE_TEXT == GATEWAY_PROBE_TEXT  # what the gateway asks is what the server knows


def test_fault_for_s_and_poison_are_checked():
    bad_ones = ({"status": 500, "for_s": 0}, {"status": 500, "for_s": "soon"}, {"status": 500, "poison": "("})
    for bad in bad_ones + ({"status": 500, "model": "["},):
        with pytest.raises(ScenarioError):
            parse_faults(bad)


# ---- recording, framing, scenario ------------------------------------------------------


def test_recording_and_jsonl_log_without_secrets(tmp_path):
    log = tmp_path / "requests.jsonl"
    with ScriptedServer(TWO_TURNS, log_path=log) as srv:
        post(
            srv.url,
            "/v1/messages?beta=true",
            anthropic_body(tool_round("x", image=True)),
            headers={"x-api-key": "sk-secret", "Authorization": "Bearer sk-secret"},
        )
        req = srv.requests[0]
    assert req.path == "/v1/messages" and req.query == "beta=true" and req.api == "anthropic"
    assert req.kind == "main" and req.turn == 1 and req.outcome == "final"
    assert has_image(req) and offered_tool_names(req) == ["Bash"]
    assert "sk-secret" not in json.dumps(req.headers)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == 1 and lines[0]["outcome"] == "final" and "sk-secret" not in log.read_text()


def test_chunked_request_body():
    with ScriptedServer(TWO_TURNS) as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
        data = json.dumps(anthropic_body()).encode()
        conn.request(
            "POST",
            "/v1/messages",
            body=iter([data[:50], data[50:]]),
            headers={"Content-Type": "application/json"},
            encode_chunked=True,
        )
        resp = conn.getresponse()
        raw = resp.read()
        conn.close()
    assert resp.status == 200 and anthropic_result(sse(raw))[1][0]["name"] == "Bash"


@pytest.mark.parametrize(
    "bad",
    [
        {"turns": []},
        {"turns": [{"say": "x"}]},
        {"turns": [{"call": "a", "final": "b"}]},
        {"rules": [{"match": "(", "turns": ["x"]}]},
        {"turns": ["x"], "faults": {"status": 418}},
        {"turns": ["x"], "faults": {"status": 500, "hang": True}},
        {"turns": ["x"], "bogus": 1},
        {"turns": ["x"], "faults": {"status": 500, "match": "("}},
        {"turns": [{"fail": {"status": 418}}]},
        {"turns": [{"fail": {"status": 400}, "say": "x"}]},
        {"turns": [{"fail": {"status": 400, "bogus": 1}}]},
    ],
)
def test_bad_scenarios_are_rejected(bad):
    with pytest.raises(ScenarioError):
        load_scenario(bad)


def test_yaml_file_scenario(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "rules:\n  - match: dots\n    turns:\n      - call: shell\n        input: {command: ls}\n"
        "      - final: '<answer>{last_tool_output}</answer>'\nfaults: {delay: 3}\n"
    )
    scenario = load_scenario(path)
    assert scenario.faults.delay == 3 and scenario.rules[0].turns[0].calls[0].tool == "shell"


def test_command_line_entry(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("turns: ['<answer>ok</answer>']\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_eval.scripted", "--scenario", str(path)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        status, _, raw = post(url, "/v1/messages", anthropic_body())
        assert status == 200 and anthropic_result(sse(raw))[0] == "<answer>ok</answer>"
    finally:
        proc.terminate()
        proc.wait(timeout=5)


# ---- end to end against the real CLIs (mode python) -------------------------------------


def test_a_rule_stops_when_a_tool_result_asks_and_reports_usage_by_the_request_bytes():
    # a long game's driver: the script is cut short when play asks the agent to stop, and each answer reports a
    # context that grows with the conversation (input_tokens = K x the request's bytes)
    scenario = {
        "turns": [{"call": "shell", "input": {"command": "echo go"}}] * 3 + ["<answer>DONE</answer>"],
        "tokens_per_byte": 0.5,
        "stop": {"when": "HANDOFF", "final": "Notes saved. <answer>HANDOFF</answer>"},
    }
    with ScriptedServer({"rules": [scenario]}) as srv:
        first = post(srv.url, "/v1/messages", anthropic_body())
        stopped = post(srv.url, "/v1/messages", anthropic_body(tool_round("ok; reply <answer>HANDOFF</answer>")))
        requests = srv.main_requests()
    assert anthropic_result(sse(first[2]))[1][0]["name"] == "Bash"
    assert anthropic_result(sse(stopped[2]))[0] == "Notes saved. <answer>HANDOFF</answer>"
    assert [r.outcome for r in requests] == ["call:Bash", "final"]
    sizes = [len(json.dumps(body).encode()) for body in (anthropic_body(), anthropic_body(tool_round("x")))]
    assert requests[0].usage["input_tokens"] == round(sizes[0] * 0.5) and requests[0].body_bytes == sizes[0]
    with pytest.raises(ScenarioError, match="stop"):
        load_scenario({"rules": [{**scenario, "stop": {"when": "x"}}]})
