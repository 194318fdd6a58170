"""The judge client (engine/api_judge.py) against the scripted server's judge rules: both wire APIs, the run
folder's cache, a reply with no text, a missing credential, and which kinds accept a judge."""

import pytest
from rich.console import Console

from agent_eval.agents.registry import scripted_environ
from agent_eval.benchmarks import get_benchmark
from agent_eval.datamodel.config import ConfigError
from agent_eval.datamodel.judge_contract import JudgeUnavailable
from agent_eval.engine.api_judge import ApiJudge, attach_judge, provider_of
from agent_eval.scripted import ScriptedServer

SCENARIO = {
    "turns": ["unused"],
    "judge": [{"match": "say nothing", "reply": ""}, {"match": "verdict", "reply": "True"}],
}


def test_provider_follows_the_name_or_its_prefix():
    assert provider_of("claude-haiku-4-5") == ("anthropic", "claude-haiku-4-5")
    assert provider_of("gpt-5.2") == ("openai", "gpt-5.2")
    assert provider_of("openai/gpt-5.2") == ("openai", "gpt-5.2")
    assert provider_of("anthropic/some-proxy-name") == ("anthropic", "some-proxy-name")


@pytest.mark.parametrize("agent,model", [("claude-code", "claude-judge"), ("codex", "gpt-judge")])
def test_asks_once_per_prompt_and_try_then_answers_from_the_cache(tmp_path, agent, model):
    with ScriptedServer(SCENARIO) as server:
        judge = ApiJudge(model, scripted_environ(agent, server.url))
        judge.bind(tmp_path)
        first = judge.ask("your verdict?", 16)
        again = judge.ask("your verdict?", 16)
        other_try = judge.ask("your verdict?", 16, attempt=1)
        assert len(server.judge_requests()) == 2
    assert (first.reply, first.cached, again.reply, again.cached) == ("True", False, "True", True)
    assert first.usage["input_tokens"] == 100 and other_try.cached is False
    assert len(list((tmp_path / "judge_cache").glob("*.json"))) == 2


def test_a_reply_without_text_is_a_failed_call_and_not_cached(tmp_path):
    with ScriptedServer(SCENARIO) as server:
        judge = ApiJudge("claude-judge", scripted_environ("claude-code", server.url))
        judge.bind(tmp_path)
        call = judge.ask("say nothing", 16)
        judge.ask("say nothing", 16)
        assert len(server.judge_requests()) == 2
    assert call.reply is None and "no text" in call.error


def test_no_credential_stops_before_the_run_and_a_rules_only_kind_refuses_a_judge():
    with pytest.raises(JudgeUnavailable, match="no credential"):
        ApiJudge("claude-judge", {"HOME": "/nonexistent"}).check()
    with pytest.raises(ConfigError, match="no credential"):
        attach_judge(get_benchmark("babyvision"), "claude-judge", {"HOME": "/nonexistent"}, Console())
    with pytest.raises(ConfigError, match="asks no judge model"):
        attach_judge(get_benchmark("activevision"), "claude-judge", {}, Console())
