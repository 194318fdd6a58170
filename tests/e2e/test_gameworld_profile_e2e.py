"""`agent-eval run --profile vista` on GameWorld, as a user types it, through both real CLIs, sandboxed, against the
scripted model, on the project's own task 90_01: every request offers exactly VISTA's tools for that CLI (Codex's
with save_compact_checkpoint, beside its MCP resource tools); VISTA's system prompt (the task's objective for the
role, then its method) in the CLI's own prompt's place; VISTA's first message ("Game screen:") with the first
screen; neither the step count nor the horizon in any request; a final reply with steps left is a step with nothing
sent, answered in VISTA's words with the screen in the same session, and the task goes on to its end (won by the
three clicks); a hand-off tells the fresh session VISTA's recovery words."""

import json

import pytest

from agent_eval.benchmarks.games.folder import read_timeline
from agent_eval.benchmarks.gameworld.protocol import NO_ACTION_WORDS, RECOVERY_WORDS, SCREEN_WORDS, vista_objective
from agent_eval.benchmarks.profiles import vista_system_prompt
from agent_eval.datamodel.sessions import read_sessions
from agent_eval.scripted.inspect_requests import conversation, has_image
from support.agentrun import AGENTS, system_texts
from support.gameworld import WIN, task, write_checkout
from support.vista_browser import GAMEWORLD_TOOLS, for_agent, offers_exactly, own_words, run_profile

pytestmark = pytest.mark.e2e
USAGE = [{"input_tokens": n, "output_tokens": 10} for n in (100, 60_000, 60_000, 60_000)]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    return write_checkout(tmp_path_factory.mktemp("gameworld-profile") / "checkout")


def act(move) -> dict:
    return {"call": "act", "input": move}


@pytest.mark.parametrize("agent", AGENTS)
def test_profile_vista_prompts_redirects_and_never_tells_the_steps(agent, checkout, tmp_path):
    quits = [act(WIN[0]), {"final": "That will do. <answer>DONE</answer>"}]
    # resumed with one result in the conversation (the redirect is a message, not a result): from the second turn
    goes_on = [act(WIN[0]), act(WIN[1]), act(WIN[2]), {"final": "<answer>DONE</answer>"}]
    scenario = {"rules": [{"match": "No valid action was executed", "turns": goes_on}, {"turns": quits}]}
    result, mains, record = run_profile(agent, checkout, "90_01", tmp_path, "v", scenario)
    assert result.exit_code == 0, result.output
    assert record["status"] == "ok" and record["correct"], (record["status"], record.get("error"))
    offers_exactly(agent, mains, for_agent(agent, GAMEWORLD_TOOLS))

    item = task(checkout)
    objective = vista_objective(item.game, item.task_def.prompt)
    assert item.game.rules.strip() in objective and "Role 0: player" in objective
    system = vista_system_prompt("gameworld").read_text().replace("{objective}", objective)
    for body in (r.body for r in mains):
        assert system.strip() in [t.strip() for t in system_texts(agent, body)]

    first = conversation(mains[0]).prompt
    assert own_words(first).strip() == SCREEN_WORDS.strip() and has_image(mains[0])

    bodies = json.dumps([r.body for r in mains])
    # act in VISTA's schema (computer_use.py), as each CLI passes it on (as for VISTA: Claude Code folds the oneOf
    # into one object and says the choice in the description, Codex keeps it and drops the numeric bounds)
    assert "Execute exactly one GameWorld input for the current role, not an action list." in bodies
    assert "Horizontal pixels from the left edge. Inclusive range: 0 to 479." in bodies
    assert ('"const": "click_hold"' if agent == "claude-code" else '"enum": ["click_hold"]') in bodies
    assert "steps_left" not in bodies and '\\"step\\"' not in bodies and "(100)" not in bodies
    assert "steps left" not in bodies and "allows 100" not in bodies

    # the final reply: a step with nothing sent, answered in VISTA's words with the screen, in the same session
    redirected = [r for r in mains if NO_ACTION_WORDS in json.dumps(r.body)]
    assert redirected and json.dumps(f"{SCREEN_WORDS}\n\n{NO_ACTION_WORDS}")[1:-1] in json.dumps(redirected[0].body)
    item_dir = tmp_path / "v" / "sandboxes" / "90_01"
    sessions = read_sessions(item_dir)
    assert [s.kind for s in sessions] == ["new", "resume"] and sessions[0].session_id == sessions[1].session_id
    assert sessions[1].reason == "final answer redirected"
    steps = read_timeline(item_dir) or []
    assert [s.get("invalid_kind") for s in steps] == [None, "no_function_call", None, None]
    assert record["metrics"]["status"] == "success" and record["metrics"]["invalid_steps"] == 1

    manifest = json.loads((tmp_path / "v" / "run.json").read_text())
    assert manifest["config"]["profile"] == "vista"
    options = manifest["config"]["kind_options"]
    assert options["final_answer"] == "redirect" and options["tell_steps"] == "off" and options["game_tools"] == "vista"
    assert manifest["system_prompt"]["file"] == str(vista_system_prompt("gameworld"))


@pytest.mark.parametrize("agent", AGENTS)
def test_a_hand_off_under_the_profile_is_told_vistas_recovery_words(agent, checkout, tmp_path):
    first = [
        act(WIN[0]),
        act(WIN[1]),  # its answer reports a context past 50k: the next act says stop
        {"call": "write_working", "input": {"content": "two beacons lit; the third is at h5"}},
        {"final": "Notes saved. <answer>HANDOFF</answer>"},
    ]
    scenario = {
        "rules": [
            {"match": "Continue this same role and task", "turns": [act(WIN[2]), {"final": "<answer>DONE</answer>"}]},
            {"turns": first, "usage": {"anthropic": USAGE, "responses": USAGE}},
        ]
    }
    result, mains, record = run_profile(agent, checkout, "90_01", tmp_path, "h", scenario, "--context", "handoff:50000")
    assert result.exit_code == 0, result.output
    assert record["status"] == "ok" and record["correct"] and record["handoffs"] == 1, record.get("error")
    fresh = [r for r in mains if r.rule == 0]
    prompt = conversation(fresh[0]).prompt
    assert RECOVERY_WORDS in prompt and SCREEN_WORDS.strip() in prompt and has_image(fresh[0])
    assert "two beacons lit; the third is at h5" in prompt  # the notes, as VISTA's recovery gives them
    assert "step(s) taken" not in prompt and "98 left" not in prompt  # never the steps
