"""A game's context policy through both real CLIs, sandboxed, against the scripted model: the hand-off at the CLI's
own compaction point (`--context handoff:cli`: Claude Code's PreCompact hook blocks it, Codex's own threshold is
watched), the image cap per session (`--session-images N`: no request ever carries N images, the game goes on in a
fresh session), and a text-mode hand-off that carries its frame as text, never as an image."""

import json

import pytest

from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.game_play import action_input
from agent_eval.scripted.inspect_requests import conversation
from support.agentrun import AGENTS, run_agent
from support.arcgames import WIN, write_game

pytestmark = pytest.mark.e2e
FRESH = "handed it on"  # words only a hand-off session's prompt has
NOTE = {"call": "write_note", "input": {"name": "WORKING.md", "text": "level 1: one step right to go"}}
SMALL = {"input_tokens": 100, "output_tokens": 10}
# Past each CLI's own compaction point for its demo model (claude-opus-4-8: ~967,000, under its blocking limit
# ~977,000; gpt-5.5: 244,800): docs/cli-notes.md, "Context compaction"
PAST_POINT = {"claude-code": 970_000, "codex": 250_000}
WIRE = {"claude-code": "anthropic", "codex": "responses"}


def plays(actions) -> list[dict]:
    return [{"call": "play", "input": action_input(a)} for a in actions]


def sessions_of(item) -> list[dict]:
    return [json.loads(line) for line in (item / "sessions.jsonl").read_text().splitlines() if '"kind"' in line]


def timeline(item) -> list[str]:
    return [json.loads(line)["action"] for line in (item / "game" / "timeline.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    root = tmp_path_factory.mktemp("context") / "environment_files"
    write_game(root, "tg01")
    return root


@pytest.mark.parametrize("agent", AGENTS)
def test_a_handoff_at_the_clis_own_compaction_point(agent, games, tmp_path):
    # the second answer reports a context past the CLI's point. Codex (compaction off, its threshold watched) is
    # told as that answer streams by, so its second play says stop; Claude Code's hook runs before the third request
    # and blocks the compaction, so its third play says stop. A play after the stop takes no action.
    usage = [SMALL] + [{"input_tokens": PAST_POINT[agent], "output_tokens": 10}] * 5
    taken = 3 if agent == "claude-code" else 2
    scenario = {
        "rules": [
            {"match": FRESH, "turns": plays(WIN[taken:]) + [{"final": "<answer>DONE</answer>"}]},
            {
                "turns": plays(WIN[:3]) + [NOTE, {"final": "Notes saved. <answer>HANDOFF</answer>"}],
                "usage": {WIRE[agent]: usage},
            },
        ]
    }
    with ScriptedServer(scenario) as server:
        outcome = run_agent(
            agent, "none", server, games, tmp_path, kind_options={"context": "handoff:cli", "notes": "on"}
        )
        compactions = server.compaction_requests()
        outputs = [conversation(r).last_output or "" for r in server.main_requests() if r.rule is not None]
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.correct, (record.status, record.error)
    assert record.sessions == 2 and record.handoffs == 1 and record.compactions == 0 and not compactions
    item = outcome.store.root / "sandboxes" / "tg01"
    assert timeline(item) == [a if isinstance(a, str) else a[0] for a in WIN]  # each action once, across sessions
    assert any("where your CLI would compact it" in text for text in outputs)
    reason = sessions_of(item)[1]["reason"]
    how = "claude-code's PreCompact hook blocked" if agent == "claude-code" else "codex's own threshold for gpt-5.5"
    assert reason.startswith("hand-off: the CLI reached its compaction point: ") and how in reason, reason
    assert reason.endswith("(--context handoff:cli)")


@pytest.mark.parametrize("agent", AGENTS)
def test_no_session_is_given_as_many_images_as_the_cap(agent, games, tmp_path):
    # --session-images 5: the first frame (with the task) and three plays make four images; the fourth play would
    # give the fifth, so it takes no action and asks for the hand-off; the fresh session starts with the last frame
    first = plays(WIN[:4]) + [NOTE, {"final": "Notes saved. <answer>HANDOFF</answer>"}]
    scenario = {
        "rules": [
            {"match": FRESH, "turns": plays(WIN[3:]) + [{"final": "<answer>DONE</answer>"}]},
            {"turns": first},
        ]
    }
    options = {"session_images": 5, "notes": "on"}
    with ScriptedServer(scenario) as server:
        outcome = run_agent(agent, "none", server, games, tmp_path, kind_options=options)
        outputs = [conversation(r).last_output or "" for r in server.main_requests() if r.rule is not None]
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.correct, (record.status, record.error)
    assert record.sessions == 2 and record.handoffs == 1
    item = outcome.store.root / "sandboxes" / "tg01"
    assert timeline(item) == [a if isinstance(a, str) else a[0] for a in WIN]
    assert any("--session-images 5" in text and "No action taken" in text for text in outputs)
    assert sessions_of(item)[1]["reason"] == "hand-off: the session's images reached 4 (--session-images 5)"
    carried = [json.loads(line) for line in (item / "gateway.jsonl").read_text().splitlines()]
    assert max(line["image_blocks"] for line in carried) == 4  # what the API would count: never the cap
    assert record.metrics["observations"]["images"] == 4 + 3  # the attachments counted with the tools' frames


@pytest.mark.parametrize("agent", AGENTS)
def test_a_text_mode_handoff_carries_the_frame_as_text_and_no_image(agent, games, tmp_path):
    usage = [SMALL, {"input_tokens": 60_000, "output_tokens": 10}]
    scenario = {
        "rules": [
            {"match": FRESH, "turns": plays(WIN[2:]) + [{"final": "<answer>DONE</answer>"}]},
            {
                "turns": plays(WIN[:2]) + [NOTE, {"final": "Notes saved. <answer>HANDOFF</answer>"}],
                "usage": {WIRE[agent]: usage},
            },
        ]
    }
    options = {"context": "handoff:50000", "notes": "on", "observation": "text"}
    with ScriptedServer(scenario) as server:
        outcome = run_agent(agent, "none", server, games, tmp_path, kind_options=options)
        requests = [r for r in server.main_requests() if r.rule is not None]
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.correct, (record.status, record.error)
    assert record.sessions == 2 and record.handoffs == 1
    assert not any(conversation(r).has_image for r in requests)  # no request of either session carries an image
    fresh = next(r for r in requests if r.rule == 0)
    prompt = conversation(fresh).prompt
    assert "as text (one hexadecimal digit, a colour index, per pixel) is below" in prompt and "\nFrame " in prompt
    observations = record.metrics["observations"]
    assert observations["images"] == 0 and observations["text_chars"] >= 64 * 65 * (len(WIN) + 2) - len(WIN) - 2
