"""AI GameStore through the whole runner with both real CLIs, sandboxed, in every tool mode and both protocols: the
scripted model plays a given sequence (it never sees the game); the page runs in the browser host. The frames the
run recorded are the frames the same sequence gives played directly with no agent (the same action sequence twice
gives identical frame hashes), the record's raw score is the game's own, normalised against its median, and the
model never hears the score."""

import json

import pytest

from agent_eval.datamodel.transcript import Transcript
from agent_eval.scripted import ScriptedServer
from support.agentrun import AGENTS, run_agent
from support.aigamestore import PLAYS, direct, official_scenario, recorded_hashes, write_games

pytestmark = pytest.mark.e2e

MODES = ("none", "image", "python")
MEDIAN = 50  # game1's, in the test games' own table


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    return write_games(tmp_path_factory.mktemp("aigamestore") / "games")


@pytest.fixture(scope="module")
def expected(games, tmp_path_factory):
    """What the game gives for PLAYS with no agent: by VISTA's play, and by official replies."""
    return {
        "vista": direct(games, "game1", tmp_path_factory.mktemp("direct-vista")),
        "official": direct(games, "game1", tmp_path_factory.mktemp("direct-official"), via="reply"),
    }


def looks(mode: str) -> list[dict]:
    if mode == "none":
        return []
    calls = [
        {"call": "recall", "input": {"decision": 1}},
        {"call": "inspect", "input": {"frame": 2, "x": 0, "y": 0, "width": 80, "height": 20, "scale": 2, "grid": 10}},
        {"call": "read_pixels", "input": {"frame": 2, "x": 0, "y": 220, "width": 8, "height": 4}},
        {"call": "history", "input": {}},
    ]
    if mode == "python":
        calls.append(
            {
                "call": "shell",
                "input": {
                    "command": 'python3 -c "from PIL import Image; import glob; '
                    "print('png', len(glob.glob('frames/*.png')), Image.open('frames/0002.png').size)\"; "
                    "(echo x > frames/0002.png) 2>&1 | tail -1"
                },
            }
        )
    return calls


def vista_scenario(mode: str) -> dict:
    plays = [{"call": "play", "input": {"segments": s}} for s in PLAYS]
    return {"rules": [{"turns": plays + looks(mode) + [{"final": "I played. <answer>DONE</answer>"}]}]}


def tool_results(item_dir):
    return [s for s in Transcript.load(item_dir / "steps.json").steps if s.kind == "tool_result"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("agent", AGENTS)
def test_vistas_protocol_plays_the_game_as_the_game_plays_it(agent, mode, games, expected, tmp_path):
    with ScriptedServer(vista_scenario(mode)) as server:
        outcome = run_agent(
            agent, mode, server, games, tmp_path, tasks="game1", timeout_s=400, kind_options={"decisions": 3}
        )
        bodies = json.dumps([r.body for r in server.main_requests()])
    record = outcome.store.records()[0]
    assert record.status == "ok", (record.status, record.error)
    item = outcome.store.root / "sandboxes" / "game1"
    hashes, raw = expected["vista"]
    assert recorded_hashes(item) == hashes  # the same sequence, the same frames, whichever CLI played it
    metrics = record.metrics
    assert metrics["raw_score"] == raw and raw > 0
    assert metrics["normalized"] == pytest.approx(min(10000, max(1, 100 * raw / MEDIAN)))
    assert metrics["decisions"] == 3 and metrics["protocol"] == "vista" and metrics["frames"] == 16
    assert outcome.rollup["aigamestore"]["geometric_mean"] == pytest.approx(metrics["normalized"])
    results = tool_results(item)
    plays = results[:3]
    assert all(len(r.images) == 5 for r in plays) and "Stop now" in plays[-1].text
    assert '"highScore"' not in bodies and '"score"' not in bodies  # the state never reaches the model
    if mode != "none":
        recall, inspect, pixels, history = results[3:7]
        assert len(recall.images) == 5 and len(inspect.images) == 1
        assert '"rows": 4' in pixels.text and "decision 3 · episode 1" in history.text
    if mode == "python":
        assert "png 16 (320, 240)" in results[7].text and "Read-only file system" in results[7].text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("agent", AGENTS)
def test_the_official_protocol_is_one_fresh_request_per_decision(agent, mode, games, expected, tmp_path):
    with ScriptedServer(official_scenario()) as server:
        outcome = run_agent(
            agent,
            mode,
            server,
            games,
            tmp_path,
            tasks="game1",
            timeout_s=400,
            kind_options={"decisions": 3, "protocol": "official"},
        )
        requests = [r for r in server.main_requests() if r.rule is not None]
    record = outcome.store.records()[0]
    assert record.status == "ok", (record.status, record.error)
    item = outcome.store.root / "sandboxes" / "game1"
    hashes, raw = expected["official"]
    assert recorded_hashes(item) == hashes and record.metrics["raw_score"] == raw
    sessions = [json.loads(line) for line in (item / "sessions.jsonl").read_text().splitlines() if "kind" in line]
    assert [s["reason"] for s in sessions] == ["start", "decision 2", "decision 3"]
    assert all(s["kind"] == "new" for s in sessions)
    # each request holds its decision alone: the scratchpad carried from the last reply, nothing else of it
    texts = [json.dumps(r.body) for r in requests]
    assert len(requests) == 3 and "pad after decision 1" in texts[1] and "pad after decision 1" not in texts[2]
    assert "pad after decision 2" in texts[2] and "decision 1 of 3" not in texts[2]
    timeline = [json.loads(line) for line in (item / "game" / "timeline.jsonl").read_text().splitlines()]
    assert [m["segments"] for m in timeline[1:]] == PLAYS and all(m["via"] == "reply" for m in timeline[1:])
    assert record.metrics["replies_without_keys"] == 0 and record.metrics["protocol"] == "official"
