"""`run --system-prompt cli|FILE`, both real CLIs against the scripted model, checked on the request bodies they send:
with a file, the CLI's own system prompt (captured from a `cli` run of the same item) is gone from every request and
the file's text stands in its place, beside only what each CLI still adds (Claude Code: its billing line and one
identity sentence in `system`, an "# Environment" system message; Codex: the text trimmed, as its one developer
message, and its <environment_context>). With `cli` the command line is what it always was. The prompt is in the
run's identity: run.json describes it, a copy stays with the run, `show` names it, and a resume with another prompt
(or the CLI's own) is refused, naming the difference."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from agent_eval.commands.show import command as show
from agent_eval.datamodel.results import ResultsError
from agent_eval.scripted import ScriptedServer
from support.agentrun import AGENTS, run_agent, system_texts

pytestmark = pytest.mark.e2e

# Leading and trailing blank space on purpose: what each CLI does with it is part of what is checked.
TASK_PROMPT = "\n  You answer one visual question.\nPut the answer in <answer></answer> tags.\n\n"
SCENARIO = {"turns": [{"call": "shell", "input": {"command": "echo looked"}}, "<answer>7</answer>"]}
IDENTITY_LINE = "You are a Claude agent, built on Anthropic's Claude Agent SDK."


def instructions(agent: str, body: dict) -> list[str]:
    """What stands in the system prompt's place (support.agentrun.system_texts); Codex sends no `instructions`."""
    if agent == "codex":
        assert body.get("instructions") in (None, "")
    return system_texts(agent, body)


def text_of(content) -> str:
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def shown(run_root) -> str:
    """`show RUN`'s output with the terminal's line wrapping undone."""
    return " ".join(CliRunner().invoke(show, [str(run_root)], env={"COLUMNS": "500"}).output.split())


def launched(item_dir) -> tuple[list[str], str]:
    """The command line the item ran and (Codex) its config.toml."""
    argv = json.loads((item_dir / "meta.json").read_text())["argv"]
    config = item_dir / "home" / ".codex" / "config.toml"
    return argv, config.read_text() if config.exists() else ""


@pytest.mark.parametrize("agent", AGENTS)
def test_a_file_replaces_the_clis_own_system_prompt_in_every_request(agent, sample_data, tmp_path):
    prompt_file = tmp_path / "task-prompt.md"
    prompt_file.write_text(TASK_PROMPT)
    seen, stores = {}, {}
    for choice in ("cli", str(prompt_file)):
        with ScriptedServer(SCENARIO) as server:
            outcome = run_agent(
                agent,
                "python",
                server,
                sample_data,
                tmp_path / ("own" if choice == "cli" else "file"),
                ids="RC-0",
                system_prompt=choice,
            )
            seen[choice] = [request.body for request in server.main_requests()]
        record = outcome.store.records()[0]
        assert record.status == "ok" and record.tool_calls == 1, record.error
        stores[choice] = outcome.store
    own, given = seen["cli"], seen[str(prompt_file)]
    assert len(own) == len(given) == 2  # the tool call's turn and the answer's

    own_prompt = max(instructions(agent, own[0]), key=len)  # the CLI's own, as it sent it
    assert len(own_prompt) > 5000
    for body in given:
        sent = instructions(agent, body)
        assert own_prompt not in json.dumps(body)  # gone from the whole request, not only moved
        if agent == "claude-code":
            assert sent[0].startswith("x-anthropic-billing-header: cc_version=") and sent[1:] == [
                IDENTITY_LINE,
                TASK_PROMPT,
            ]
            # its system messages: the environment, and (from the second request on) the tokens left
            added = [text_of(m["content"]) for m in body["messages"] if m["role"] == "system"]
            assert added[0].startswith("# Environment")
            assert all(a.startswith(("# Environment", "<total_tokens>")) for a in added)
        else:
            assert sent == [TASK_PROMPT.strip()]  # Codex trims the file's text; no skills or permissions messages
            users = [p["text"] for i in body["input"] if i.get("role") == "user" for p in i["content"]]
            assert users[0].startswith("<environment_context>")

    own_dir = stores["cli"].sandbox_dir("RC-0", 0)
    argv, config = launched(own_dir)
    assert not {"--system-prompt-file", "--setting-sources"} & set(argv)  # `cli`: the command line of every run before
    assert "model_instructions_file" not in config and "include_permissions_instructions" not in config

    store = stores[str(prompt_file)]
    manifest = json.loads((store.root / "run.json").read_text())
    described = manifest["system_prompt"]
    assert described["file"] == str(prompt_file) and described["chars"] == len(TASK_PROMPT)
    assert manifest["config"]["system_prompt_sha256"] == described["sha256"]
    assert json.loads((stores["cli"].root / "run.json").read_text())["config"]["system_prompt_sha256"] is None
    assert (store.root / "system_prompt.txt").read_text() == TASK_PROMPT  # what the agent got, kept with the run
    header = shown(store.root)
    assert f"system prompt: {prompt_file}, {len(TASK_PROMPT)} chars, sha256 {described['sha256'][:12]}…" in header
    assert "system prompt: the CLI's own" in shown(stores["cli"].root)

    other = tmp_path / "other-prompt.md"
    other.write_text("Another task prompt.\n")
    with ScriptedServer(SCENARIO) as server:
        for choice, said in ((str(other), "a file's text (sha256 "), ("cli", "the CLI's own")):
            with pytest.raises(ResultsError) as refused:
                run_agent(agent, "python", server, sample_data, tmp_path / "file", ids="RC-0", system_prompt=choice)
            assert "system_prompt_sha256: a file's text (sha256 " + described["sha256"][:12] in str(refused.value)
            assert f"-> {said}" in str(refused.value)
        moved = tmp_path / "moved.md"
        moved.write_text(TASK_PROMPT)  # the same text elsewhere: the same run, resumed (nothing left to do)
        again = run_agent(agent, "python", server, sample_data, tmp_path / "file", ids="RC-0", system_prompt=str(moved))
    assert again.ran == 0 and again.skipped == 1
