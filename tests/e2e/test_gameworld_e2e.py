"""GameWorld tasks through the whole runner with both real CLIs, sandboxed, against the scripted model (it never sees
the game): the project's own test game played in every tool mode under both protocols and both interfaces, scored
by GameWorld's evaluator from the page's state; the screens the agent was shown are the ones the same actions give
when played directly; the official protocol's decisions are fresh sessions shown their two preceding steps."""

import json

import pytest

from agent_eval.benchmarks.games.folder import read_timeline
from agent_eval.datamodel.sessions import read_sessions
from agent_eval.datamodel.transcript import Transcript
from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.inspect_requests import offered_tool_names, prompt_text
from support.agentrun import AGENTS, run_agent
from support.gameworld import WIN, WIN_SEMANTIC, official, open_session, page_host, task, vista, write_checkout

pytestmark = pytest.mark.e2e

MODES = ("none", "image", "python")


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    return write_checkout(tmp_path_factory.mktemp("gameworld") / "checkout")


@pytest.fixture(scope="module")
def direct_hashes(checkout, tmp_path_factory) -> list[str]:
    """The screens WIN's clicks give played directly on a fresh page, no agent: once for every VISTA run."""
    with page_host(task(checkout), tmp_path_factory.mktemp("host")) as host:
        direct = open_session(host, task(checkout), tmp_path_factory.mktemp("direct"))
        for move in WIN:
            direct.act(0, move, "computer_use")
    return [step.frame_hash for step in direct.steps]


def looks(mode: str, frame: int) -> list[dict]:
    """The memory tools' calls a mode allows, on a screen the decision was shown."""
    if mode == "none":
        return []
    calls = [
        {"call": "recall", "input": {"frames": [frame]}},
        {
            "call": "inspect",
            "input": {"frame": frame, "x": 420, "y": 0, "width": 60, "height": 60, "scale": 4, "grid": 20},
        },
        {
            "call": "read_pixels",
            "input": {"frame": frame, "x": 440, "y": 20, "width": 20, "height": 20, "rows": 2, "columns": 2},
        },
        {"call": "history", "input": {}},
    ]
    if mode == "python":
        calls.append(
            {
                "call": "shell",
                "input": {
                    "command": "python3 -c \"import glob; print('screens', sorted(glob.glob('frames/*.png')))\"; "
                    "(echo x > frames/0001.png) 2>&1 | tail -1"
                },
            }
        )
    return calls


def run_official(agent: str, mode: str, server, checkout, out, **options):
    """Task 90_01 under GameWorld's official protocol (a session per decision: room for them in the timeout)."""
    kind_options = {"protocol": "official", **options}
    return run_agent(agent, mode, server, checkout, out, ids="90_01", jobs=1, timeout_s=240, kind_options=kind_options)


def results(item_dir) -> list:
    steps = Transcript.load(item_dir / "steps.json").steps
    return [s for s in steps if s.kind == "tool_result"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("agent", AGENTS)
def test_the_official_protocol_wins_the_task_one_fresh_decision_per_step(agent, mode, checkout, tmp_path):
    decisions = [looks(mode, 1) + [WIN[0] | {"reasoning": "top right"}], [WIN[1]], looks(mode, 2) + [WIN[2]]]
    with ScriptedServer(official(decisions)) as server:
        outcome = run_official(agent, mode, server, checkout, tmp_path)
        prompts = [prompt_text(r) for r in server.main_requests() if r.rule is not None]
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.correct, (record.status, record.error)
    metrics = record.metrics
    assert (metrics["status"], metrics["progress"], metrics["stop_reason"]) == ("success", 1.0, "target_reached")
    assert metrics["steps"] == 3 and record.sessions == 3
    item = outcome.store.root / "sandboxes" / "90_01"
    sessions = read_sessions(item)
    assert [s.kind for s in sessions] == ["new"] * 3 and sessions[1].reason.startswith("decision 2")
    # decision 3 was shown its two preceding steps: their screens, actions and the reason given with the first
    third = next(p for p in prompts if "This is decision 3." in p)
    assert "step 1 (image 1 is the screen you decided it on): click (450, 30) left; your reason: top right" in third
    assert "step 2 (image 2" in third and "The current screen is image 3 (screen 3)" in third
    marker = json.loads((item / "transcript.jsonl").read_text().splitlines()[0])["event"]
    assert marker["images"] == ["game/frames/0001.png"]
    if mode != "none":
        texts = [r.text for r in results(item)]
        assert any('"palette"' in t for t in texts)  # read_pixels answered
        assert any("step 1: click (450, 30) left; reason: top right" in t for t in texts)  # history, decision 3
    if mode == "python":  # the shell sees this decision's screens only, read-only
        shell = [t for t in (r.text for r in results(item)) if "screens" in t]
        assert "frames/0001.png" in shell[0] and "0002" not in shell[0]
        assert "frames/0001.png', 'frames/0002.png', 'frames/0003.png'" in shell[-1]
        assert all("Read-only" in t or "Permission denied" in t for t in shell)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("agent", AGENTS)
def test_vistas_protocol_wins_the_task_in_one_session(agent, mode, checkout, direct_hashes, tmp_path):
    turns = [WIN[0], *looks(mode, 2), WIN[1], WIN[2]]
    with ScriptedServer(vista(turns)) as server:
        outcome = run_agent(
            agent, mode, server, checkout, tmp_path, ids="90_01", jobs=1, kind_options={"protocol": "vista"}
        )
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.correct, (record.status, record.error)
    assert record.sessions == 1 and record.metrics["steps"] == 3
    item = outcome.store.root / "sandboxes" / "90_01"
    if mode != "none":  # the looks answered on the screenshots (no tool error)
        texts = [r.text for r in results(item)]
        assert any('"palette"' in t for t in texts) and any("decided on screen 1" in t for t in texts), texts
    acts = [r for r in results(item) if r.text.lstrip().startswith('{"step"')]
    assert [json.loads(r.text.strip().splitlines()[0])["frame"] for r in acts] == [2, 3, 4]
    assert all(r.images for r in acts)  # each step's answer is the screen after it
    timeline = read_timeline(item)
    # the screens the agent saw are those the same clicks give when played directly on a fresh page
    assert [e["frame_hash"] for e in timeline] == direct_hashes


@pytest.mark.parametrize("protocol", ("official", "vista"))
@pytest.mark.parametrize("agent", AGENTS)
def test_the_semantic_interface_plays_the_roles_named_controls(agent, protocol, checkout, tmp_path):
    scenario = (
        official([[m] for m in WIN_SEMANTIC], "control") if protocol == "official" else vista(WIN_SEMANTIC, "control")
    )
    options = {"protocol": protocol, "interface": "semantic"}
    with ScriptedServer(scenario) as server:
        outcome = run_agent(
            agent, "none", server, checkout, tmp_path, ids="90_01", jobs=1, kind_options=options, timeout_s=240
        )
        offered = offered_tool_names(server.main_requests()[0])
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.correct, (record.status, record.error)
    timeline = read_timeline(outcome.store.root / "sandboxes" / "90_01")
    assert [e["given"]["control"] for e in timeline] == ["light_cell"] * 3
    assert [e["action"]["x"] for e in timeline] == [450, 450, 450]
    assert any(name.endswith("control") for name in offered) and not any(name.endswith("__act") for name in offered)


@pytest.mark.parametrize("agent", AGENTS)
def test_an_official_decision_without_a_call_is_a_step_with_nothing_sent(agent, checkout, tmp_path):
    """GameWorld: "No function call parsed" is an invalid action; the step counts. The budget ends the task."""
    decisions = [[], [WIN[0]], []]
    with ScriptedServer(official(decisions)) as server:
        outcome = run_official(agent, "none", server, checkout, tmp_path, max_steps=3)
    record = outcome.store.records()[0]
    assert record.status == "ok" and not record.correct
    metrics = record.metrics
    assert (metrics["steps"], metrics["invalid_steps"], metrics["stop_reason"]) == (3, 2, "max_steps_exhausted")
    assert metrics["status"] == "fail" and metrics["progress"] == pytest.approx(1 / 3)
    timeline = read_timeline(outcome.store.root / "sandboxes" / "90_01")
    assert [e["invalid_kind"] for e in timeline] == ["no_function_call", None, "no_function_call"]
