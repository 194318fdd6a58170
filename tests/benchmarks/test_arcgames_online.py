"""Online and competition modes' refusals and guarantees that need no agent: said in one line before anything is
opened (no key, a wrong key, a game the API serves at another version, --shard), an online game never replayed,
the key masked in everything a host writes, and offline runs' identities unchanged."""

import json
import shutil
import socket
import subprocess
import textwrap
import threading
import time
from pathlib import Path

import pytest

from agent_eval.benchmarks import registry
from agent_eval.benchmarks.arcgames.game_process import GameProcess
from agent_eval.benchmarks.arcgames.games import GAMES_DIR
from agent_eval.benchmarks.arcgames.toolkit_process import ONLINE_HOST, GameError, Online, toolkit_python
from agent_eval.datamodel.config import ConfigError
from agent_eval.engine.egress import Egress
from agent_eval.scripted import ScriptedServer
from support.agentrun import run_agent
from support.arcapi import KEY, ApiStandIn, project_games


@pytest.fixture
def games(tmp_path):
    return project_games(tmp_path)


@pytest.fixture
def api(games, tmp_path):
    with ApiStandIn(games, tmp_path / "api.jsonl") as standin:
        yield standin


def start_run(data, tmp_path, environ: dict, **config):
    from agent_eval.agents.registry import scripted_environ

    with ScriptedServer({"turns": ["<answer>DONE</answer>"]}) as model:
        return run_agent(
            "codex",
            "none",
            model,
            data,
            tmp_path / "out",
            environ={**scripted_environ("codex", model.url), **environ},
            kind_options={"arc_mode": "online", **config.pop("kind_options", {})},
            **config,
        )


def test_without_a_key_the_run_says_where_to_put_it(games, tmp_path):
    with pytest.raises(ConfigError, match="--arc-mode online plays at the ARC API with your key: set ARC_API_KEY"):
        start_run(games, tmp_path, {})


def test_a_wrong_key_is_refused_before_any_game(games, api, tmp_path):
    with pytest.raises(ConfigError, match=r"offered no games \(.*401.*\): check ARC_API_KEY and ARC_BASE_URL"):
        start_run(games, tmp_path, {**api.environ(), "ARC_API_KEY": "not-the-key"})
    assert [r["key"] for r in api.requests()] == ["wrong"] and not list((tmp_path / "out").rglob("timeline.jsonl"))


def test_a_game_the_api_serves_at_another_version_is_refused(games, api, tmp_path):
    ours = tmp_path / "ours"
    shutil.copytree(games, ours)
    (ours / "ae01" / "v1").rename(ours / "ae01" / "v2")
    meta = ours / "ae01" / "v2" / "metadata.json"
    meta.write_text(meta.read_text().replace('"ae01-v1"', '"ae01-v2"'))
    with pytest.raises(ConfigError, match=r"does not offer ae01-v2 at the run's version\(s\) \(it offers ae01-v1"):
        start_run(ours, tmp_path, api.environ())
    assert not api.calls("/api/scorecard/open", None)  # refused before a card was opened


def test_a_sharded_online_run_is_refused(games, api, tmp_path):
    with pytest.raises(ConfigError, match="puts every game of a run on one scorecard; --shard"):
        start_run(games, tmp_path, api.environ(), shard="1/2")


def test_an_online_game_is_never_replayed(api, tmp_path):
    with Egress([api.url]) as door:
        online = Online("online", KEY, api.url, door.net_dir, door.socket_name, open_card(door, api))
        with GameProcess(GAMES_DIR, "ae01", "v1", scratch=tmp_path, online=online) as game:
            game.step("RESET")
            with pytest.raises(GameError, match="never replayed"):
                game.replay([("RESET", None, None)])
            with pytest.raises(GameError, match="never replayed: every replayed action would count again"):
                game._request({"op": "replay", "actions": [["RESET", None, None]]}, 30, "the replay")  # the host too
    stepped = [c for c in api.requests() if c["path"].startswith("/api/cmd/")]
    assert len(stepped) == 2  # the make and the one RESET: nothing replayed


def open_card(door, api) -> str:
    from agent_eval.benchmarks.arcgames.online import ScorecardHost

    with ScorecardHost(Online("online", KEY, api.url, door.net_dir, door.socket_name), api.log.parent) as host:
        return host.ask("open_card", tags=["test"])["card_id"]


def test_the_key_is_masked_in_everything_a_host_writes(tmp_path):
    """online_host.connect, as both hosts call it before the toolkit logs anything: the answers and stderr (where
    the toolkit and its HTTP library log, error bodies included) never carry the key."""
    script = textwrap.dedent("""
        import logging, os, sys
        sys.path.insert(0, os.path.dirname(sys.argv[1]))
        import online_host
        protocol = online_host.connect(sys.argv[2], os.fdopen(os.dup(1), "w", buffering=1))
        logging.getLogger("toolkit").error("Response body: game x does not match API key %s", os.environ["ARC_API_KEY"])
        print("a print quoting", os.environ["ARC_API_KEY"])
        protocol.write('{"error": "' + os.environ["ARC_API_KEY"] + '"}\\n')
        print(os.environ["HTTPS_PROXY"], file=sys.stderr)
    """)
    env = {"PATH": "/usr/bin:/bin", "ARC_API_KEY": KEY}
    done = subprocess.run(
        [str(toolkit_python()), "-I", "-c", script, str(ONLINE_HOST), str(tmp_path / "proxy.sock")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert KEY not in done.stdout + done.stderr
    assert json.loads(done.stdout) == {"error": "[ARC_API_KEY]"}
    assert "does not match API key [ARC_API_KEY]" in done.stderr and "a print quoting [ARC_API_KEY]" in done.stderr
    assert "http://127.0.0.1:" in done.stderr  # the toolkit's requests go to the relay to the run's proxy


class OneRequestProxy:
    """A proxy that does what tinyproxy does: one request on each client connection, answered without saying the
    connection ends, then closed a moment later (through the relays, its close reaches the client late). On a
    unix socket (as the run's proxy jail serves it) or, `tcp`, on a loopback port."""

    def __init__(self, where: Path | None = None):
        if where is None:
            self.listener = socket.create_server(("127.0.0.1", 0))
            self.address = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        else:
            self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.listener.bind(str(where))
            self.listener.listen(8)
            self.address = str(where)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            conn, _ = self.listener.accept()
            with conn:
                request = b""
                while b"\r\n\r\n" not in request:
                    request += conn.recv(4096)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok")
                time.sleep(0.3)


@pytest.mark.parametrize("through", ["relay", "nothing"])
def test_the_toolkits_requests_never_go_into_a_connection_the_proxy_is_closing(through, tmp_path):
    """A game's actions are requests of one HTTP session: the second went into the connection the run's proxy was
    closing, never reached the API, and the toolkit failed with RemoteDisconnected (a RESET lost under load).
    online_host's relay tells the toolkit that each answer ends its connection; the control, straight to such a
    proxy, shows what happens otherwise."""
    script = textwrap.dedent("""
        import os, sys
        sys.path.insert(0, os.path.dirname(sys.argv[1]))
        import online_host, requests
        if sys.argv[2].startswith("/"):
            online_host.relay(sys.argv[2])
        else:
            os.environ["HTTP_PROXY"] = sys.argv[2]
        session = requests.Session()
        for action in ("RESET", "ACTION1", "ACTION2"):
            try:
                print(action, session.get("http://api.invalid/api/cmd/" + action, timeout=5).text)
            except requests.exceptions.ConnectionError as error:
                print(action, "lost:", error)
    """)
    proxy = OneRequestProxy(tmp_path / "proxy.sock" if through == "relay" else None)
    done = subprocess.run(
        [str(toolkit_python()), "-I", "-c", script, str(ONLINE_HOST), proxy.address],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    answers = done.stdout.splitlines()
    if through == "relay":
        assert answers == ["RESET ok", "ACTION1 ok", "ACTION2 ok"], done.stdout
    else:
        assert answers[0] == "RESET ok" and answers[1].startswith("ACTION1 lost:"), done.stdout


def test_offline_runs_keep_their_identity():
    assert "arc_mode" not in registry.options_of("arcgames", {"arc_mode": "offline"})
    assert "arc_mode" not in registry.options_of("arcgames", {})
    assert registry.options_of("arcgames", {"arc_mode": "online"})["arc_mode"] == "online"
