"""A script of the official ARC-AGI-3 toolkit, run in a confined process of its own and spoken to in JSON lines.

The toolkit needs Python >= 3.12 and offline exec()s the game's file (third-party code), so agent-eval (3.11)
never imports it: `ToolkitProcess` runs one of this package's host scripts (game_host.py, online_host.py) under
`.venv-arc` in bubblewrap: its own user, pid, network, IPC and UTS namespaces, a read-only root of the system's
/usr, the toolkit's venv, the host scripts and what the caller names, a private empty /tmp as cwd and $HOME (no
.env is found: importing the toolkit loads one from the cwd); never the results folder or the user's home. Its
network is an empty loopback; online, one door: the run's proxy to the ARC API's host alone (a unix socket bound
in, engine/egress.py), with the user's key in its environment only. A request that does not answer in time ends
the process group; a host that dies or fails says why in one line: a `GameError`.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from agent_eval.datamodel.config import ConfigError
from agent_eval.datamodel.sandbox_policy import PROJECT_ROOT, confined_process, load_policy, system_binds

HOSTS_DIR = Path(__file__).parent
ONLINE_HOST = HOSTS_DIR / "online_host.py"  # imported by game_host.py online, and the scorecard's host itself
TOOLKIT_VENV = PROJECT_ROOT / ".venv-arc"
TOOLKIT_ENV_VAR = "AGENT_EVAL_ARC_PYTHON"  # another toolkit interpreter (a venv's bin/python), if wanted
TOOLKIT_MISSING = (
    "ARC-AGI-3 games need Python >= 3.12 with the pinned game toolkit (.venv-arc): "
    "install a Python >= 3.12 (on PATH or under ~/.pyenv/versions), then run `make setup`"
)
MEMORY_LIMIT_BYTES = 4 << 30  # address space of the jail's processes; the host peaks near 0.3 GiB
DEFAULT_BASE_URL = "https://three.arcprize.org"  # the toolkit's own default
NET_INSIDE = "/run/arc-api"  # where the proxy's socket directory appears inside an online jail
# The system the interpreter needs, read-only (fonts: matplotlib, which the toolkit imports, looks for them).
_SYSTEM_RO = ["/usr", "/etc/alternatives", "/etc/fonts", "/etc/localtime"]
_SYSTEM_RO += ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d"]  # the dynamic loader's
_STDERR_TAIL = 4000


class GameError(Exception):
    """A game (or the run's scorecard) that cannot be played: one line naming it and what failed."""


@dataclass(frozen=True)
class Online:
    """How a host reaches the ARC API: the toolkit's mode ("online" or "competition"), the user's key and base URL
    (ARC_API_KEY, ARC_BASE_URL); once the run's proxy is open (engine/egress.py), the folder of its socket; once its
    scorecard is open, the card every game of the run is made on."""

    mode: str
    key: str = field(repr=False)  # never in a message
    base_url: str
    net_dir: Path | None = None
    socket_name: str = ""
    card_id: str = ""

    @classmethod
    def from_environ(cls, mode: str, environ) -> Online:
        key = (environ.get("ARC_API_KEY") or "").strip()
        if not key:
            raise ConfigError(
                f"--arc-mode {mode} plays at the ARC API with your key: set ARC_API_KEY (register one at "
                f"https://arcprize.org/platform; ARC_BASE_URL names another server)"
            )
        return cls(mode, key, (environ.get("ARC_BASE_URL") or DEFAULT_BASE_URL).strip().rstrip("/"))

    def card_url(self, card_id: str) -> str:
        """Where a person reads the scorecard (the address ARC Prize's own agents print)."""
        return f"{self.base_url}/scorecards/{card_id}"

    def env(self) -> dict[str, str]:
        return {"OPERATION_MODE": self.mode, "ARC_API_KEY": self.key, "ARC_BASE_URL": self.base_url}

    def args(self) -> list[str]:
        return ["--mode", self.mode, "--proxy-socket", f"{NET_INSIDE}/{self.socket_name}"]


def toolkit_python() -> Path | None:
    """The >= 3.12 interpreter with the pinned toolkit that `make setup` prepared, or None."""
    override = os.environ.get(TOOLKIT_ENV_VAR)
    python = Path(override) if override else TOOLKIT_VENV / "bin" / "python"
    toolkit = python.parent.parent.glob("lib/python3.*/site-packages/arc_agi/__init__.py")
    return python if python.is_file() and any(toolkit) else None


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


class ToolkitProcess(contextlib.AbstractContextManager):
    """One host script in its own confined toolkit process. A context manager. `name` starts every error line;
    `readonly`: what it may read besides the toolkit; `ready`: the host's first answer."""

    def __init__(
        self,
        name: str,
        script: Path,
        script_args: list[str],
        scratch: Path,
        *,
        readonly: tuple[Path, ...] = (),
        online: Online | None = None,
        start_timeout_s: float = 60.0,
    ):
        self.name = name
        self._proc: subprocess.Popen[bytes] | None = None
        self._failed: GameError | None = None
        self._buf = b""
        python = toolkit_python()
        if python is None:
            raise GameError(f"{self.name}: {TOOLKIT_MISSING}")
        bwrap, prlimit = shutil.which("bwrap"), shutil.which("prlimit")
        if bwrap is None or prlimit is None:
            raise GameError(f"{self.name}: bwrap or prlimit is missing (apt-get install bubblewrap util-linux)")
        scratch = Path(scratch)
        scratch.mkdir(parents=True, exist_ok=True)
        online_mark = f"-{online.mode}" if online else ""  # beside the same game's local replay (online)
        self.stderr_path = scratch / f"{script.stem.replace('_', '-')}-{self.name}{online_mark}.stderr"
        scripts = [script.resolve()] + ([ONLINE_HOST.resolve()] if online else [])
        argv = [
            prlimit,  # a game that allocates without end meets MemoryError, not the machine's OOM killer
            f"--as={MEMORY_LIMIT_BYTES}",
            "--",
            bwrap,
            *self._jail(python, [*scripts, *map(Path, readonly)], online),
            "--",
            str(python),
            "-I",
            "-B",
            str(script.resolve()),
            *script_args,
            *(online.args() if online else []),
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
            **(online.env() if online else {}),
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
            self.ready = self._answer(start_timeout_s, "start-up")
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _jail(python: Path, readonly: list[Path], online: Online | None) -> list[str]:
        o = [*confined_process("game"), "--disable-userns"]
        o += system_binds(_SYSTEM_RO, load_policy()["usr_links"])
        o += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        for d in [*_venv_base(python), *readonly]:
            o += ["--ro-bind", str(d), str(d)]
        if online is not None:
            o += ["--ro-bind", str(online.net_dir), NET_INSIDE]
        return o + ["--remount-ro", "/", "--chdir", "/tmp"]

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        stdin, stdout = _pipes(proc)
        try:
            if proc.poll() is None:
                with contextlib.suppress(OSError):
                    stdin.write(b'{"op":"close"}\n')
                    stdin.close()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=2)
        finally:
            self._kill(proc)
            self._sel.close()
            stdout.close()
            with contextlib.suppress(OSError):  # (a no-op when it is closed already)
                stdin.close()

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
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            for pid in tree:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 5
            while tree and time.monotonic() < deadline:
                tree = [p for p in tree if _alive(p)]
                if tree:
                    time.sleep(0.01)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)


def _descendants(root: int) -> list[int]:
    """Pids under `root` (from /proc/*/stat's parent pids)."""
    children: dict[int, list[int]] = {}
    for path in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):  # (a process gone meanwhile)
            stat = path.read_text()
            children.setdefault(int(stat[stat.rindex(")") + 2 :].split()[1]), []).append(int(path.parent.name))
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
    """The process's stdin and stdout (both PIPE, so never None)."""
    assert proc.stdin is not None and proc.stdout is not None
    return proc.stdin, proc.stdout
