"""The OS sandbox an agent CLI runs in: it sees only its workdir, reaches only the model API.

The whole policy is `sandbox/policy.yaml`; this module turns it into command lines:

* filesystem, user, processes: bubblewrap (`bwrap`). The root is an empty read-only tmpfs;
  system runtimes, the pinned CLIs and the tools' Python are bound read-only, the item's
  workdir and private home read-write, /tmp is private. Same absolute paths as outside.
* network: bwrap's own network namespace (an empty loopback). The only way out is an HTTP
  proxy address inside (127.0.0.1:3128, set as HTTP(S)_PROXY), a socat relay over a unix
  socket to the item's own tinyproxy outside, which allows exactly the endpoints' host:port and
  refuses the rest. The items' proxies run in one second bwrap jail per process (host network,
  nothing else): agent_eval/engine/proxy_jail.py.

`Sandbox.wrap` is the only place that knows how the command line is built. docs/sandbox.md
explains the choices.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from agent_eval.datamodel.sandbox_policy import (
    POLICY_PATH,
    PROJECT_ROOT,
    MemoryDir,
    SandboxError,
    SandboxStartFailed,
    load_policy,
    system_binds,
)
from agent_eval.engine.proxy_jail import PROXY_READY, PROXY_SOCKET, ItemProxy, ProxyError, ProxyJail
from agent_eval.engine.scratch_dirs import owned_dir

NET_DIR_INSIDE = "/run/agent-eval-net"  # the proxy's unix socket appears here inside
SETUP_FAILED = 125  # exit status when the sandbox itself failed to start
_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


@dataclass
class DoctorCheck:
    name: str
    ok: bool
    detail: str = ""
    fix: str = ""


@dataclass
class SandboxSpec:
    workdir: Path  # item workdir (rw), the cwd inside
    home: Path  # private CLI home (rw), $HOME inside
    endpoints: list[str]  # allowed "host:port" or URLs; loopback only if listed
    env: dict[str, str] = field(default_factory=dict)  # agent's environment (already filtered)
    extra_ro: list[Path] = field(default_factory=list)  # extra read-only binds
    # (source outside, target inside the workdir): bound read-only over the target, after the workdir,
    # so the agent reads what the harness writes to the source as it goes and can change none of it
    readonly_mounts: list[tuple[Path, Path]] = field(default_factory=list)
    # folders of the CLI's own state under its home that are a tmpfs inside (what they hold and keep is bound back)
    memory_dirs: tuple[MemoryDir, ...] = ()


# ---------------------------------------------------------------- endpoints -> proxy rules


@dataclass(frozen=True)
class Endpoint:
    host: str  # a name or an IP literal, lower case, IPv6 without brackets
    port: int
    prefix: str = ""  # "/a/b/": plain HTTP to URLs under this path only (no CONNECT); "": the whole host:port

    @classmethod
    def parse(cls, text: str) -> "Endpoint":
        """'host:port', '[::1]:port', 'host' (port 443) or a URL (scheme's default port): that whole
        host:port, whatever the path. 'http://host:port/some/path/*' (ending in '/*'): only plain-HTTP
        requests under /some/path/ on it (how an item reaches its own MCP server on a shared host)."""
        text = text.strip()
        prefix = ""
        if text.endswith("/*"):
            parts = urlsplit(text[:-1])
            if (
                parts.scheme != "http"
                or parts.query
                or parts.fragment
                or not re.fullmatch(r"(/(?![.]+/)[A-Za-z0-9._~-]+)+/", parts.path)
            ):
                raise SandboxError(f"a path endpoint is http://host:port/path/* with a plain path: {text!r}")
            prefix = parts.path
        parts = urlsplit(text if "://" in text else "//" + text)
        try:
            host, port = parts.hostname, parts.port
        except ValueError:
            raise SandboxError(f"bad port in endpoint {text!r}") from None
        if not host or not re.fullmatch(r"[a-z0-9._:-]+", host.lower()):
            raise SandboxError(f"not an endpoint: {text!r}")
        if port is None:
            port = _DEFAULT_PORTS.get(parts.scheme, 443)
        return cls(host.lower(), port, prefix)

    def filter_patterns(self) -> list[str]:
        """tinyproxy URL-filter regexes (POSIX ERE) that match requests to exactly this
        host:port: a CONNECT target `host:port`, or an absolute `http://host:port/...` URL. With a
        prefix, only absolute URLs under it: a CONNECT tunnel would carry any path."""
        h = _ere_escape(f"[{self.host}]" if ":" in self.host else self.host)
        if self.prefix:
            return [f"^http://{h}:{self.port}{_ere_escape(self.prefix)}"]
        pats = [f"^{h}:{self.port}$", f"^http://{h}:{self.port}(/|$)"]
        if self.port == 80:
            pats.append(f"^http://{h}(/|$)")
        return pats


def _ere_escape(text: str) -> str:
    return "".join("\\" + c if c in ".[]()*+?{}|^$\\" else c for c in text)


# ---------------------------------------------------------------- the sandbox


def _real(p: Path | str) -> Path:
    return Path(os.path.realpath(p))


def _within(p: Path, roots) -> bool:
    return any(p == r or r in p.parents for r in roots)


@lru_cache(maxsize=64)
def _readonly_paths(
    project_readonly: tuple[str, ...], tool_python_prefix: str | None, node: str | None, extra_ro: tuple[str, ...]
) -> tuple[Path, ...]:
    """Sandbox.readonly_paths, once per process for the same inputs: its realpaths and containment checks cost
    about 4 ms of CPU, on every item's way to its CLI (docs/performance.md, part 6d)."""
    paths = [PROJECT_ROOT / p for p in project_readonly]
    paths += _tool_python_dirs(tool_python_prefix)
    if node:
        paths.append(_real(node).parent.parent)
    paths += [Path(p) for p in extra_ro]
    out: list[Path] = []
    for p in (_real(p) for p in paths):  # dedupe; skip what /usr or another entry covers
        if p.exists() and not _within(p, [Path("/usr"), *out]):
            out = [q for q in out if not _within(q, [p])] + [p]
    for p in out:
        if any(_within(q, [p]) for q in _precious()):
            raise SandboxError(f"read-only bind {p} would expose {', '.join(map(str, _precious()))}")
    return tuple(out)


def _precious() -> list[Path]:
    """No bind may be one of these or hold one: the whole filesystem, the user's real home,
    the project checkout."""
    return [Path("/"), _real(Path.home()), PROJECT_ROOT]


class Sandbox:
    """One per item. A context manager: entering writes the generated /etc files and starts
    the item's proxy (in the process's proxy jail); leaving stops it and removes them."""

    KINDS = ("bwrap", "none")

    def __init__(self, spec: SandboxSpec, kind: str = "bwrap", policy_path: Path = POLICY_PATH):
        if kind not in self.KINDS:
            raise ValueError(f"sandbox kind must be one of {self.KINDS}, not {kind!r}")
        self.spec, self.kind = spec, kind
        self.policy = load_policy(policy_path)
        self.net = self.policy["network"]
        self.endpoints = list(dict.fromkeys(Endpoint.parse(e) for e in spec.endpoints))
        self._tmp: Path | None = None
        self._proxy: ItemProxy | None = None
        self._lifeline: tuple[int, int] | None = None
        if kind == "bwrap":
            self.workdir, self.home = _real(spec.workdir), _real(spec.home)
            self._check_writable_dirs()

    # -- lifecycle

    def __enter__(self) -> "Sandbox":
        if self.kind == "none" or self._tmp is not None:
            return self
        self._bwrap, self._socat = find_tool("bwrap"), find_tool("socat")
        self._tmp = owned_dir("agent-eval-sbx-")  # named after this process: removed by a later run if it dies
        try:
            (self._tmp / "etc").mkdir()
            self._write_etc()
            self._lifeline = os.pipe()  # non-inheritable; only the agent's bwrap gets the read end
            if self.endpoints:
                self._start_proxy()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._proxy is not None:
            self._proxy.close()
            self._proxy = None
        if self._lifeline is not None:
            for fd in self._lifeline:
                os.close(fd)
            self._lifeline = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def _link_readonly_mounts(self) -> None:
        """Without a sandbox there is no mount: each target becomes a link to its source (read-only only
        by the agent's good will, as everything is under --sandbox none)."""
        for source, target in self.spec.readonly_mounts:
            target = Path(target)
            if target.is_dir() and not target.is_symlink() and not any(target.iterdir()):
                target.rmdir()
            if not target.exists() and not target.is_symlink():
                target.symlink_to(Path(source).resolve(), target_is_directory=True)

    def refused_requests(self) -> list[str]:
        """The URLs (or CONNECT host:port) the proxy refused, for failure reports."""
        return self._proxy.refused_requests() if self._proxy else []

    # -- the command

    def wrap(self, argv: list[str], ready_later: bool = False) -> tuple[list[str], dict[str, str]]:
        """The command and environment to Popen for `argv` run inside the sandbox; with ready_later, the caller
        calls `ready()` once it has started it (else this waits for the item's proxy first)."""
        if self.kind == "none":
            self._link_readonly_mounts()
            return list(argv), dict(self.spec.env)
        if self._tmp is None:
            raise SandboxError("enter the Sandbox (a context manager) before wrap()")
        args = [self._bwrap, *self._bwrap_options(), "--", "/bin/sh", "-c", self._start_script(), "agent-eval-sandbox"]
        if not ready_later:
            self.ready()
        return args + list(argv), self._env()

    @property
    def pass_fds(self) -> tuple[int, ...]:
        """File descriptors the wrapped command must inherit (Popen's pass_fds): the lifeline."""
        return (self._lifeline[0],) if self.kind == "bwrap" and self._lifeline else ()

    @property
    def _scratch(self) -> Path:
        assert self._tmp is not None, "the sandbox is not open"
        return self._tmp

    def _bwrap_options(self) -> list[str]:
        pol, user = self.policy, self.policy["user"]
        o = [
            "--unshare-all",
            "--unshare-user",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--uid",
            str(user["uid"]),
            "--gid",
            str(user["gid"]),
            "--hostname",
            pol.get("hostname", "sandbox"),
        ]
        if not pol.get("nested_user_namespaces", False):
            o += ["--disable-userns"]
        o += system_binds(pol["system_readonly"], pol["usr_links"])
        for p in pol.get("masked", []):
            if os.path.lexists(p):
                o += ["--ro-bind", str(self._scratch / "etc" / "empty"), p]
        for p in pol["generated"]:
            o += ["--ro-bind", str(self._scratch / "etc" / Path(p).name), p]
        o += ["--proc", "/proc", "--dev", "/dev"]
        for p in pol["private_tmpfs"]:
            o += ["--tmpfs", p]
        for p in self.readonly_paths():
            o += ["--ro-bind", str(p), str(p)]
        if self._proxy:
            o += ["--ro-bind", str(self._proxy.net_dir), NET_DIR_INSIDE]
        for p in dict.fromkeys([self.workdir, self.home]):
            o += ["--bind", str(p), str(p)]
        o += self._memory_dir_options()
        for source, target in self.spec.readonly_mounts:
            o += ["--ro-bind", str(_real(source)), str(self._inside_workdir(target))]
        o += ["--remount-ro", "/", "--chdir", str(self.workdir)]
        return o

    def _memory_dir_options(self) -> list[str]:
        """Each memory dir a tmpfs over its folder in the home; what it holds now, and its kept folders (made
        here), bound back from the disk. The CLI's own writes elsewhere in it (Codex: about 100 files, 2.4 MB
        an item, SQLite databases synced on every write) then cost no disk and nothing to delete afterwards."""
        o: list[str] = []
        for memory in self.spec.memory_dirs:
            folder = Path(memory.path)
            if folder.is_symlink() or not _within(_real(folder), [self.home]):
                raise SandboxError(f"memory dir {folder} must be a folder inside the home {self.home}")
            folder.mkdir(exist_ok=True)
            for name in memory.kept:
                (folder / name).mkdir(exist_ok=True)
            real = _real(folder)
            o += ["--tmpfs", str(real)]
            for entry in sorted(real.iterdir()):
                if not entry.is_symlink():  # bwrap would bind what a link names, wherever it is: left out
                    o += ["--bind", str(entry), str(entry)]
        return o

    def _inside_workdir(self, target: Path) -> Path:
        """A read-only mount's target: a directory inside the workdir, never reached through a link."""
        target = Path(target)
        if target.is_symlink() or not target.is_dir() or not _within(_real(target), [self.workdir]):
            raise SandboxError(f"read-only mount target {target} must be a directory inside the workdir {self.workdir}")
        return _real(target)

    def readonly_paths(self) -> list[Path]:
        """Runtime dirs bound read-only besides the system ones: CLIs, tools' Python, Node."""
        return list(
            _readonly_paths(
                tuple(self.policy["project_readonly"]),
                self.policy["tool_python"]["prefix"],
                shutil.which("node"),
                tuple(str(p) for p in self.spec.extra_ro),
            )
        )

    def _start_script(self) -> str:
        """Inside: arm the lifeline, start the proxy address's relay (if any), exec the command.

        The lifeline is a pipe whose only writer is the harness process. Its watcher starts first
        and waits for end-of-file, which comes when the harness closes the sandbox or dies however
        it dies (SIGKILL included, at any moment of start-up): it then kills every process in the
        sandbox, so bwrap's init exits and the pid namespace (relay included) goes with it. Nothing
        here relies on --die-with-parent having been armed in time."""
        assert self._lifeline is not None, "the sandbox is not open"
        fd = self._lifeline[0]
        watcher = (
            f'[ -e /proc/self/fd/{fd} ] || {{ echo "agent-eval sandbox: lifeline fd {fd} not inherited '
            f'(run the wrapped command with pass_fds=Sandbox.pass_fds)" >&2; exit {SETUP_FAILED}; }}\n'
            # dash redirects only fds 0-9: the pipe is reopened through /proc instead.
            f"( (read -r _ </proc/self/fd/{fd}; kill -KILL -1) </dev/null >/dev/null 2>&1 & )\n"
        )
        return watcher + (self._relay_script() if self.endpoints else 'exec "$@"\n')

    def _relay_script(self) -> str:
        port = self.net["proxy_port_inside"]
        relay = shlex.join(
            [
                self._socat,
                f"TCP4-LISTEN:{port},bind=127.0.0.1,fork,reuseaddr",
                f"UNIX-CONNECT:{NET_DIR_INSIDE}/{PROXY_SOCKET}",
            ]
        )
        # Double fork: the relay is reparented to bwrap's init, not left to the command.
        # Waiting reads this network namespace's socket counts (/proc/net/sockstat: "TCP: inuse N"
        # counts listening and connected sockets, and inside nothing else has one) with
        # shell builtins: no forks. Not /proc/net/tcp: each read of it walks the host-wide
        # connection table, and dash reads a byte at a time (about 10 ms of CPU per item).
        # It spins at first (socat listens within a few ms, and a `sleep` is a fork and an exec:
        # 2 ms more per item), then sleeps a millisecond at a time, 30 s at least in all: longer than
        # the harness's own check of the proxy may take (its tries, 3 s each), which ends the sandbox
        # itself if it fails. The relay starts while that check runs; the command waits for both.
        return f"""({relay} </dev/null >/dev/null 2>&1 &)
listening() {{ while read -r proto _ n _; do [ "$proto" = TCP: ] && {{ [ "$n" != 0 ]; return; }}; done </proc/net/sockstat; return 1; }}
i=0
until [ -e {NET_DIR_INSIDE}/{PROXY_READY} ] && listening; do
  i=$((i+1)); if [ $i -gt 32000 ]; then echo "agent-eval sandbox: its proxy or relay did not start" >&2; exit {SETUP_FAILED}; fi
  [ $i -le 2000 ] || sleep 0.001
done
exec "$@"
"""

    def path_inside(self) -> str:
        first = [str(p / "bin") for p in _tool_python_dirs(self.policy["tool_python"]["prefix"])[:1]]
        node = shutil.which("node")
        nodebin = [str(_real(node).parent)] if node else []
        return ":".join(dict.fromkeys(first + ["/usr/local/bin", "/usr/bin", "/bin"] + nodebin))

    def _env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in self.spec.env.items()
            if k.upper() not in {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"}
        }
        name = self.policy["user"]["name"]
        env.update(
            HOME=str(self.home), PATH=self.path_inside(), TMPDIR="/tmp", USER=name, LOGNAME=name, SHELL="/bin/bash"
        )
        if self.endpoints:
            proxy = f"http://127.0.0.1:{self.net['proxy_port_inside']}"
            # Both spellings: curl reads only the lower-case http_proxy. No NO_PROXY: loopback
            # endpoints, too, are reached through the proxy (inside, nothing else listens).
            for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
                env[k] = proxy
        return env

    def _write_etc(self) -> None:
        etc = self._scratch / "etc"
        (etc / "empty").touch(mode=0o444)  # what a masked file is inside: it reads empty and does not run
        u = self.policy["user"]
        (etc / "passwd").write_text(
            "root:x:0:0:root:/root:/usr/sbin/nologin\n"
            f"{u['name']}:x:{u['uid']}:{u['gid']}:{u['name']}:{self.home}:/bin/bash\n"
            "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
        )
        (etc / "group").write_text(f"root:x:0:\n{u['name']}:x:{u['gid']}:\nnogroup:x:65534:\n")
        (etc / "hosts").write_text(f"127.0.0.1\tlocalhost {self.policy.get('hostname', 'sandbox')}\n")
        (etc / "profile").write_text(
            "# Generated by agent-eval's sandbox (sandbox/policy.yaml): login shells, such as\n"
            "# Codex's `bash -lc`, find the tools' Python (Pillow, NumPy) first.\n"
            f"PATH={shlex.quote(self.path_inside())}\nexport PATH\numask 022\n"
        )

    def _check_writable_dirs(self) -> None:
        for name, p in (("workdir", self.workdir), ("home", self.home)):
            if not p.is_dir():
                raise SandboxError(f"sandbox {name} {p} is not a directory")
            if any(_within(q, [p]) for q in _precious()):
                raise SandboxError(f"sandbox {name} {p} would expose {', '.join(map(str, _precious()))}")

    # -- the proxy and its jail

    def _start_proxy(self) -> None:
        """Started, not waited for: `ready()` waits (wrap's caller, or wrap itself)."""
        try:
            self._proxy = open_proxy(self.endpoints, self.policy, wait=False)
        except ProxyError as e:
            raise SandboxStartFailed(str(e)) from None

    def ready(self) -> None:
        """Until the item's way out answers (SandboxStartFailed if it never does). Inside, the sandbox runs its
        command only once it does (the proxy marks its socket's folder: ItemProxy.ready), so nothing the command
        sends can reach a port not yet known to be the item's proxy. `wrap(argv, ready_later=True)` leaves this to
        its caller, to call once the sandbox has started: the proxy's start (about 5 ms) then overlaps its own."""
        if self._proxy is not None:
            try:
                self._proxy.ready()
            except ProxyError as e:
                raise SandboxStartFailed(str(e)) from None


def open_proxy(endpoints: list[Endpoint], policy: dict, wait: bool = True) -> ItemProxy:
    """A proxy in this process's proxy jail that lets exactly `endpoints` through; its `net_dir` holds the unix
    socket a jail binds to reach it (an agent's sandbox; a game process online: engine/egress.py). With wait
    False it is starting: its `ready()` waits."""
    tools = {"bwrap": find_tool("bwrap"), "socat": find_tool("socat"), "tinyproxy": find_tool("tinyproxy")}
    jail = ProxyJail.shared(proxy_jail_options(policy), tools)
    return jail.start_item([p for e in endpoints for p in e.filter_patterns()], wait=wait)


def proxy_jail_options(policy: dict) -> list[str]:
    """The items' tinyproxies and relays run with the host's network and nothing else: no home, no project, no
    data, as nobody; a flaw in a proxy reaches no file of value. (proxy_jail.py adds their own directories.)"""
    o = [
        "--unshare-all",
        "--unshare-user",
        "--share-net",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--disable-userns",
        "--uid",
        "65534",
        "--gid",
        "65534",
    ]
    o += system_binds(["/usr", *policy["network"]["proxy_jail_etc"]], policy["usr_links"])
    return o + ["--dev", "/dev", "--tmpfs", "/tmp"]


def find_tool(name: str) -> str:
    """The real path of a tool the sandbox runs (bwrap, socat, tinyproxy); SandboxError naming the package."""
    path = shutil.which(name) or next((p for p in (f"/usr/bin/{name}", f"/usr/sbin/{name}") if os.path.exists(p)), None)
    if not path:
        raise SandboxError(f"{name} is not installed (apt-get install bubblewrap socat tinyproxy-bin)")
    return str(_real(path))


@lru_cache(maxsize=8)
def _tool_python_dirs(prefix: str | None) -> tuple[Path, ...]:
    """The tools' Python prefix (its bin/ goes first on PATH) and the base it links to."""
    if prefix in (None, "auto"):
        dirs = [Path(sys.prefix), Path(sys.base_prefix)]
    else:
        p = Path(prefix) if Path(prefix).is_absolute() else PROJECT_ROOT / prefix
        dirs = [p]
        cfg = p / "pyvenv.cfg"
        if cfg.exists():
            for line in cfg.read_text().splitlines():
                key, _, val = line.partition("=")
                if key.strip() == "home":
                    dirs.append(Path(val.strip()).parent)
    return tuple(dict.fromkeys(_real(d) for d in dirs))
