"""What an agent with a shell can reach of the games (python mode, both real CLIs): it searches the
filesystem for the game's source and metadata (a canary is in both), reads other items' frames through
the sandboxes folder, and tries to write into its own read-only frame archive. It finds its own frames
and nothing else; no canary reaches the model."""

import json
import uuid

import pytest

from agent_eval.scripted import ScriptedServer
from agent_eval.scripted.game_play import play_scenario
from support.agentrun import AGENTS, run_agent
from support.arcgames import write_game

pytestmark = pytest.mark.e2e


def searches(games_dir, out_dir, token: str) -> list[dict]:
    commands = [
        f"ls -la {games_dir} {games_dir}/tg01/v1 2>&1; "
        f"cat {games_dir}/*/v1/metadata.json {games_dir}/*/v1/*.py 2>&1 | head",
        "find / -xdev \\( -name 'tg0*.py' -o -name metadata.json -o -name timeline.jsonl \\) -not -path '/proc/*' "
        "2>/dev/null | head; grep -rl CANARY- / --include=*.py --include=*.json 2>/dev/null | head -3",
        "ls -la .. ../.. 2>&1; ls ../../*/game/frames ../../*/work/frames 2>&1 | head; "
        f"ls {out_dir}/r/sandboxes/*/game 2>&1 | head",
        "python3 -c \"import numpy, glob; print('own frames', len(glob.glob('frames/*.npy')))\"; "
        "echo x > frames/0001.npy 2>&1 | tail -1",
    ]
    return [{"call": "shell", "input": {"command": c}} for c in commands]


@pytest.mark.parametrize("agent", AGENTS)
def test_the_game_and_other_items_frames_stay_out_of_reach(agent, tmp_path):
    token = f"CANARY-{uuid.uuid4().hex[:12]}"
    games = tmp_path / "environment_files"
    write_game(games, "tg01", canary=token)
    write_game(games, "tg02", canary=token)
    out = tmp_path / "out"
    scenario = play_scenario(["RESET", "ACTION4"], after=searches(games, out, token))
    with ScriptedServer(scenario) as server:
        # graded where the script stops (continued, as by default, it would search the filesystem again each time)
        outcome = run_agent(
            agent,
            "python",
            server,
            games,
            out,
            run_name="r",
            jobs=2,
            timeout_s=240,
            kind_options={"early_stop": "grade"},
        )
        seen_by_model = json.dumps([r.body for r in server.requests])
    records = outcome.store.records()
    assert {r.id: r.status for r in records} == {"tg01": "ok", "tg02": "ok"}
    assert token not in seen_by_model, "a canary of the game files reached the model"
    assert "own frames 3" in seen_by_model  # its own archive is there, read-only (the first frame and 2 plays)
    assert "Read-only file system" in seen_by_model
    assert "GOAL_CLICK" not in seen_by_model and "baseline_actions" not in seen_by_model
    for record in records:
        item = outcome.store.root / "sandboxes" / record.id
        work_files = "".join(
            p.read_text(errors="replace")
            for p in (item / "work").rglob("*")
            if p.is_file() and p.suffix not in (".png", ".npy")
        )
        assert token not in work_files
        assert (item / "game" / "frames" / "0001.npy").stat().st_size > 100  # the archive was not overwritten
