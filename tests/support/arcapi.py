"""The ARC API stand-in (agent_eval/benchmarks/arcgames/api_standin.py: the toolkit's own server behind the key
check and the affinity cookie) for tests of online and competition modes: started over a games folder, read
back through its request log."""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

from agent_eval.benchmarks.arcgames.games import GAMES_DIR, WINNING
from agent_eval.benchmarks.arcgames.toolkit_process import toolkit_python
from agent_eval.scripted.game_play import play_turns

STANDIN = Path(__file__).resolve().parents[2] / "agent_eval" / "benchmarks" / "arcgames" / "api_standin.py"
KEY = "arc-test-key-5f1e0c9a7b3d42e8"  # long and unique: searched for in every file a run leaves


class ApiStandIn:
    """A context manager: the stand-in on a free loopback port; `url`, `environ()` (ARC_API_KEY, ARC_BASE_URL)."""

    def __init__(self, games: Path, log: Path, competition: bool = False, key: str = KEY):
        self.games, self.log, self.key = Path(games), Path(log), key
        argv = [str(toolkit_python()), str(STANDIN), "--games", str(games), "--key", key, "--log", str(log)]
        self._proc = subprocess.Popen(
            argv + (["--competition"] if competition else []),
            stdout=subprocess.PIPE,
            stderr=open(log.with_suffix(".stderr"), "wb"),
            text=True,
            env={"PATH": "/usr/bin:/bin", "OPERATION_MODE": "offline"},
            cwd=log.parent,
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().split()
        assert line and line[0] == "ready", f"the stand-in did not start: {log.with_suffix('.stderr').read_text()}"
        self.url = line[1]

    def environ(self) -> dict[str, str]:
        return {"ARC_API_KEY": self.key, "ARC_BASE_URL": self.url}

    def requests(self) -> list[dict]:
        return [json.loads(line) for line in self.log.read_text().splitlines()] if self.log.exists() else []

    def calls(self, path: str, status: int | None = 200) -> list[dict]:
        return [r for r in self.requests() if r["path"] == path and (status is None or r["status"] == status)]

    def close_card(self, card_id: str) -> int:
        """Closes a card as the API does on its own (a card idle for 15 minutes), from outside the run."""
        request = urllib.request.Request(
            f"{self.url}/api/scorecard/close",
            data=json.dumps({"card_id": card_id}).encode(),
            headers={"X-API-Key": self.key, "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status
        except urllib.error.HTTPError as error:
            return error.code

    def __enter__(self) -> "ApiStandIn":
        return self

    def __exit__(self, *exc) -> None:
        self._proc.terminate()
        self._proc.wait(timeout=10)


def stop_mid_game(command: list[str], env: dict, timeline: Path, plays: int, how: int) -> subprocess.CompletedProcess:
    """Runs `agent-eval run ...` until the game whose timeline this is has `plays` play calls, then sends it the
    signal `how` (SIGKILL: the harness dies at once; SIGTERM: it stops as Slurm asks); what it printed."""
    import os
    import time

    runner = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and runner.poll() is None:
        if timeline.exists() and len(timeline.read_text().splitlines()) >= plays:
            break
        time.sleep(0.02)
    assert runner.poll() is None, f"the run ended before the signal: {runner.communicate()[0][-2000:]}"
    os.kill(runner.pid, how)
    out, _ = runner.communicate(timeout=120)
    return subprocess.CompletedProcess(command, runner.returncode, out, "")


GAMES = ("ae01", "ae02", "ae03")
# What each game's first answer shows of it (its available actions): the scripted player picks the game's known
# winning sequence from it, as a player would recognise a game it has seen (it never sees the game's files).
SHOWN = {"ae02": r'\[\s*"ACTION6"\s*\]', "ae03": r'"ACTION1",\s*"ACTION3"', "ae01": r'"ACTION2"'}


def players(after: list[dict] | None = None) -> dict:
    """RESET first (every game's winning sequence starts so), then the sequence of the game its answer shows."""
    rules = [
        {"seen": SHOWN[game], "turns": play_turns(WINNING[f"{game}-v1"], after=after or [])}
        for game in ("ae02", "ae03", "ae01")
    ]
    return {"rules": [*rules, {"turns": play_turns(["RESET"])}]}


def project_games(tmp_path):
    root = tmp_path / "environment_files"
    for game in GAMES:
        shutil.copytree(GAMES_DIR / game, root / game, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def files_holding(root, text: str) -> list[str]:
    return sorted(str(p) for p in root.rglob("*") if p.is_file() and text.encode() in p.read_bytes())
