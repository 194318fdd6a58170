"""GameWorld's VISTA protocol with the hand-off, through both real CLIs: with `--context handoff:N --notes on` the
CLI's own compaction is off; once the reported usage crosses N, `act`'s next answer asks the agent to update its
notes and stop, and the attempt goes on in a fresh session whose prompt carries the notes, where the task stands and
the current screen; one task, each step taken once, won (benchmarks/games/handoff.py, gameworld/protocol.py)."""

import pytest

from agent_eval.benchmarks.games.folder import read_timeline
from agent_eval.datamodel.sessions import read_sessions
from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.inspect_requests import conversation
from support.agentrun import AGENTS, run_agent
from support.gameworld import DONE, WIN, write_checkout

pytestmark = pytest.mark.e2e
FRESH = "handed it on"  # words only a hand-off session's prompt has
USAGE = [{"input_tokens": n, "output_tokens": 10} for n in (100, 60_000, 60_000, 60_000)]


@pytest.mark.parametrize("agent", AGENTS)
def test_the_task_goes_on_in_a_fresh_session_with_the_notes(agent, tmp_path):
    checkout = write_checkout(tmp_path / "checkout")
    first = [
        {"call": "act", "input": WIN[0]},
        {"call": "act", "input": WIN[1]},  # its answer reports a context past 50k: the next act says stop
        {"call": "write_note", "input": {"name": "WORKING.md", "text": "two beacons lit; the third is at h5"}},
        {"final": "Notes saved. <answer>HANDOFF</answer>"},
    ]
    scenario = {
        "rules": [
            {"match": FRESH, "turns": [{"call": "act", "input": WIN[2]}, DONE]},
            {"turns": first, "usage": {"anthropic": USAGE, "responses": USAGE}},
        ]
    }
    options = {"protocol": "vista", "context": "handoff:50000", "notes": "on"}
    with ScriptedServer(scenario) as server:
        outcome = run_agent(agent, "none", server, checkout, tmp_path, ids="90_01", jobs=1, kind_options=options)
        mains = [r for r in server.main_requests() if r.rule is not None]
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.correct, (record.status, record.error)
    assert record.sessions == 2 and record.handoffs == 1 and record.compactions == 0
    item = outcome.store.root / "sandboxes" / "90_01"
    assert [e["action"]["y"] for e in read_timeline(item)] == [30, 90, 270]  # each step once, across the sessions
    assert read_sessions(item)[1].reason.startswith("hand-off: the context reached")
    outputs = [conversation(r).last_output or "" for r in mains]
    assert any("Bring your notes up to date now" in text for text in outputs)
    prompt = conversation(next(r for r in mains if r.rule == 0)).prompt
    assert "two beacons lit; the third is at h5" in prompt and "2 step(s) taken, 98 left" in prompt
