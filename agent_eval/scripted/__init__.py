"""Scripted model server: plays fixed turns to the real agent CLIs over loopback HTTP.

It speaks the two wire APIs the CLIs use against a custom endpoint:

* Anthropic Messages, streaming (Claude Code, ``ANTHROPIC_BASE_URL=<url>``):
  ``POST /v1/messages?beta=true``; ``POST /v1/messages/count_tokens``; ``HEAD /`` and
  any ``GET`` are answered 200.
* OpenAI Responses, streaming (Codex, provider ``base_url = "<url>/v1"``):
  ``POST /v1/responses``; ``GET /v1/models``.

It never sees ground truth: it only knows its scenario.

Scenario format (YAML file, YAML text or dict)::

    rules:                      # the first rule whose `match` regex is found (re.search)
      - match: "count the"      # in the prompt text wins; a rule without `match` matches all
        turns:
          - say: "Let me look."                    # optional text before the call(s)
            call: shell                            # one tool call ...
            input: {command: "python3 -c 'print(1+1)'"}
          - calls:                                 # ... or several parallel calls
              - {call: view_file, input: {path: image.png}}
              - {call: crop, input: {x: 0, y: 0, width: 10, height: 10}}
          - final: "The answer is <answer>{last_tool_output}</answer>"
      - seen: '"ACTION6"'                          # `seen`: a regex searched in the text of the tool
        turns: [...]                               # results so far (a game's answer), besides `match`
      - system: "Role 1: "                         # `system`: a regex searched in the system prompt
        turns: [...]
      - turns: ["<answer>unknown</answer>"]        # a bare string is a final turn
    faults: {}                  # optional, see below

    turns: [...]                # shorthand for `rules: [{turns: [...]}]`

The prompt text is the text of all user messages that are not tool results (Codex's
``<environment_context>`` message included). The turn to play is derived from the request
alone: the number of tool results already in the conversation (a turn with k calls consumes
k results), so a retried request replays its turn and concurrent conversations don't
interfere. Past the last call turn the server answers ``SCRIPTED-ERROR: scenario exhausted``.

Placeholders (plain text substitution, other braces are left alone) in ``say``, ``final``
and string inputs: ``{last_tool_output}`` = text of the most recent tool result, stripped
(Codex's exec_command header "Chunk ID/Wall time/Process exited/Output:" removed);
``{cwd}`` = the working directory the CLI told the model.

Tool names: ``shell`` is Claude Code's ``Bash`` (``command``) or Codex's ``exec_command``
(``command`` -> ``cmd``); ``view_file`` is Claude's ``Read`` (``path`` -> ``file_path``) or
Codex's ``view_image`` (``path``); relative paths are joined to ``{cwd}``. Any other name
is looked up in the tools the request offers: exact name, then ``<namespace>__<name>``
(Codex MCP tools live in a ``namespace`` tool ``mcp__<server>__``), then a name ending in
``__<name>`` (Claude MCP tools are ``mcp__<server>__<tool>``) or a namespace function of
that name. A freeform (``custom``) tool takes ``input: {input: "<raw text>"}``. If the tool
is not offered the server does not fake a call: it answers the final text
``SCRIPTED-ERROR: tool <name> not offered (offered: ...)``.

Codex "code mode" models (gpt-5.6+, gpt-6.x: one freeform tool ``exec`` in namespace
``functions`` that runs JavaScript over a global ``tools`` object) are driven the same way:
a call that no offered tool answers is played as an ``exec`` script that calls
``tools.exec_command({cmd})`` for ``shell``, or looks the tool up in ``ALL_TOOLS`` (exact
name or ``...__<name>``; ``view_file`` = ``view_image``) and forwards its text/image result;
a tool missing there yields a ``SCRIPTED-ERROR`` tool output.

A harness's judge (model-graded scoring, e.g. ``--judge-model``) reaches the same endpoints without
``stream``; a scenario's ``judge`` rules answer it, the first whose regex is found in the prompt::

    judge:
      - match: "help me to match an answer"   # VLMEvalKit's MCQ matching prompt
        reply: "A"
      - match: "careful and strict evaluator"  # BabyVision's verdict prompt
        reply: "True"

Such requests are recorded with kind ``judge`` (``ScriptedServer.judge_requests()``); a non-streamed
request no judge rule matches is played as before.

Faults (scenario ``faults:`` or ``ScriptedServer(..., faults=...)``), on main requests only::

    faults:
      status: 429          # one of 400 401 403 404 429 500 502 503 529, with an API error body
      should_retry: false  # adds `x-should-retry: false` (Claude Code then fails at once on 401)
      retry_after: 0       # adds `retry-after: 0`
      hang: true           # ... or: accept the request and never answer
      truncate: true       # ... or: start the stream, stop mid-message, close the connection
      usage_limit: 90      # ... or: a subscription's window used up: 429 in the wire's own usage-limit shape
                           # (Anthropic's `anthropic-ratelimit-unified-status: rejected` + `-reset`; the Responses
                           # API's `usage_limit_reached` + `resets_at`), the reset 90 s after the first request hit;
                           # main requests until then get it, later ones pass (with after/times as below)
      times: 2             # the first N main requests get the fault, then normal; default "always"
      after: 1             # ... counting from the (N+1)-th: the first N pass untouched (a stall mid-conversation)
      for_s: 90            # ... and only within 90 s of the first main request it met (an outage that ends;
                           # side requests get the fault too meanwhile: the provider is down for everyone)
      poison: "maze"       # main requests whose prompt matches get the fault every time, whatever
                           # times/for_s say (not counted in times): one item the provider always fails
      delay: 3             # seconds before every main answer (independent of the above)
      match: "maze"        # only main requests whose prompt text matches (re.search) get the
                           # faults, delay included; `times` counts those requests only
      model: "gpt-5.5"     # only requests naming a model that matches (re.search) get the faults
      concurrency: 4       # a provider's concurrency limit, on every model request (main and side):
                           # one beyond 4 in flight gets 429 (with `retry-after` when given)

A turn may instead be an API error, answered each time that turn is due (e.g. the context window is full)::

      - fail: {status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum"}
      - fail: {status: 400, code: context_length_exceeded, message: "Your input exceeds ..."}  # Responses

Compaction: a request whose last user message is a CLI's own summary request (Claude Code's "create a
detailed summary of the conversation so far", Codex's "CONTEXT CHECKPOINT COMPACTION") is recorded with
``kind="compaction"`` and answered with a text summary: the user's messages so far and the line
``SCRIPTED-SUMMARY: N tool results so far.``; it plays no turn and meets no fault. A request counts the tool
results after the last such line plus N, so the script goes on where it was once the CLI has dropped its
earlier turns.

The run's gateway asks the provider whether it is up with a request of its own whose only user message is
``GATEWAY_PROBE_TEXT`` (server.py; agent_eval/engine/gateway/health_probe.py): it is recorded with
``kind="health_probe"``, answered ``OK`` or met by the faults as a main request with that prompt, to that model,
would be at that moment (an outage fails it, a fault that `match`es only some items' prompts does not), and
it neither plays a turn nor counts in `times`.

Side requests: Claude Code's background requests (session title; no tools, no tool
results, no agent environment block, a system prompt about a title) get a harmless text
answer, are recorded with ``kind="side"`` and never advance a script or a fault counter.

Usage: by default every answer reports the same: Anthropic ``message_start`` usage input_tokens=100,
cache_read_input_tokens=40, cache_creation_input_tokens=0, output_tokens=1, then
``message_delta`` usage output_tokens=20; Responses ``response.completed`` usage
input_tokens=100 (cached_tokens=40), output_tokens=20 (reasoning_tokens=5), total 120. A scenario
(or one rule) may say what its answers report, in each API's own words, one mapping for every
turn or a list by turn (the last repeats); side requests keep the default::

    usage:
      anthropic: {input_tokens: 1200, cache_creation_input_tokens: 30000,
                  cache_read_input_tokens: 150000, output_tokens: 4000,
                  output_tokens_details: {thinking_tokens: 1500}}   # streamed as the API does
      responses: [{input_tokens: 200000, input_tokens_details: {cached_tokens: 150000},
                   output_tokens: 8000, output_tokens_details: {reasoning_tokens: 5000}}, ...]
    models: [claude-opus-4-8, gpt-5.5]   # what GET /v1/models lists (default: scripted)

A rule may instead say ``tokens_per_byte: 0.25``: each answer reports input_tokens = 0.25 x the request
body's bytes (and output_tokens 20), a context that grows with the conversation as a long game's does.
With ``prompt_cache: true`` beside it, the answers report what a provider's prompt cache would have read and
written for the request, from the prefixes the server was sent before (prompt_cache.py), each in its API's words.
A rule's ``stop: {when: "<regex>", final: "<text>"}`` answers the final text, whatever turn is due, once the
most recent tool result matches (e.g. a game's play asking the agent to stop and hand off).

Every recorded request keeps the usage its answer reported (``RecordedRequest.usage``). A status
fault's error message can be given as ``faults: {status: 404, message: "..."}``.

API::

    with ScriptedServer(scenario, log_path=None) as srv:   # 127.0.0.1, free port, thread
        srv.url                       # http://127.0.0.1:PORT
        srv.requests                  # [RecordedRequest]; .main_requests() .compaction_requests() .judge_requests()
        offered_tool_names(req); has_image(req); prompt_text(req); conversation(req)

Command line: ``python -m agent_eval.scripted --scenario FILE [--port N] [--log FILE]``
prints the URL and serves until killed.

Files: server.py (the loopback server: ScriptedServer, RecordedRequest), scenario.py (the scenario model and
its faults), conversation.py (an API-neutral view of one request; scripted tool names resolved),
anthropic_wire.py and responses_wire.py (each wire API's request view and SSE answer), prompt_cache.py (the cache
a `prompt_cache` rule reports), game_play.py (a scenario
that plays an action sequence through a game's `play`), demo.py (the scenario `agent-eval demo` plays on the
bundled sample tasks), inspect_requests.py (what a CLI sent, for tests),
mcp_stub.py (a trivial MCP stdio server for probes and tests), __main__.py (the command line).
"""

from agent_eval.scripted.conversation import Conversation, OfferedTool
from agent_eval.scripted.inspect_requests import (
    conversation,
    has_image,
    offered_tool_names,
    prompt_text,
    tool_result_count,
)
from agent_eval.scripted.scenario import Faults, Scenario, ScenarioError, load_scenario
from agent_eval.scripted.server import RecordedRequest, ScriptedServer

__all__ = [
    "ScriptedServer",
    "RecordedRequest",
    "Scenario",
    "Faults",
    "ScenarioError",
    "load_scenario",
    "Conversation",
    "OfferedTool",
    "conversation",
    "offered_tool_names",
    "has_image",
    "prompt_text",
    "tool_result_count",
]
