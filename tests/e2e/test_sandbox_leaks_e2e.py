"""The scripted model tries every leak a cheating agent would, through the real CLIs and the
whole runner (issue: the agent sees only its workdir and reaches only the model API). Every
attempt fails, no canary reaches the transcript or the model, and the run still answers. The image
tools run outside the sandbox, so the agent also turns its workdir into traps for them (links to
files outside, FIFOs, a linked views/): the canaries must stay unopened (inotify says so)."""

import contextlib
import json
import shlex
import shutil
import threading
import uuid
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image

from agent_eval.benchmarks.shared import image_tools
from agent_eval.datamodel.sandbox_policy import PROJECT_ROOT
from agent_eval.scripted import ScriptedServer
from agent_eval.tools.mcp_http import McpHost
from support.agentrun import AGENTS, run_agent
from support.hello import Hello
from support.openwatch import OpenWatch

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
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hello)  # answers GET with its marker
    server.marker = f"{token}-network"
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()  # shutdown waits a poll
    try:
        yield {"token": token, "data": data, "other": other, "port": server.server_address[1], "out": tmp_path / "out"}
    finally:
        server.shutdown()
        for canary, fresh_dir in created:
            canary.unlink(missing_ok=True)
            if fresh_dir is not None:
                # only when empty: another worker's test may have put its own canary there meanwhile
                with contextlib.suppress(OSError):
                    fresh_dir.rmdir()


def attempts(c) -> list[str]:
    home = Path.home()
    return [
        f"cat {c['data']}/metadata.jsonl {c['data']}/answers-canary.txt",
        "ls -la .. ../..; cat ../../*/work/* ../*.jsonl ../../*/*.jsonl",
        f"cat {c['other']}/secret.txt; ls {c['other'].parent.parent}",
        f"cat {home}/.ssh/* {home}/.claude/* {home}/.codex/*; ls -la {home}; cat {PROJECT_ROOT}/README.md",
        f'python3 -c "import urllib.request as u; '
        f"print(u.urlopen('http://127.0.0.1:{c['port']}/', timeout=5).read())\"",
        f"curl -sS --max-time 5 http://127.0.0.1:{c['port']}/; curl -sS --max-time 5 --noproxy '*' "
        f"http://127.0.0.1:{c['port']}/; curl -sS --max-time 5 https://example.com/",
        f"echo pwned > {c['data']}/pwned.txt; echo pwned > {PROJECT_ROOT}/pwned.txt; echo pwned > {home}/pwned.txt; "
        "echo ok > inside.txt && cat inside.txt",
    ] + other_tools_attempts(c["other_tools"])


MCP_INITIALIZE = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    '"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}'
)


def other_tools_attempts(url: str) -> list[str]:
    """Another item's image tools live on the same MCP host as this item's (tools/mcp_http.py): the agent
    tries its URL straight, through a CONNECT tunnel, without the proxy, and as a path under its own
    prefix (read from its own MCP config) climbing out with '..'."""
    post = (
        f"curl -sS --max-time 5 -X POST -H 'content-type: application/json' "
        f"-H 'accept: application/json, text/event-stream' -d '{MCP_INITIALIZE}'"
    )
    host, token = url.split("/")[2], url.split("/")[3]
    return [
        f"{post} {url}; {post} -p {url}; {post} --noproxy '*' {url}",
        f"own=$(grep -rhoa 'http://{host}/[0-9a-f]*/' ~ | head -1); echo own=${{own:+found}}; "
        f'{post} --path-as-is "${{own}}../{token}/mcp"; {post} --path-as-is "${{own}}%2e%2e/{token}/mcp"',
    ]


@pytest.mark.parametrize("agent", AGENTS)
def test_every_leak_attempt_fails_and_the_run_still_answers(agent, canaries, tmp_path):
    other_work = tmp_path / "other-tools"
    other_work.mkdir()
    Image.new("RGB", (333, 222), CANARY_COLOUR).save(other_work / "image.png")
    with image_tools(other_work) as (other_tools, _):
        commands = attempts({**canaries, "other_tools": other_tools.url})
        scenario = {
            "turns": [{"call": "shell", "input": {"command": command}} for command in commands] + ["<answer>7</answer>"]
        }
        with ScriptedServer(scenario) as server:
            outcome = run_agent(
                agent, "python", server, canaries["data"], canaries["out"], ids="RC-0", run_name="r", timeout_s=180
            )
            seen_by_model = json.dumps([r.body for r in server.requests])
        (mount,) = [m for m in McpHost.shared()._mounts.values() if m.url == other_tools.url]
        assert mount.requests == 0, "another item's image tools were reached"
    assert "own=found" in seen_by_model  # the agent found its own tools' prefix to climb out of
    assert "serverInfo" not in seen_by_model
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


@pytest.fixture
def outside_canary(tmp_path):
    """A canary image and a canary text outside the sandbox, in a directory the harness can read and
    write: what an image-tools server running outside the sandbox must never open or write into."""
    secret = tmp_path / "secret"
    secret.mkdir()
    Image.new("RGB", (333, 222), CANARY_COLOUR).save(secret / "canary.png")
    (secret / "canary.txt").write_text(f"CANARY-{uuid.uuid4().hex[:12]}")
    return secret


CANARY_COLOUR = "#ca7a11"


def tool_attacks(secret: Path) -> list[dict]:
    """The agent (python mode: it has a shell) turns its workdir into traps, then calls the image tools."""
    png, txt = secret / "canary.png", secret / "canary.txt"
    # In Python, not `ln -s`: Claude Code's Bash tool refuses commands that make links to paths it
    # considers out of bounds, and the point here is what the image tools do once the links exist.
    setup = python_command(f"""import os
os.rename('image.png', 'real.png'); os.symlink({str(png)!r}, 'image.png'); os.symlink({str(secret)!r}, 'd')
os.mkdir('sub'); os.symlink('..', 'sub/up'); os.mkfifo('pipe.png'); os.mkdir('views')
os.symlink({str(txt)!r}, 'views/palette.json'); os.symlink({str(png)!r}, 'views/001-inspect.png')
os.symlink({str(secret)!r}, 'views2'); print(sorted(os.listdir('.')), 'views2 ->', os.readlink('views2'))""")
    relink = python_command(f"""import os, shutil
shutil.rmtree('views'); os.symlink({str(secret)!r}, 'views'); print('views ->', os.readlink('views'))""")
    return [
        {"call": "shell", "input": {"command": setup}},
        {"call": "info", "input": {}},  # the default image is a link
        {"call": "inspect", "input": {"path": "image.png"}},
        {"call": "inspect", "input": {"path": "d/canary.png"}},  # through a linked directory
        {"call": "info", "input": {"path": "sub/up/image.png"}},
        {"call": "info", "input": {"path": str(png)}},  # absolute, outside
        {"call": "info", "input": {"path": "../../../../secret/canary.png"}},
        {"call": "info", "input": {"path": "pipe.png"}},  # a FIFO: must not hang
        {"call": "read_pixels", "input": {"path": "real.png"}},  # palette.json is a link
        {"call": "inspect", "input": {"path": "views/001-inspect.png"}},  # a view name taken by a link
        {"call": "shell", "input": {"command": relink}},
        {"call": "inspect", "input": {"path": "real.png"}},  # views/ itself is a link now
    ]


def python_command(program: str) -> str:
    return f"python3 -c {shlex.quote(program)}"


@pytest.mark.parametrize("agent", AGENTS)
def test_the_image_tools_never_open_a_file_outside_the_workdir(agent, outside_canary, sample_data, tmp_path):
    calls = tool_attacks(outside_canary)
    scenario = {"turns": calls + ["<answer>7</answer>"]}
    before = sorted(p.name for p in outside_canary.iterdir())
    with OpenWatch([outside_canary, *outside_canary.iterdir()]) as watch, ScriptedServer(scenario) as server:
        outcome = run_agent(agent, "python", server, sample_data, tmp_path / "out", ids="RC-0", timeout_s=120)
        seen_by_model = json.dumps([r.body for r in server.requests])
        touched = watch.events()
    record = outcome.store.records()[0]
    assert record.status == "ok" and record.tool_calls == len(calls), record.error
    assert touched == [], f"the canary directory was opened, read or written: {touched}"
    assert sorted(p.name for p in outside_canary.iterdir()) == before
    # The canary's colour and size, however a tool would print them (a bare "333" also occurs by chance
    # in base64 image data and random ids, so the size is looked for as a size).
    leaked = [
        m
        for m in (
            CANARY_COLOUR,
            "202, 122, 17",
            "(202,122,17)",
            "333x222",
            "333 x 222",
            "333×222",
            "333, 222",
            "width=333",
            '"width": 333',
            '\\"width\\": 333',
        )
        if m in seen_by_model.lower()
    ]
    assert leaked == [], leaked
    assert "CANARY-" not in seen_by_model
    # The traps were really set (the shell's listing came back) and each tool call was refused.
    assert "pipe.png" in seen_by_model and "views2 ->" in seen_by_model and "views ->" in seen_by_model
    assert seen_by_model.count("symbolic link") >= 5
    assert seen_by_model.count("outside the working directory") >= 2
    assert "no file 'pipe.png'" in seen_by_model and "is not a directory" in seen_by_model
