"""Online mode, through the whole runner with both real CLIs, against the ARC API's stand-in (the toolkit's own
server, tests/support/arcapi.py): one scorecard opened before the first game, every game of the run made on it by
the toolkit's real client from inside the game's jail (its only way out the run's proxy to the API's host), closed
when the run ends; the card's totals equal the toolkit's offline scorecard of the same actions; the key is in no
file the run leaves and not in the agent's sandbox."""

import json
import re
from pathlib import Path

import pytest

from agent_eval.benchmarks.arcgames.games import WINNING
from agent_eval.engine.gateway.redact import MARK
from agent_eval.scripted import ScriptedServer
from support.agentrun import run_agent
from support.arcapi import GAMES, KEY, ApiStandIn, files_holding, players, project_games
from support.arcgames import toolkit_scorecard

pytestmark = pytest.mark.e2e

ENV_REVERSED = {"call": "shell", "input": {"command": "env | rev"}}


@pytest.mark.parametrize("agent, mode", [("claude-code", "python"), ("codex", "image")])
def test_one_scorecard_opened_played_and_closed_for_several_games(agent, mode, tmp_path):
    games = project_games(tmp_path)
    after = [ENV_REVERSED] if mode == "python" else []
    with ApiStandIn(games, tmp_path / "api.jsonl") as api, ScriptedServer(players(after)) as model:
        from agent_eval.agents.registry import scripted_environ

        outcome = run_agent(
            agent,
            mode,
            model,
            games,
            tmp_path / "out",
            environ={**scripted_environ(agent, model.url), **api.environ()},
            kind_options={"arc_mode": "online"},
            jobs=2,
            timeout_s=180,
        )
        calls = api.requests()
    records = {r.id: r for r in outcome.store.records()}
    assert sorted(records) == list(GAMES)
    assert all(r.status == "ok" and r.correct for r in records.values()), [
        (r.id, r.status, r.error) for r in records.values()
    ]

    # One card: opened once before the games, every game made on it, closed once at the end.
    opened = [c for c in calls if c["path"] == "/api/scorecard/open"]
    closed = [c for c in calls if c["path"] == "/api/scorecard/close"]
    assert len(opened) == 1 and len(closed) == 1 and opened[0]["status"] == closed[0]["status"] == 200
    card_id = closed[0]["body"]["card_id"]
    made = [c for c in calls if c["path"] == "/api/cmd/RESET" and "card_id" in (c["body"] or {})]
    assert sorted(c["body"]["game_id"] for c in made) == [f"{g}-v1" for g in GAMES]
    assert {c["body"]["card_id"] for c in made} == {card_id}
    assert calls.index(opened[0]) < min(calls.index(c) for c in made) and calls.index(closed[0]) == len(calls) - 1
    assert all(c["key"] == "right" for c in calls)  # the key reached the API from every jail ...
    game_calls = [c for c in calls if c["path"].startswith("/api/cmd/") and "card_id" not in (c["body"] or {})]
    assert game_calls and all(c["cookie_echoed"] for c in game_calls)  # ... and each game kept its affinity cookie

    # run.json: the card's id, URL and the toolkit's summary; each record: its play's entry beside the offline card.
    run = json.loads((outcome.store.root / "run.json").read_text())
    cards = run["kind_run"]["scorecards"]
    assert len(cards) == 1 and cards[0]["card_id"] == card_id and cards[0]["state"] == "closed"
    assert cards[0]["url"] == f"{api.url}/scorecards/{card_id}"
    summary = cards[0]["summary"]
    assert summary["total_environments"] == 3 and summary["total_environments_completed"] == 3
    for game in GAMES:
        online = records[game].metrics["online"]
        assert online["card_id"] == card_id and online["differs_from_offline"] == []
        assert online["local_replay"]["frames_equal"] and online["completed"]

    # The card's totals are the toolkit's offline scorecard of the same actions, played directly.
    direct = {g: toolkit_scorecard(games, g, WINNING[f"{g}-v1"], tmp_path) for g in GAMES}
    by_game = {e["id"].split("-")[0]: e for e in summary["environments"]}
    for game in GAMES:
        assert {k: by_game[game][k] for k in ("score", "actions", "levels_completed", "resets")} == {
            k: direct[game][k] for k in ("score", "actions", "levels_completed", "resets")
        }
    assert summary["total_actions"] == sum(d["actions"] for d in direct.values())
    assert summary["score"] == pytest.approx(sum(d["score"] for d in direct.values()) / 3)

    # The key: in no file the run left (nothing had to be scrubbed either), nor in the agent's sandbox.
    assert files_holding(outcome.store.root, KEY) == []
    # Claude Code's own MCP log writes every header value of its MCP servers as "[REDACTED]" (our servers ask for
    # `Connection: close`): that one is the CLI's, not the gateway's scrubbing.
    own = re.compile(r'Connection\\*":\\*"' + re.escape(MARK))  # in its log line's JSON, escaped
    scrubbed = [p for p in files_holding(outcome.store.root, MARK) if MARK in own.sub("", Path(p).read_text("latin-1"))]
    assert scrubbed == []
    assert KEY not in json.dumps(run)
    for record in records.values():
        meta = json.loads((outcome.store.root / "sandboxes" / record.id / "meta.json").read_text())
        assert not [name for name in meta["env_names"] if "ARC" in name]
    if mode == "python":  # what `env` printed inside the sandbox, reversed (so no scrubbing could hide the key)
        steps = json.loads((outcome.store.root / "sandboxes" / "ae01" / "steps.json").read_text())["steps"]
        printed = [s["text"][::-1] for s in steps if s["kind"] == "tool_result" and "=HTAP" in s["text"]]
        assert printed and "PATH=" in printed[0] and KEY not in printed[0] and "ARC_" not in printed[0]
