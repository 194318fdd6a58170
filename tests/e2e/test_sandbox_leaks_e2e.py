"""The scripted model tries every leak a cheating agent would, through the real CLIs and the
whole runner (issue: the agent sees only its workdir and reaches only the model API). Every
attempt fails, no canary reaches the transcript or the model, and the run still answers."""
import json
import shutil
import threading
import uuid
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from agent_eval.scripted import ScriptedServer
from agent_eval.core.sandbox import PROJECT_ROOT
from support.agentrun import AGENTS, run_agent
from support.hello import Hello

pytestmark = pytest.mark.e2e


@pytest.fixture
def canaries(tmp_path, sample_data):
    """A canary in every place the agent must not see, and a loopback server that serves one."""
    token = f"CANARY-{uuid.uuid4().hex[:12]}"
    data = tmp_path / "data"
    shutil.copytree(sample_data, data)
    (data / "answers-canary.txt").write_text(f"{token}-dataset")
    other = tmp_path / "out" / "r" / "sandboxes" / "OTHER-0" / "work"
    other.mkdir(parents=True)
    (other / "secret.txt").write_text(f"{token}-other-item")
    home_dirs = [Path.home() / ".ssh", Path.home() / ".claude", Path.home() / ".codex"]
    created = []
    for directory in home_dirs:
        fresh = not directory.exists()
        directory.mkdir(exist_ok=True)
        canary = directory / f"agent-eval-canary-{token}"
        canary.write_text(f"{token}-home")
        created.append((canary, directory if fresh else None))
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hello)   # answers GET with its marker
    server.marker = f"{token}-network"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield {"token": token, "data": data, "other": other, "port": server.server_address[1], "out": tmp_path / "out"}
    finally:
        server.shutdown()
        for canary, fresh_dir in created:
            canary.unlink(missing_ok=True)
            if fresh_dir is not None:
                shutil.rmtree(fresh_dir, ignore_errors=True)


def attempts(c) -> list[str]:
    home = Path.home()
    return [
        f"cat {c['data']}/metadata.jsonl {c['data']}/answers-canary.txt",
        "ls -la .. ../..; cat ../../*/work/* ../*.jsonl ../../*/*.jsonl",
        f"cat {c['other']}/secret.txt; ls {c['other'].parent.parent}",
        f"cat {home}/.ssh/* {home}/.claude/* {home}/.codex/*; ls -la {home}; cat {PROJECT_ROOT}/README.md",
        f"python3 -c \"import urllib.request as u; print(u.urlopen('http://127.0.0.1:{c['port']}/', timeout=5).read())\"",
        f"curl -sS --max-time 5 http://127.0.0.1:{c['port']}/; curl -sS --max-time 5 --noproxy '*' "
        f"http://127.0.0.1:{c['port']}/; curl -sS --max-time 5 https://example.com/",
        f"echo pwned > {c['data']}/pwned.txt; echo pwned > {PROJECT_ROOT}/pwned.txt; echo pwned > {home}/pwned.txt; "
        "echo ok > inside.txt && cat inside.txt",
    ]


@pytest.mark.parametrize("agent", AGENTS)
def test_every_leak_attempt_fails_and_the_run_still_answers(agent, canaries):
    commands = attempts(canaries)
    scenario = {"turns": [{"call": "shell", "input": {"command": command}} for command in commands]
                + ["<answer>7</answer>"]}
    with ScriptedServer(scenario) as server:
        outcome = run_agent(agent, "python", server, canaries["data"], canaries["out"], ids="RC-0", run_name="r",
                            timeout_s=180)
        seen_by_model = json.dumps([r.body for r in server.requests])
    record = outcome.store.records()[0]
    item = outcome.store.root / "sandboxes" / "RC-0"
    everything = "".join(p.read_text(errors="replace") for p in item.rglob("*") if p.is_file() and p.suffix != ".png")
    token = canaries["token"]
    assert record.status == "ok" and record.prediction == "7" and record.tool_calls == len(commands)
    assert token not in everything, "a canary reached the item's transcript or workdir"
    assert token not in seen_by_model, "a canary reached the model"
    # The attempts really ran (their results came back), the allowed endpoint worked, writes stayed inside.
    assert seen_by_model.count("No such file or directory") >= 3
    assert (item / "work" / "inside.txt").read_text() == "ok\n"
    for path in (canaries["data"] / "pwned.txt", PROJECT_ROOT / "pwned.txt", Path.home() / "pwned.txt"):
        assert not path.exists()
