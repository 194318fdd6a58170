"""What an agent with a shell can reach of a GameWorld task (python mode, both real CLIs): it searches the filesystem
for the checkout (a canary is in the game's page and in the task file, whose target and evaluator settings are the
answer key), asks the page's origin and the page host for anything, and tries to write into its read-only screens.
It finds its own screens and nothing else; no canary, no evaluator setting reaches the model."""

import json
import uuid

import pytest

from agent_eval.scripted import ScriptedServer
from support.agentrun import AGENTS, run_agent
from support.gameworld import WIN, vista, write_checkout

pytestmark = pytest.mark.e2e


def searches(checkout) -> list[dict]:
    """Shell calls, each one attempt: read the checkout, find its files anywhere, ask the page's origin, write into
    the screens."""
    game, task_file = checkout / "games" / "benchmark" / "90_beacon", checkout / "catalog" / "tasks" / "90_beacon"
    attempts = {
        "read": f"ls -la {checkout} {game} 2>&1 | head; cat {task_file}/90_01.yaml {game}/game_api.js 2>&1 | head",
        "find": "find / -xdev \\( -name game_api.js -o -name 90_01.yaml -o -name timeline.jsonl -o -name result.json "
        "\\) -not -path '/proc/*' 2>/dev/null | head; grep -rl CANARY- / --include=*.js --include=*.yaml 2>/dev/null",
        "origin": "curl -s -m 3 http://127.0.0.1:8000/game_api.js 2>&1 | head -3; echo curl-exit=$?",
        "write": "python3 -c \"import glob; print('own screens', len(glob.glob('frames/*.png')))\"; "
        "echo x > frames/0001.png 2>&1 | tail -1",
    }
    return [{"call": "shell", "input": {"command": command}} for command in attempts.values()]


@pytest.mark.parametrize("agent", AGENTS)
def test_the_checkout_the_page_and_the_evaluator_stay_out_of_reach(agent, tmp_path):
    token = f"CANARY-{uuid.uuid4().hex[:12]}"
    checkout = write_checkout(tmp_path / "checkout")
    for path in (
        checkout / "games" / "benchmark" / "90_beacon" / "game_api.js",
        checkout / "catalog" / "tasks" / "90_beacon" / "90_01.yaml",
    ):
        path.write_text(
            path.read_text() + f"\n# {token}\n" if path.suffix == ".yaml" else path.read_text() + f"\n// {token}\n"
        )
    out = tmp_path / "out"
    with ScriptedServer(vista([WIN[0], *searches(checkout), WIN[1], WIN[2]])) as server:
        outcome = run_agent(agent, "python", server, checkout, out, ids="90_01", jobs=1, timeout_s=240)
        seen_by_model = json.dumps([r.body for r in server.requests])
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.correct, (record.status, record.error)
    assert token not in seen_by_model, "a canary of the checkout reached the model"
    for secret in ("task_target_score_field", "score_field", "getState", "lit_by_click"):
        assert secret not in seen_by_model, secret
    assert "own screens 2" in seen_by_model  # its own screens are there (the start and one step), read-only
    assert "Read-only file system" in seen_by_model
    item = outcome.store.root / "sandboxes" / "90_01"
    work_files = "".join(
        p.read_text(errors="replace") for p in (item / "work").rglob("*") if p.is_file() and p.suffix != ".png"
    )
    assert token not in work_files
