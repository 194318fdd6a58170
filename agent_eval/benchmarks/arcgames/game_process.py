"""One ARC-AGI-3 game, played in a confined process of its own under the official toolkit.

The toolkit (arc-agi, arcengine) needs Python >= 3.12 and runs a game by exec()ing the game's Python file:
third-party code. So agent-eval (3.11) never imports it; `GameProcess` starts game_host.py under the
toolkit's interpreter (`.venv-arc`, built by `make setup`) inside bubblewrap and speaks JSON lines to it.

The jail: its own user, pid, network (an empty loopback: no network at all), IPC and UTS namespaces; a
read-only root holding only the system's /usr and libraries, the toolkit's venv and base interpreter, the host
script and this one game's version folder (read-only); a private empty /tmp as cwd and $HOME; a controlled
environment (OPERATION_MODE=offline; no .env is found, as importing the toolkit loads one from the cwd). The
results folder and the user's home are not there. A step that does not answer within the timeout ends the
process group; a host that dies or fails says why in one line: a `GameError`.
"""

from __future__ import annotations

import base64
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np

from agent_eval.datamodel.sandbox_policy import PROJECT_ROOT, load_policy, system_binds

HOST_SCRIPT = Path(__file__).with_name("game_host.py")
TOOLKIT_VENV = PROJECT_ROOT / ".venv-arc"
TOOLKIT_ENV_VAR = "AGENT_EVAL_ARC_PYTHON"  # another toolkit interpreter (a venv's bin/python), if wanted
TOOLKIT_MISSING = (
    "ARC-AGI-3 games need Python >= 3.12 with the pinned game toolkit (.venv-arc): "
    "install a Python >= 3.12 (on PATH or under ~/.pyenv/versions), then run `make setup`"
)
ACTIONS = ("RESET", "ACTION1", "ACTION2", "ACTION3", "ACTION4", "ACTION5", "ACTION6", "ACTION7")
FRAME_SHAPE = (64, 64)
REPLAY_S_PER_ACTION = 0.25  # a replay's time bound per action, beyond one step's (a step takes 0.07-8 ms)
MEMORY_LIMIT_BYTES = 4 << 30  # address space of the jail's processes; the host peaks near 0.3 GiB
# The system the interpreter needs, read-only (fonts: matplotlib, which the toolkit imports, looks for them).
_SYSTEM_RO = ["/usr", "/etc/alternatives", "/etc/fonts", "/etc/localtime"]
_SYSTEM_RO += ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d"]  # the dynamic loader's
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")  # a game id or version: one plain path component
_STDERR_TAIL = 4000


@dataclass(frozen=True)
class StepResult:
    """What one action returned. `frames` are 64x64 uint8 colour indices 0-15, in order (an animation gives
    several); they are empty only for an action sent after WIN or GAME_OVER, which the toolkit ignores and
    does not count (the state stands)."""

    state: str  # "NOT_FINISHED" | "WIN" | "GAME_OVER" (the toolkit's names)
    levels_completed: int
    win_levels: int
    available_actions: tuple[str, ...]  # e.g. ("ACTION1", "ACTION2", "ACTION6")
    frames: list[np.ndarray]


@dataclass(frozen=True)
class ReplayedStep:
    """One recorded action played again: what it returned, its frames as hashes (frames.frame_hash)."""

    state: str
    levels_completed: int
    win_levels: int
    available_actions: tuple[str, ...]
    hashes: tuple[str, ...]


class GameError(Exception):
    """A game that cannot be played: one line naming the game and what failed."""


def toolkit_python() -> Path | None:
    """The >= 3.12 interpreter with the pinned toolkit that `make setup` prepared, or None."""
    override = os.environ.get(TOOLKIT_ENV_VAR)
    python = Path(override) if override else TOOLKIT_VENV / "bin" / "python"
    if not python.is_file():
        return None
    venv = python.parent.parent
    if not any(venv.glob("lib/python3.*/site-packages/arc_agi/__init__.py")):
        return None
    return python


def _venv_base(python: Path) -> list[Path]:
    """The folders the interpreter needs: its venv and the base installation pyvenv.cfg points at."""
    venv = python.parent.parent
    dirs = [venv.resolve()]
    cfg = venv / "pyvenv.cfg"
    if cfg.exists():
        for line in cfg.read_text().splitlines():
            key, _, val = line.partition("=")
            if key.strip() == "home":
                dirs.append(Path(val.strip()).resolve().parent)
    dirs.append(python.resolve().parent.parent)
    return list(dict.fromkeys(dirs))


def available_games(environments_dir: Path) -> list[str]:
    """'game-version' for every GAME/VERSION/metadata.json under the folder."""
    return sorted(f"{p.parent.parent.name}-{p.parent.name}" for p in Path(environments_dir).glob("*/*/metadata.json"))


class GameProcess:
    """One game, one play-through, in its own confined toolkit process. A context manager."""

    def __init__(
        self,
        environments_dir: Path,
        game_id: str,
        version: str,
        *,
        step_timeout_s: float = 10.0,
        scratch: Path,
        start_timeout_s: float = 60.0,
    ):
        self.name = f"{game_id}-{version}"
        self.step_timeout_s = step_timeout_s
        self._proc: subprocess.Popen[bytes] | None = None
        self._failed: GameError | None = None
        self._buf = b""
        self.last_step_s = self.host_cpu_s = 0.0
        self.initial: StepResult | None = None  # what the game shows before any action (set once it is ready)
        python = toolkit_python()
        if python is None:
            raise GameError(f"{self.name}: {TOOLKIT_MISSING}")
        bwrap, prlimit = shutil.which("bwrap"), shutil.which("prlimit")
        if bwrap is None or prlimit is None:
            raise GameError(f"{self.name}: bwrap or prlimit is missing (apt-get install bubblewrap util-linux)")
        if not (_NAME.fullmatch(game_id) and _NAME.fullmatch(version)):
            raise GameError(f"{self.name}: a game id and a version are plain names (letters, digits, . _ -)")
        environments_dir = Path(environments_dir).resolve()
        game_dir = environments_dir / game_id / version
        if not (game_dir / "metadata.json").is_file():
            have = ", ".join(available_games(environments_dir)) or "none"
            raise GameError(
                f"{self.name}: no such game or version in {environments_dir} "
                f"(no {game_id}/{version}/metadata.json; games there: {have})"
            )
        scratch = Path(scratch)
        scratch.mkdir(parents=True, exist_ok=True)
        self.stderr_path = scratch / f"game-host-{self.name}.stderr"
        argv = [
            prlimit,  # a game that allocates without end meets MemoryError, not the machine's OOM killer
            f"--as={MEMORY_LIMIT_BYTES}",
            "--",
            bwrap,
            *self._jail(python, game_dir),
            "--",
            str(python),
            "-I",
            "-B",
            str(HOST_SCRIPT.resolve()),
            "--environments-dir",
            str(environments_dir),
            "--game",
            self.name,
        ]
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": "/tmp",
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "OPERATION_MODE": "offline",
            "MPLBACKEND": "Agg",
            "MPLCONFIGDIR": "/tmp",
            # One thread for NumPy's BLAS: games do no linear algebra, and a pool per game on a shared
            # machine is only start-up cost.
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
        }
        with open(self.stderr_path, "wb") as err:
            # A session of its own: a timeout ends bwrap's whole process group; --die-with-parent and
            # the pid namespace take everything inside down with it.
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                env=env,
                cwd="/",
                start_new_session=True,
            )
        self._sel = selectors.DefaultSelector()
        self._sel.register(_pipes(self._proc)[1], selectors.EVENT_READ)
        try:
            ready = self._answer(start_timeout_s, "start-up")
            if ready.get("ready") != self.name or not isinstance(ready.get("initial"), dict):
                raise self._fail(f"unexpected first answer from the game host: {str(ready)[:200]}")
            self.initial = self._result(ready["initial"], "the first observation")
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _jail(python: Path, game_dir: Path) -> list[str]:
        o = [
            "--unshare-all",
            "--unshare-user",
            "--uid",
            "65534",
            "--gid",
            "65534",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--disable-userns",
            "--hostname",
            "game",
        ]
        o += system_binds(_SYSTEM_RO, load_policy()["usr_links"])
        o += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        for d in _venv_base(python):
            o += ["--ro-bind", str(d), str(d)]
        host = HOST_SCRIPT.resolve()
        o += ["--ro-bind", str(host), str(host), "--ro-bind", str(game_dir), str(game_dir)]
        return o + ["--remount-ro", "/", "--chdir", "/tmp"]

    # -- the interface

    def step(self, action: str, x: int | None = None, y: int | None = None) -> StepResult:
        """One action ("RESET", "ACTION1".."ACTION7"; x, y in 0-63 only for ACTION6) and what it returned."""
        if action not in ACTIONS:
            raise ValueError(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
        req: dict = {"op": "step", "action": action}
        if action == "ACTION6":
            if x is None or y is None or not (0 <= x <= 63 and 0 <= y <= 63):
                raise ValueError(f"ACTION6 needs x and y in 0-63, not x={x!r}, y={y!r}")
            req.update(x=int(x), y=int(y))
        elif x is not None or y is not None:
            raise ValueError(f"only ACTION6 takes x and y ({action} was given x={x!r}, y={y!r})")
        ans = self._request(req, self.step_timeout_s, f"step {action}")
        self.last_step_s = float(ans.get("step_s", 0.0))  # the toolkit's own time in env.step (perf/)
        return self._result(ans, f"step {action}")

    def _result(self, ans: dict, what: str) -> StepResult:
        self.host_cpu_s = float(ans.get("cpu_s", 0.0))  # the host's CPU time so far (perf/)
        return StepResult(
            state=ans["state"],
            levels_completed=int(ans["levels_completed"]),
            win_levels=int(ans["win_levels"]),
            available_actions=tuple(ans["available_actions"]),
            frames=self._frames(ans, what),
        )

    def replay(self, actions: list[tuple[str, int | None, int | None]]) -> list[ReplayedStep]:
        """Play recorded actions again, in one request (a game is restored by playing it again from its start:
        the toolkit has no save), and what each returned. Its time bound grows with the number of actions."""
        if not actions:
            return []
        timeout = self.step_timeout_s + REPLAY_S_PER_ACTION * len(actions)
        ans = self._request({"op": "replay", "actions": [list(a) for a in actions]}, timeout, "the replay")
        self.host_cpu_s = float(ans.get("cpu_s", 0.0))
        return [
            ReplayedStep(
                state=step["state"],
                levels_completed=int(step["levels_completed"]),
                win_levels=int(step["win_levels"]),
                available_actions=tuple(step["available_actions"]),
                hashes=tuple(step["hashes"]),
            )
            for step in ans["steps"]
        ]

    def scorecard(self) -> dict:
        """The toolkit's offline scorecard for this play-through (JSON-able; see game_host.scorecard):
        score (0-100, None when the game has no usable baseline_actions), won, levels_completed, win_levels,
        actions, resets, level_actions, level_scores, runs and the toolkit's own scorecard as it wrote it."""
        return self._request({"op": "scorecard"}, self.step_timeout_s, "scorecard")["scorecard"]

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        stdin, stdout = _pipes(proc)
        try:
            if proc.poll() is None:
                try:
                    stdin.write(b'{"op":"close"}\n')
                    stdin.close()
                except OSError:
                    pass
                try:
                    proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            self._kill(proc)
            self._sel.close()
            stdout.close()
            if not stdin.closed:
                try:
                    stdin.close()
                except OSError:
                    pass

    def __enter__(self) -> "GameProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_proc", None) is not None:
            self.close()

    # -- the channel

    def _request(self, req: dict, timeout: float, what: str) -> dict:
        if self._failed is not None:
            raise self._failed
        if self._proc is None:
            raise GameError(f"{self.name}: the game process is closed")
        try:
            stdin = _pipes(self._proc)[0]
            stdin.write((json.dumps(req) + "\n").encode())
            stdin.flush()
        except OSError:
            pass  # it died: reading says how
        return self._answer(timeout, what)

    def _answer(self, timeout: float, what: str) -> dict:
        proc = self._proc
        assert proc is not None  # _request checked
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not self._sel.select(left):
                self._kill(proc)
                raise self._fail(f"{what} did not return within {timeout:g} s (the game process was ended)")
            chunk = os.read(_pipes(proc)[1].fileno(), 1 << 20)
            if not chunk:
                code = proc.wait()
                raise self._fail(f"the game process ended during {what} (exit status {code}){self._stderr_tail()}")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        try:
            ans = json.loads(line)
        except ValueError:
            self._kill(self._proc)
            raise self._fail(f"the game host wrote something that is not JSON during {what}: {line[:120]!r}") from None
        if not ans.get("ok"):
            self._kill(self._proc)
            raise self._fail(ans.get("error") or f"{what} failed")
        return ans

    def _frames(self, ans: dict, what: str) -> list[np.ndarray]:
        n = int(ans["n_frames"])
        if any(tuple(s) != FRAME_SHAPE for s in ans["shapes"]):
            raise self._fail(f"{what} returned frames of shape {ans['shapes']}, not 64x64")
        data = np.frombuffer(base64.b64decode(ans["frames"]), dtype=np.uint8)
        if data.size != n * 64 * 64:
            raise self._fail(f"{what}: {data.size} frame bytes for {n} frames")
        if n and data.max() > 15:
            raise self._fail(f"{what} returned a colour index outside 0-15 ({int(data.max())})")
        stack = data.reshape(n, 64, 64)
        return [stack[i].copy() for i in range(n)]

    def _fail(self, text: str) -> GameError:
        self._failed = GameError(f"{self.name}: {text}")
        return self._failed

    def _stderr_tail(self) -> str:
        try:
            text = self.stderr_path.read_bytes()[-_STDERR_TAIL:].decode("utf-8", "replace").strip()
        except OSError:
            return ""
        last = text.splitlines()[-1] if text else ""
        return f": {last}" if last else ""

    @staticmethod
    def _kill(proc: subprocess.Popen | None) -> None:
        """End bwrap and everything under it, and wait until they are gone: the pid namespace dies with bwrap's
        init, but asynchronously, so the descendants are also killed by pid and waited for."""
        if proc is None:
            return
        if proc.poll() is None:
            tree = _descendants(proc.pid)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            for pid in tree:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + 5
            while tree and time.monotonic() < deadline:
                tree = [p for p in tree if _alive(p)]
                if tree:
                    time.sleep(0.01)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


def _descendants(root: int) -> list[int]:
    """Pids under `root` (from /proc/*/stat's parent pids)."""
    children: dict[int, list[int]] = {}
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                stat = (p / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            children.setdefault(ppid, []).append(int(p.name))
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _pipes(proc: subprocess.Popen[bytes]) -> tuple[IO[bytes], IO[bytes]]:
    """The game process's stdin and stdout (both PIPE, so never None)."""
    assert proc.stdin is not None and proc.stdout is not None
    return proc.stdin, proc.stdout
