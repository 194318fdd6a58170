"""What an agent with a shell can reach of a browser game (python mode, both real CLIs): it searches the filesystem
for the game's files (a canary is in them), asks the page's origin for them over loopback, looks for the browser
among the processes, reads another item's frames and tries to write into its own read-only frame archive. It finds
its own frames and nothing else; no canary reaches the model."""

import json
import uuid

import pytest

from agent_eval.scripted import ScriptedServer
from support.agentrun import AGENTS, run_agent
from support.aigamestore import PLAYS, write_games

pytestmark = pytest.mark.e2e


def searches(data, out) -> list[dict]:
    commands = [
        f"ls -la {data}/games/game1 2>&1 | head -3; cat {data}/games/*/game.js 2>&1 | head -3",
        "find / -xdev -name game.js -not -path '/proc/*' 2>/dev/null | head -3; "
        "grep -rl CANARY- / --include=*.js --include=*.html 2>/dev/null | head -3",
        "curl -s -f -m 5 http://127.0.0.1:8000/games/game1/game.js; echo curl=$?",
        # a marker for each browser process in sight (the patterns do not match this command's own line)
        "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -o 'page_hos[t][.]py\\|chromiu[m]' "
        "| sed 's/^/SEE'N'-/'; echo procs",
        f"ls ../../*/game/frames {out}/r/sandboxes/*/game 2>&1 | head -4",
        "python3 -c \"import glob; print('own frames', len(glob.glob('frames/*.png')))\"; "
        "(echo x > frames/0001.png) 2>&1 | tail -1",
    ]
    return [{"call": "shell", "input": {"command": c}} for c in commands]


@pytest.mark.parametrize("agent", AGENTS)
def test_the_game_the_browser_and_other_items_frames_stay_out_of_reach(agent, tmp_path):
    token = f"CANARY-{uuid.uuid4().hex[:12]}"
    data = write_games(tmp_path / "games", canary=token)
    out = tmp_path / "out"
    turns = [
        {"call": "play", "input": {"segments": PLAYS[0]}},
        *searches(data, out),
        {"final": "<answer>DONE</answer>"},
    ]
    with ScriptedServer({"rules": [{"turns": turns}]}) as server:
        outcome = run_agent(
            agent, "python", server, data, out, tasks="game1,game2", run_name="r", jobs=2, timeout_s=400,
            kind_options={"decisions": 2},
        )  # fmt: skip
        seen_by_model = json.dumps([r.body for r in server.requests])
    records = outcome.store.records()
    assert {r.id: r.status for r in records} == {"game1": "ok", "game2": "ok"}, [r.error for r in records]
    assert token not in seen_by_model, "a canary of the game files reached the model"
    assert "own frames 6" in seen_by_model and "Read-only file system" in seen_by_model
    assert "procs" in seen_by_model and "SEEN-" not in seen_by_model  # the browser is not in sight
    assert "curl=0" not in seen_by_model  # nothing answers on the page's origin outside the jail
    assert "getGameState" not in seen_by_model  # nothing of the game's code
    for record in records:
        item = outcome.store.root / "sandboxes" / record.id
        work = "".join(
            p.read_text(errors="replace") for p in (item / "work").rglob("*") if p.is_file() and p.suffix != ".png"
        )
        assert token not in work
        assert (item / "game" / "frames" / "0001.png").stat().st_size > 100  # the archive was not overwritten
