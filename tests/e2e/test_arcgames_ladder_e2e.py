"""VISTA's rungs through both real CLIs: each rung offers exactly its game tools (a tool of another rung is never
offered), frames reach the model as text on the text rung (no image anywhere), and the notes are written and read
through the harness's tools in mode none, every version kept."""

import re
from pathlib import Path

import pytest

from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.inspect_requests import conversation, has_image, offered_tool_names
from support.agentrun import AGENTS, run_agent
from support.arcgames import WIN, write_game
from support.clirun import invoke

pytestmark = pytest.mark.e2e
# a row of the text grid: 64 hex digits ending a line (Codex joins the JSON and the grid without a line break)
GRID_ROW = re.compile(r"[0-9a-f]{64}$", re.M)


def plays(actions) -> list[dict]:
    return [
        {"call": "play", "input": {"action": a[0], "x": a[1], "y": a[2]} if isinstance(a, tuple) else {"action": a}}
        for a in actions
    ]


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    root = tmp_path_factory.mktemp("ladder") / "environment_files"
    write_game(root, "tg01")
    return root


def game_tools(request) -> list[str]:
    return sorted(name.split("__")[-1] for name in offered_tool_names(request) if name.startswith("mcp__game"))


@pytest.mark.parametrize("agent", AGENTS)
def test_the_text_rung_with_notes_shows_frames_as_text_and_keeps_the_notes(agent, games, tmp_path):
    turns = (
        plays(WIN[:2])
        + [
            {"call": "write_note", "input": {"name": "GUIDE.md", "text": "ACTION4 moves the blue pixel right"}},
            {"call": "read_notes", "input": {}},
        ]
        + plays(WIN[2:])
        + [{"final": "<answer>DONE</answer>"}]
    )
    options = {"observation": "text", "notes": "on"}
    with ScriptedServer({"rules": [{"turns": turns}]}) as server:
        outcome = run_agent(agent, "none", server, games, tmp_path, kind_options=options)
        mains = server.main_requests()
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.correct, (record.status, record.error)
    assert game_tools(mains[0]) == ["play", "read_notes", "write_note"]
    assert not any(has_image(r) for r in mains)  # the text rung sends no image at all
    outputs = [conversation(r).last_output or "" for r in mains]
    assert any(len(GRID_ROW.findall(text)) == 64 for text in outputs)  # a frame as 64 rows of 64 hex digits
    assert any("ACTION4 moves the blue pixel right" in text for text in outputs)  # read_notes read it back
    assert "GUIDE.md: what the game is" in conversation(mains[0]).prompt
    metrics = record.metrics
    assert metrics["notes_written"] == 1 and metrics["observations"]["images"] == 0
    # every frame shown as text: the first one with the task, then one per play
    assert metrics["observations"]["text_chars"] == (1 + len(WIN)) * (64 * 65 - 1)
    assert len(GRID_ROW.findall(conversation(mains[0]).prompt)) == 64  # the first frame, as text, with the task
    item = outcome.store.root / "sandboxes" / "tg01" / "notes"
    assert (item / "GUIDE.md").read_text() == "ACTION4 moves the blue pixel right"
    shown = invoke("show", outcome.store.root, "tg01").output
    assert "notes (1 version(s) written)" in shown and "GUIDE.md v1" in shown
    report = tmp_path / "report.html"
    assert invoke("report", outcome.store.root, "-o", report).exit_code == 0
    assert "ACTION4 moves the blue pixel right" in report.read_text()


@pytest.mark.parametrize("agent", AGENTS)
def test_memory_without_pixel_readout_offers_recall_and_inspect_only(agent, games, tmp_path):
    turns = plays(WIN) + [{"call": "recall", "input": {"step": 2}}, {"final": "<answer>DONE</answer>"}]
    with ScriptedServer({"rules": [{"turns": turns}]}) as server:
        outcome = run_agent(agent, "image", server, games, tmp_path, kind_options={"pixel_readout": "off"})
        mains = server.main_requests()
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.correct, (record.status, record.error)
    assert {tuple(game_tools(r)) for r in mains} == {("inspect", "play", "recall")}
    assert outcome.store.read_manifest().config.kind_options["pixel_readout"] == "off"  # in the run's identity


def test_the_ladder_runs_as_one_sweep_on_the_projects_own_game(tmp_path):
    """sweeps/arcgames-ladder.yaml itself, both CLIs, on one of the project's own games (ae02, won by its known
    sequence): every rung's cell runs, offers exactly its tool set, and consecutive rungs pair in compare."""
    import os

    from rich.console import Console

    from agent_eval.agents.registry import scripted_environ
    from agent_eval.benchmarks.arcgames.benchmark import ArcGames
    from agent_eval.benchmarks.arcgames.games import WINNING
    from agent_eval.commands.options import sweep_options
    from agent_eval.datamodel.results import RunStore
    from agent_eval.engine.sweeps import load_sweep, run_sweep
    from support.agentrun import MODELS

    data = tmp_path / "games"
    ArcGames().write_samples(data, seed=0, per_task=1, difficulty="")
    sweep = load_sweep(Path(__file__).parents[2] / "sweeps" / "arcgames-ladder.yaml", sweep_options())
    sweep.data, sweep.out_dir, sweep.selection, sweep.jobs = str(data), tmp_path / "out", {"ids": "ae02"}, 1
    sweep.grid = [{**entry, "models": [MODELS[entry["agent"]]]} for entry in sweep.grid]  # the scripted models
    sweep.run["timeout_s"] = 120
    turns = plays(WINNING["ae02-v1"]) + [{"final": "<answer>DONE</answer>"}]
    with ScriptedServer({"rules": [{"turns": turns}]}) as server:
        environ = scripted_environ("claude-code", server.url) | scripted_environ("codex", server.url)
        cells = run_sweep(sweep, Console(file=open(os.devnull, "w")), environ=environ, scripted_model=True)
        offered = {tuple(game_tools(r)) for r in server.main_requests()}
    assert len(cells) == 14
    notes = ("read_notes", "write_note")
    assert offered == {  # the rungs' tool sets, and no other
        ("play",),
        ("play", *notes),
        ("inspect", "play", "read_notes", "recall", "write_note"),
        ("inspect", "play", "read_notes", "read_pixels", "recall", "write_note"),
    }
    for agent in ("claude-code", "codex"):
        rungs = [c for c in cells if c.name.startswith(agent)]
        assert len(rungs) == 7
        for cell in rungs:
            (record,) = RunStore(cell).records()
            assert record.status == "ok" and record.correct, (cell.name, record.status, record.error)
        # each consecutive pair of rungs differs in one rung: compare pairs them (exit 0)
        for lower, upper in zip(rungs, rungs[1:]):
            shown = invoke("compare", lower, upper)
            assert shown.exit_code == 0, (lower.name, upper.name, shown.output[-800:])
        refused = invoke("compare", rungs[0], rungs[-1])  # base against (vi): many rungs apart
        assert refused.exit_code != 0 and "more than the rung under study" in refused.output
