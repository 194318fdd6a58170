"""Competition mode through the runner, a real CLI and the ARC API's stand-in in the toolkit's competition rules:
the card is opened as a competition card, no scorecard is asked for before it closes (the toolkit's server refuses
to show one), each game is made once, the closed card scores every game the API offers (those not played count 0),
and a RESET as a game's first action counts (offline it is free): said in one line where the harness refuses."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_eval.agents.registry import scripted_environ
from agent_eval.benchmarks.arcgames.games import WINNING
from agent_eval.datamodel.config import ConfigError
from agent_eval.scripted import ScriptedServer
from support.agentrun import run_agent
from support.arcapi import ApiStandIn, players, project_games
from support.arcgames import toolkit_scorecard

pytestmark = pytest.mark.e2e

AGENT_EVAL = str(Path(sys.executable).parent / "agent-eval")


def test_competition_mode_keeps_the_toolkits_rules(tmp_path):
    games = project_games(tmp_path)
    out = tmp_path / "out"
    with ApiStandIn(games, tmp_path / "api.jsonl", competition=True) as api, ScriptedServer(players()) as model:
        environ = {**scripted_environ("claude-code", model.url), **api.environ()}

        def run(name: str, tasks: str = "ae01", **options):
            return run_agent(
                "claude-code",
                "none",
                model,
                games,
                out,
                tasks=tasks,
                run_name=name,
                environ=environ,
                kind_options={"arc_mode": "competition"},
                **options,
            )

        with pytest.raises(ConfigError, match="makes each game once per scorecard.*--repeats must be 1"):
            run("twice", repeats=2)
        assert api.requests() == []  # refused before anything reached the API
        outcome = run("r")
        with pytest.raises(ConfigError, match="did not open a scorecard.*409"):
            run("another")  # the competition server opens one card in its life
        with pytest.raises(ConfigError, match="is closed .* never reopened or followed by another"):
            run("r", tasks="ae01,ae02")  # a resume with games left, of a run whose card is closed
        run("r")  # a resume with nothing left to play opens no card
        calls = api.requests()
    (record,) = outcome.store.records()
    assert record.status == "ok" and record.correct, (record.status, record.error)
    assert "competition mode" in record.metrics["online"]["unavailable"]
    (opened,) = [c for c in calls if c["path"] == "/api/scorecard/open" and c["status"] == 200]
    assert len([c for c in calls if c["path"] == "/api/scorecard/open"]) == 2  # and the refused second
    assert opened["body"]["competition_mode"] is True
    assert not [c for c in calls if c["path"].startswith("/api/scorecard/") and c["method"] == "GET"]
    card = json.loads((outcome.store.root / "run.json").read_text())["kind_run"]["scorecards"][0]
    assert card["state"] == "closed"
    entries = {e["id"]: e for e in card["summary"]["environments"]}
    assert sorted(entries) == ["ae01-v1", "ae02-v1", "ae03-v1"]  # every game the API offers is on the card ...
    assert entries["ae02-v1"]["score"] == entries["ae03-v1"]["score"] == 0  # ... those not played at 0
    offline = toolkit_scorecard(games, "ae01", WINNING["ae01-v1"], tmp_path)
    ae01 = entries["ae01-v1"]
    # The toolkit's competition server counts the first RESET (its offline scorecard starts the game over free)
    assert (ae01["actions"], ae01["resets"]) == (offline["actions"] + 1, offline["resets"] + 1)
    assert ae01["completed"] and ae01["score"] < offline["score"] == 100
    shown = subprocess.run([AGENT_EVAL, "show", str(outcome.store.root), "ae01"], capture_output=True, text=True)
    said = " ".join(shown.stdout.split())
    assert f"online (scorecard {card['card_id']}): WON, levels 3, {ae01['actions']} actions (1 resets)" in said
