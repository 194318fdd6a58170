"""`agent-eval doctor --live` through the real CLIs, the sandbox and the gateway, against the scripted
server standing in for the provider: a provider that answers 200, and one that refuses the key (401),
the model (404) or the effort (400), each with its answer worded as the real API words it. One
clear line each, the fix the provider's answer implies, exit 1 on any failure."""

import pytest

from agent_eval.agents.registry import scripted_environ
from agent_eval.scripted import ScriptedServer
from support.agentrun import AGENTS, MODELS
from support.clirun import invoke

pytestmark = pytest.mark.e2e

EFFORT = {"claude-code": "max", "codex": "xhigh"}
# The providers' own words (public reports of each API's answer).
EFFORT_REFUSED = {
    "claude-code": "output_config.effort 'max' is not supported when thinking is disabled on this model. "
    "Use effort 'high' or below, or enable thinking.",
    "codex": "Unsupported value: 'reasoning.effort' does not support 'xhigh' with this model. "
    "Supported values are: 'low', 'medium', and 'high'.",
}
MODEL_MISSING = {
    "claude-code": "model: claude-opus-4-9",
    "codex": "The model `gpt-5.9` does not exist or you do not have access to it.",
}
WRONG_MODEL = {"claude-code": "claude-opus-4-9", "codex": "gpt-5.9"}
LISTED = ["claude-opus-4-8", "claude-sonnet-4-6", "gpt-5.5", "gpt-5.4-mini"]


def doctor(agent: str, server: ScriptedServer, model: str, effort: str | None = None):
    args = ["doctor", "--live", "--agent", agent, "--model", model] + (["--effort", effort] if effort else [])
    return invoke(*args, env=scripted_environ(agent, server.url))


def line_of(output: str, name: str) -> str:
    found = [line for line in output.splitlines() if f" {name}:" in line]
    assert len(found) == 1, output
    return found[0]


@pytest.mark.parametrize("agent", AGENTS)
def test_a_provider_that_answers(agent, tmp_path):
    with ScriptedServer({"turns": ["<answer>7</answer>"], "models": LISTED}) as server:
        result = doctor(agent, server, MODELS[agent], EFFORT[agent])
    out = result.output
    assert result.exit_code == 0, out
    assert "FAIL" not in out and "Ready for a long run." in out and "Traceback" not in out
    assert line_of(out, "credential accepted").startswith("ok ")
    assert line_of(out, "effort accepted").endswith(EFFORT[agent])
    image = line_of(out, "image arrived")
    assert "1 image(s) at the API" in image and "x" in image.split("API, ")[1]
    money = line_of(out, "usage and cost")
    assert "$0.00" in money and "genai-prices" in money
    assert "s for the item" in line_of(out, "latency")
    assert line_of(out, "CLI").split("CLI: ")[1].split()[0] in ("claude", "codex")


@pytest.mark.parametrize("agent", AGENTS)
def test_a_refused_key_is_one_line_with_its_fix(agent, tmp_path):
    faults = {"status": 401, "should_retry": False}
    with ScriptedServer({"turns": ["<answer>7</answer>"], "faults": faults}) as server:
        result = doctor(agent, server, MODELS[agent])
    assert result.exit_code == 1, result.output
    line = line_of(result.output, "credential accepted")
    assert line.startswith("FAIL") and "401" in line
    assert "fix: the provider refused" in result.output and "check the key" in result.output


@pytest.mark.parametrize("agent", AGENTS)
def test_a_model_the_provider_does_not_have_names_the_one_it_lists(agent, tmp_path):
    scenario = {
        "turns": ["<answer>7</answer>"],
        "models": LISTED,
        "faults": {"status": 404, "message": MODEL_MISSING[agent]},
    }
    with ScriptedServer(scenario) as server:
        result = doctor(agent, server, WRONG_MODEL[agent])
    assert result.exit_code == 1, result.output
    line = line_of(result.output, "model exists")
    assert line.startswith("FAIL") and "404" in line and MODEL_MISSING[agent] in line
    assert f"fix: use --model {MODELS[agent]}" in result.output
    assert line_of(result.output, "credential accepted").startswith("ok ")


@pytest.mark.parametrize("agent", AGENTS)
def test_an_effort_the_model_refuses_names_the_values_it_accepts(agent, tmp_path):
    scenario = {"turns": ["<answer>7</answer>"], "faults": {"status": 400, "message": EFFORT_REFUSED[agent]}}
    with ScriptedServer(scenario) as server:
        result = doctor(agent, server, MODELS[agent], EFFORT[agent])
    assert result.exit_code == 1, result.output
    line = line_of(result.output, "effort accepted")
    assert line.startswith("FAIL") and "400" in line
    accepted = "high or below" if agent == "claude-code" else "low | medium | high"
    assert f"fix: use --effort {accepted} for this model" in result.output
    assert line_of(result.output, "model exists").startswith("ok ")


# -- the judge: one call as a run's grading makes it (engine/judge.py), read the same way ----------------------------
JUDGES = {"claude-code": "claude-sonnet-4-6", "codex": "gpt-5.4-mini"}  # one per provider, both priced


def judge_doctor(server: ScriptedServer, judge: str, *agent_args: str, agent: str = "claude-code"):
    environ = {**scripted_environ("claude-code", server.url), **scripted_environ("codex", server.url)}
    return invoke("doctor", "--live", *agent_args, "--judge-model", judge, env=environ)


@pytest.mark.parametrize("agent", AGENTS)
def test_a_judge_that_answers_is_checked_beside_the_agent(agent):
    scenario = {"turns": ["<answer>7</answer>"], "judge": [{"match": "connection check", "reply": "ready"}]}
    with ScriptedServer(scenario) as server:
        result = judge_doctor(server, JUDGES[agent], "--agent", agent, "--model", MODELS[agent])
        assert len(server.judge_requests()) == 1  # the judge's call itself, not streamed
    out = result.output
    assert result.exit_code == 0, out
    assert "FAIL" not in out and "Ready for a long run." in out
    assert f"judge {JUDGES[agent]}" in out and "ok   credential accepted: " in out  # the agent's own, first
    judge_lines = [line for line in out.splitlines() if " judge: " in line]
    assert [line.split(" judge: ")[1].split(":")[0] for line in judge_lines] == [
        "credential accepted",
        "model exists",
        "answered with text",
        "usage and cost",
        "latency",
    ]
    assert "'ready'" in line_of(out, "judge: answered with text")
    assert "$0.0" in line_of(out, "judge: usage and cost") and "genai-prices" in line_of(out, "judge: usage and cost")


def test_a_judge_alone_refused_key_and_missing_model_name_their_fix():
    # an OpenAI judge: the scripted server plays a tool-less Messages request as Claude Code's side call, which
    # faults never reach; a Responses request meets them
    with ScriptedServer({"turns": ["x"], "faults": {"status": 401, "should_retry": False}}) as server:
        refused = judge_doctor(server, JUDGES["codex"])
    assert refused.exit_code == 1, refused.output
    assert line_of(refused.output, "judge: credential accepted").startswith("FAIL") and "401" in refused.output
    assert "fix: the provider refused the judge's credential" in refused.output
    assert "claude-code:" not in refused.output  # no agent was asked for: only the judge is checked
    missing = {"turns": ["x"], "faults": {"status": 404, "message": MODEL_MISSING["codex"]}}
    with ScriptedServer(missing) as server:
        result = judge_doctor(server, "gpt-5.9")
    assert result.exit_code == 1, result.output
    assert line_of(result.output, "judge: model exists").startswith("FAIL") and "404" in result.output
    assert "fix: check --judge-model against the provider's model list" in result.output
