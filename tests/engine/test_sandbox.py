"""The OS sandbox, with the real bwrap, socat and tinyproxy: what an agent can see, write and reach."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.request import urlopen

import pytest

from agent_eval.datamodel.sandbox_policy import PROJECT_ROOT, MemoryDir, load_policy, policy_endpoints, system_binds
from agent_eval.engine import proxy_jail
from agent_eval.engine.proxy_jail import tinyproxy_config
from agent_eval.engine.sandbox import Endpoint, Sandbox, SandboxError, SandboxSpec
from agent_eval.engine.sandbox_check import check_sandbox
from support.hello import Hello
from support.sandboxes import BIN, CANARY, run, spec


@pytest.fixture
def http_server():
    """Start loopback HTTP servers; each answers GET with its own marker."""
    servers = []

    def start(marker: str) -> int:
        srv = ThreadingHTTPServer(("127.0.0.1", 0), Hello)
        srv.marker = marker
        threading.Thread(target=srv.serve_forever, args=(0.05,), daemon=True).start()  # shutdown waits a poll
        servers.append(srv)
        return srv.server_address[1]

    yield start
    for srv in servers:
        srv.shutdown()
        srv.server_close()


# ---------------------------------------------------------------- pure parts


def test_endpoint_parse():
    assert Endpoint.parse("api.anthropic.com:443") == Endpoint("api.anthropic.com", 443)
    assert Endpoint.parse("API.OpenAI.com") == Endpoint("api.openai.com", 443)
    assert Endpoint.parse("http://127.0.0.1:8123/v1") == Endpoint("127.0.0.1", 8123)
    assert Endpoint.parse("https://chatgpt.com/backend-api") == Endpoint("chatgpt.com", 443)
    assert Endpoint.parse("http://localhost/") == Endpoint("localhost", 80)
    assert Endpoint.parse("[::1]:9000") == Endpoint("::1", 9000)
    for bad in ("host:notaport", "ho st:80", "http://a$b:80/", ""):
        with pytest.raises(SandboxError):
            Endpoint.parse(bad)
    # A path endpoint: plain HTTP under that prefix only (an item's own MCP server on a shared host).
    assert Endpoint.parse("http://127.0.0.1:8123/ab12/*") == Endpoint("127.0.0.1", 8123, "/ab12/")
    assert Endpoint.parse("http://127.0.0.1:8123/ab12/") == Endpoint("127.0.0.1", 8123)  # no '*': the whole port
    for bad in (
        "https://127.0.0.1:8123/ab/*",
        "http://127.0.0.1:8123/*",
        "http://127.0.0.1:8123/a b/*",
        "http://127.0.0.1:8123/a?x=1/*",
        "http://127.0.0.1:8123/a/../b/*",
    ):
        with pytest.raises(SandboxError):
            Endpoint.parse(bad)


def test_filter_patterns_match_exactly_the_endpoint():
    pats = [
        re.compile(p, re.I)
        for e in ("127.0.0.1:8123", "api.anthropic.com:443")
        for p in Endpoint.parse(e).filter_patterns()
    ]

    def allowed(url: str) -> bool:
        return any(p.search(url) for p in pats)

    for url in (
        "http://127.0.0.1:8123/v1/messages?beta=true",
        "http://127.0.0.1:8123",
        "127.0.0.1:8123",
        "api.anthropic.com:443",
        "API.anthropic.com:443",
    ):
        assert allowed(url), url
    for url in (
        "http://127.0.0.1:8124/",
        "127.0.0.1:81234",
        "http://127.0.0.1:81230/",
        "http://127.0.0.1:8123@evil.example/",
        "http://127.0.0.1.evil:8123/",
        "127.0.0.1:22",
        "api.anthropic.com:80",
        "evil.api.anthropic.com:443",
        "api.anthropic.com.evil:443",
        "http://api.anthropic.com:443.evil/",
        "example.com:443",
    ):
        assert not allowed(url), url
    conf = tinyproxy_config(4000, "/f", "/l")
    assert "FilterDefaultDeny Yes" in conf and "FilterURLs On" in conf


def test_policy_endpoints_table():
    assert policy_endpoints("claude-code", "api-key") == ["api.anthropic.com:443"]
    assert "chatgpt.com:443" in policy_endpoints("codex", "chatgpt")
    with pytest.raises(SandboxError):
        policy_endpoints("codex", "nope")


def test_kind_none_returns_the_command_unchanged(world):
    env = {"A": "1", "HTTPS_PROXY": "http://x"}
    with Sandbox(spec(world, env=env), kind="none") as sb:
        assert sb.wrap(["claude", "-p", "hi"]) == (["claude", "-p", "hi"], env)
    with pytest.raises(ValueError):
        Sandbox(spec(world), kind="docker")


def test_refuses_a_workdir_that_would_expose_too_much(world):
    for bad in (Path("/"), Path.home(), PROJECT_ROOT, PROJECT_ROOT.parent):
        with pytest.raises(SandboxError):
            Sandbox(SandboxSpec(bad, world["home"], endpoints=[]))
    with pytest.raises(SandboxError):
        Sandbox(spec(world)).wrap(["true"])  # not entered
    bad_ro = SandboxSpec(world["work"], world["home"], endpoints=[], extra_ro=[PROJECT_ROOT])
    with pytest.raises(SandboxError), Sandbox(bad_ro) as sb:
        sb.wrap(["true"])


# ---------------------------------------------------------------- filesystem


def test_nothing_outside_is_readable(world):
    targets = [
        world["dataset"] / "truth.jsonl",
        world["sibling"] / "answer.txt",
        world["real_home"] / "secret.txt",
        PROJECT_ROOT / "pyproject.toml",
        PROJECT_ROOT / ".git" / "HEAD",
        Path.home() / ".ssh",
        Path.home() / ".bash_history",
    ]
    with Sandbox(spec(world)) as sb:
        r = run(sb, "".join(f"cat {t} && echo READ-OK {t}\n" for t in targets))
        assert CANARY not in r.stdout + r.stderr
        assert "READ-OK" not in r.stdout
        r = run(
            sb,
            "ls -A ..; echo ===; ls -A ../..; echo ===; "
            f"ls -A {PROJECT_ROOT}; echo ===; ls -A {Path.home()}; echo ===; ls -A /",
        )
        pol = load_policy()
        named = [
            *pol["system_readonly"],
            *pol["usr_links"],
            *pol["generated"],
            *pol["private_tmpfs"],
            *map(str, sb.readonly_paths()),
            str(sb.workdir),
            str(sb.home),
            "/proc",
            "/dev",
            "/run",
        ]
    parent, grandparent, project, home, root = [s.split() for s in r.stdout.split("===")]
    assert parent == ["home", "work"]
    assert grandparent == ["item1"]  # the sibling item is not there
    assert set(project) <= {".venv", "agent_eval", "node_modules"}
    # Only the tools' base interpreter (if it lives there) and the path down to this workdir.
    assert set(home) <= {".pyenv", world["work"].parents[3].name}
    assert set(root) <= {Path(p).parts[1] for p in named}  # no /sys, /boot, /opt, /srv ... unless named


def test_every_mount_is_one_the_policy_names(world):
    """Structural check: list the mounts inside and compare them with what the policy allows."""
    pol = load_policy()
    with Sandbox(spec(world, endpoints=["127.0.0.1:9"])) as sb:
        expected = {
            "/",
            "/proc",
            "/dev",
            "/dev/pts",
            "/dev/shm",
            "/dev/mqueue",
            "/run/agent-eval-net",
            str(sb.workdir),
            str(sb.home),
            *pol["private_tmpfs"],
            *pol["generated"],
            *pol["masked"],
            *map(str, sb.readonly_paths()),
        }
        expected |= {p for p in pol["system_readonly"] if os.path.exists(p)}
        r = run(sb, "cat /proc/self/mountinfo", login=False)
    mounts = {line.split()[4] for line in r.stdout.splitlines()}
    # bwrap's own /dev nodes and read-only /proc masks are fine.
    assert {m for m in mounts - expected if not m.startswith(("/dev/", "/proc/"))} == set()
    # And a sweep of everything mounted that is not a runtime: no canary anywhere.
    with Sandbox(spec(world)) as sb:
        skip = " ".join(
            f"--exclude-dir={Path(p).name}" for p in ["/usr", "/proc", "/sys", "/dev", *map(str, sb.readonly_paths())]
        )
        r = run(sb, f"grep -rIl {skip} {CANARY} / 2>/dev/null; echo swept", login=False)
    assert r.stdout.strip() == "swept"


def test_image_tools_import_but_the_rest_of_the_package_is_hidden(world):
    with Sandbox(spec(world)) as sb:
        r = run(
            sb,
            "python3 -c 'import agent_eval.tools.imagetools.mcp_server' && echo IMPORT-OK; "
            f"ls -A {PROJECT_ROOT / 'agent_eval'}; echo /; ls -A {PROJECT_ROOT / 'agent_eval' / 'tools'}; "
            "python3 -c 'import agent_eval.benchmarks.activevision.samples' 2>/dev/null "
            "|| echo SAMPLES-HIDDEN",
            login=False,
        )
    lines = r.stdout.split()
    assert lines[0] == "IMPORT-OK", r.stderr
    # __pycache__ appears when the checkout lies under the private /tmp (python writes it there, in the tmpfs).
    top, tools = " ".join(lines[1:-1]).split(" / ")
    assert set(top.split()) - {"__pycache__"} == {"__init__.py", "tools"}
    assert set(tools.split()) - {"__pycache__"} == {"__init__.py", "imagetools"}
    assert lines[-1] == "SAMPLES-HIDDEN"


def test_writes_only_in_workdir_home_and_tmp(world):
    outside = [
        Path("/x"),
        Path("/usr/x"),
        Path("/etc/x"),
        PROJECT_ROOT / "node_modules" / "x",
        PROJECT_ROOT / "agent_eval" / "x",
        PROJECT_ROOT / "agent_eval" / "imagetools" / "x",
        world["dataset"] / "x",
        world["sibling"] / "x",
        world["real_home"] / "x",
        world["work"].parent.parent / "x",
    ]
    with Sandbox(spec(world)) as sb:
        r = run(
            sb,
            "".join(f"touch {p} 2>/dev/null && echo WROTE {p}\n" for p in outside)
            + "touch ./in-work ~/in-home /tmp/in-tmp && echo INSIDE-OK",
        )
    # A checkout under /tmp (CI may clone there) has its parents in the sandbox's private /tmp tmpfs:
    # a write there stays in that tmpfs and never reaches the disk, which the last assert checks.
    wrote = [Path(line.split(" ", 1)[1]) for line in r.stdout.splitlines() if line.startswith("WROTE ")]
    assert all(p.is_relative_to("/tmp") or p.is_relative_to("/var/tmp") for p in wrote), wrote
    assert "INSIDE-OK" in r.stdout
    assert not any(p.exists() for p in outside)
    assert (world["work"] / "in-work").exists() and (world["home"] / "in-home").exists()


def test_non_root_user_and_login_shell_python(world):
    with Sandbox(spec(world)) as sb:
        r = run(sb, "id -u; id -un; echo $HOME; pwd; python3 -c 'import sys, PIL, numpy; print(sys.executable)'")
        assert r.returncode == 0, r.stderr
        uid, name, home, cwd, python = r.stdout.split()
        assert (uid, name) == ("1000", "agent")
        assert (home, cwd) == (str(sb.home), str(sb.workdir))
        r2 = run(sb, "command -v python3", login=False)  # the environment's PATH agrees
    assert Path(python).parent == Path(r2.stdout.strip()).parent
    assert "pyenv/shims" not in python


def test_a_system_link_into_a_bound_folder_stays_a_link_and_the_time_zone_keeps_its_name(world, tmp_path):
    """/etc/localtime bound as a plain file names no zone: Claude Code then reads ~1,300 files of
    /usr/share/zoneinfo at every start to find its zone (docs/performance.md, 6f)."""
    (tmp_path / "usr").mkdir()
    (tmp_path / "usr" / "zone").write_text("z")
    (tmp_path / "inside").symlink_to(tmp_path / "usr" / "zone")
    (tmp_path / "outside").symlink_to("/somewhere/else")
    o = system_binds([str(tmp_path / "usr"), str(tmp_path / "inside"), str(tmp_path / "outside")], [])
    assert ["--symlink", str(tmp_path / "usr" / "zone"), str(tmp_path / "inside")] == o[3:6]
    assert ["--ro-bind-try", str(tmp_path / "outside"), str(tmp_path / "outside")] == o[6:9]

    host_link = os.readlink("/etc/localtime") if os.path.islink("/etc/localtime") else None
    with Sandbox(spec(world)) as sb:
        r = run(sb, "readlink /etc/localtime; date +%Z", login=False)
    assert r.returncode in (0, 1), r.stderr  # readlink fails (1) on a plain file
    host_zone = subprocess.run(["date", "+%Z"], capture_output=True, text=True).stdout.strip()
    assert r.stdout.split() == [host_link, host_zone] if host_link else r.stdout.split() == [host_zone]


def test_a_masked_file_reads_empty_and_does_not_run(world):
    """lsb_release: Codex ran it twice at every start (about 20 processes, 18 ms of CPU: docs/performance.md, 6f);
    masked, Codex names the distribution from /etc/os-release, which is there."""
    masked = [p for p in load_policy()["masked"] if os.path.lexists(p)]
    assert "/usr/bin/lsb_release" in load_policy()["masked"]
    with Sandbox(spec(world)) as sb:
        checks = "".join(f"wc -c < {p}; {p} -a >/dev/null 2>&1 && echo RAN {p}\n" for p in masked)
        r = run(sb, checks + "grep -c ^ID= /etc/os-release", login=False)
    assert r.stdout.split() == ["0"] * len(masked) + ["1"], r.stdout + r.stderr


# ---------------------------------------------------------------- network


def test_network_reaches_only_the_allowed_loopback_endpoint(world, http_server):
    allowed = http_server("hello-from-allowed")
    other = http_server("hello-from-other")
    # The other server really is reachable outside, so a refusal inside is the sandbox's doing.
    assert urlopen(f"http://127.0.0.1:{other}/", timeout=5).read() == b"hello-from-other"
    env = {"NO_PROXY": "127.0.0.1,localhost", "HTTPS_PROXY": "http://10.0.0.1:1"}  # must be dropped
    with Sandbox(spec(world, endpoints=[f"http://127.0.0.1:{allowed}"], env=env)) as sb:
        probe = f"""
import socket, urllib.request, urllib.error
def get(url):
    try: return urllib.request.urlopen(url, timeout=5).read().decode()
    except urllib.error.HTTPError as e: return f"HTTP {{e.code}}"
    except OSError as e: return "OSError"
def raw(host, port):
    try: socket.create_connection((host, port), 3).close(); return "connected"
    except OSError as e: return type(e).__name__
print(get("http://127.0.0.1:{allowed}/"), get("http://localhost:{allowed}/"), get("http://127.0.0.1:{other}/"),
      raw("127.0.0.1", {other}), raw("127.0.0.1", {allowed}), raw("1.1.1.1", 443))
"""
        r = run(sb, f"python3 - <<'EOF'\n{probe}\nEOF")
        assert r.stdout.split() == [
            "hello-from-allowed",
            "HTTP",
            "403",
            "HTTP",
            "403",
            "ConnectionRefusedError",
            "ConnectionRefusedError",
            "OSError",
        ], r.stderr
        c = "curl -s -m 5 -o /dev/null -w '%{http_code}/%{http_connect} '"
        r = run(
            sb,
            f"curl -s -m 5 http://127.0.0.1:{allowed}/; echo; "
            f"{c} http://127.0.0.1:{other}/; echo $?; "
            f"{c} --noproxy '*' http://127.0.0.1:{other}/; echo $?; "
            f"{c} https://1.1.1.1/; echo $?; "
            f"{c} --noproxy '*' https://1.1.1.1/; echo $?",
        )
        lines = r.stdout.splitlines()
        assert lines[0] == "hello-from-allowed"
        assert lines[1] == "403/000 0"  # the proxy refuses the other local port
        assert lines[2] == "000/000 7"  # no direct route: nothing listens inside
        assert lines[3].startswith("000/403 ")  # CONNECT to an outside address refused
        assert lines[4].split()[0] == "000/000" and lines[4].split()[1] in {"7", "28"}
        refused = sb.refused_requests()
    assert f"http://127.0.0.1:{other}/" in refused and "1.1.1.1:443" in refused
    assert f"http://127.0.0.1:{allowed}/" not in refused
    assert f"http://localhost:{allowed}/" in refused  # the same port by another name is another URL


def test_a_path_endpoint_reaches_only_urls_under_its_prefix(world, http_server):
    """How an item reaches its own MCP server on the process's shared host (tools/mcp_http.py): the
    proxy lets through plain HTTP under the item's prefix and refuses the rest of that port, other
    items' paths, and a CONNECT tunnel (which would carry any path)."""
    port = http_server("hello-tools")
    base = f"http://127.0.0.1:{port}"
    with Sandbox(spec(world, endpoints=[f"{base}/item-a1/*"])) as sb:
        c = "curl -s -m 5 -o /dev/null -w '%{http_code} '"
        r = run(
            sb,
            f"{c} {base}/item-a1/mcp; {c} {base}/item-a1/; {c} {base}/item-b2/mcp; {c} {base}/; "
            f"{c} {base}/item-a1; {c} {base}/item-a1x/mcp; {c} {base}/x/item-a1/mcp; "
            f"curl -s -m 5 -o /dev/null -w '%{{http_connect}}' -p {base}/item-b2/mcp",
            login=False,
        )
        assert r.stdout.split() == ["200", "200", "403", "403", "403", "403", "403", "403"], r.stdout
        refused = sb.refused_requests()
    assert f"{base}/item-b2/mcp" in refused and f"127.0.0.1:{port}" in refused
    assert f"{base}/item-a1/mcp" not in refused


def test_items_sharing_the_proxy_jail_reach_only_their_own_endpoints(world, http_server, tmp_path):
    """Two items open at once share one proxy jail (agent_eval/engine/proxy_jail.py) but each keeps its
    own proxy: item A reaches A's server and is refused B's, and the other way round; each item's
    refusals are its own; closing A leaves B's proxy working."""
    port_a, port_b = http_server("hello-from-a"), http_server("hello-from-b")
    other = {"work": tmp_path / "b" / "work", "home": tmp_path / "b" / "home"}
    for d in other.values():
        d.mkdir(parents=True)
    get = "curl -s -m 5 -o /dev/null -w '%{{http_code}} ' http://127.0.0.1:{}/"
    both = get.format(port_a) + "; " + get.format(port_b)
    a = Sandbox(spec(world, endpoints=[f"127.0.0.1:{port_a}"])).__enter__()
    with Sandbox(spec(other, endpoints=[f"127.0.0.1:{port_b}"])) as b:
        try:
            assert a._proxy.jail is b._proxy.jail and a._proxy.net_dir != b._proxy.net_dir
            assert run(a, both, login=False).stdout.split() == ["200", "403"]
            assert run(b, both, login=False).stdout.split() == ["403", "200"]
            assert a.refused_requests() == [f"http://127.0.0.1:{port_b}/"]
            assert b.refused_requests() == [f"http://127.0.0.1:{port_a}/"]
        finally:
            a.__exit__(None, None, None)
        assert run(b, get.format(port_b), login=False).stdout.split() == ["200"]
        assert b.refused_requests() == [f"http://127.0.0.1:{port_a}/"]


def test_an_item_whose_port_another_items_proxy_holds_gets_its_own_proxy(world, http_server, tmp_path, monkeypatch):
    """The port picked for item B's proxy is taken by item A's tinyproxy before B's binds it (forced here; seen in a
    run beside others in one process: a CLI's request to its own gateway refused "403 Filtered" by a proxy not its
    own). A's tinyproxy answers B's readiness probe as B's would, but the probe is not in B's log: B starts again on
    another port, and its requests meet its own filter, not A's."""
    port_a, port_b = http_server("hello-from-a"), http_server("hello-from-b")
    other = {"work": tmp_path / "b" / "work", "home": tmp_path / "b" / "home"}
    for d in other.values():
        d.mkdir(parents=True)
    get = "curl -s -m 5 -o /dev/null -w '%{{http_code}} ' http://127.0.0.1:{}/"
    both = get.format(port_a) + "; " + get.format(port_b)
    with Sandbox(spec(world, endpoints=[f"127.0.0.1:{port_a}"])) as a:
        a.ready()
        taken = iter([a._proxy._port])
        free_port = proxy_jail._free_port
        monkeypatch.setattr(proxy_jail, "_free_port", lambda: next(taken, None) or free_port())
        with Sandbox(spec(other, endpoints=[f"127.0.0.1:{port_b}"])) as b:
            assert run(b, both, login=False).stdout.split() == ["403", "200"]
            assert b._proxy._port != a._proxy._port and b._proxy._tries == 2
            assert b.refused_requests() == [f"http://127.0.0.1:{port_a}/"]
        assert a.refused_requests() == []  # B's probe of A's tinyproxy is a probe: no refusal of A's item


def test_named_endpoint_is_allowed_and_others_refused(world):
    """No internet here: an allowed name gets past the filter (then fails to resolve outside),
    a name not listed is refused by the filter. The proxy's log tells them apart."""
    with Sandbox(spec(world, endpoints=["api.anthropic.com:443", "my-model.internal:8443"])) as sb:
        run(
            sb,
            "curl -s -m 5 https://api.anthropic.com/ ; curl -s -m 5 https://example.com/; "
            "curl -s -m 5 http://api.anthropic.com/; curl -s -m 5 https://my-model.internal:8443/; "
            "curl -s -m 5 https://my-modelxinternal:8443/; curl -s -m 5 https://my-model.internal:8444/",
            login=False,
        )
        assert sb.refused_requests() == [
            "example.com:443",
            "http://api.anthropic.com/",
            "my-modelxinternal:8443",
            "my-model.internal:8444",
        ]


def test_no_endpoints_no_network(world):
    with Sandbox(spec(world)) as sb:
        r = run(sb, "echo $HTTPS_PROXY; curl -s -m 3 -o /dev/null https://1.1.1.1/; echo $?", login=False)
    assert r.stdout.split() == ["7"]


# ---------------------------------------------------------------- processes and CLIs


def test_killing_the_process_group_leaves_nothing_running(world):
    marker = "4242.25"  # a sleep duration nobody else uses
    with Sandbox(spec(world, endpoints=["127.0.0.1:9"])) as sb:
        argv, env = sb.wrap(["/bin/bash", "-c", f"sleep {marker} & sleep {marker}"])
        proc = subprocess.Popen(argv, env=env, start_new_session=True, pass_fds=sb.pass_fds)
        deadline = time.monotonic() + 10
        while len(_pids_with(marker)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(_pids_with(marker)) == 2
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 5
        while _pids_with(marker) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _pids_with(marker) == []
        item_conf = f"/run/proxy/{sb._proxy.id}/"
        assert len(_pids_with(item_conf, comm="tinyproxy")) == 1
    deadline = time.monotonic() + 5  # the item's proxy ends with the Sandbox
    while _pids_with(item_conf, comm="tinyproxy") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _pids_with(item_conf, comm="tinyproxy") == []


def _pids_with(text: str, comm: str = "sleep") -> list[int]:
    pids = []
    for d in Path("/proc").iterdir():
        try:
            if (
                d.name.isdigit()
                and (d / "comm").read_text().strip() == comm
                and text in (d / "cmdline").read_bytes().decode(errors="replace")
            ):
                pids.append(int(d.name))
        except OSError:
            pass
    return pids


def test_cli_versions_inside(world):
    with Sandbox(spec(world)) as sb:
        for cli, word in (("claude", "Claude Code"), ("codex", "codex-cli")):
            argv, env = sb.wrap([str(BIN / cli), "--version"])
            r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, pass_fds=sb.pass_fds)
            assert r.returncode == 0 and word in r.stdout, (cli, r.stdout, r.stderr)


def test_doctor_checks_pass():
    checks = check_sandbox()
    assert checks and all(c.ok for c in checks), [c for c in checks if not c.ok]


# ---------------------------------------------------------------- real CLIs, scripted model


def test_a_readonly_mount_shows_what_is_added_later_and_takes_no_writes(world):
    """ItemSetup.readonly_mounts (a game's frame archive in python mode): bound over a folder of the workdir,
    live, read-only; the folder it comes from is not otherwise visible; a target outside the workdir is refused."""
    source = world["dataset"].parent / "archive"
    source.mkdir()
    (source / "0001.npy").write_text("first")
    (world["work"] / "frames").mkdir()
    mounted = SandboxSpec(
        world["work"], world["home"], endpoints=[], readonly_mounts=[(source, world["work"] / "frames")]
    )
    with Sandbox(mounted) as sb:
        argv, env = sb.wrap(
            [
                "/bin/bash",
                "-c",
                "read line; cat frames/*.npy; echo; echo x > frames/0001.npy; "
                "touch frames/new; ls frames; ls " + str(source),
            ]
        )
        proc = subprocess.Popen(
            argv,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            pass_fds=sb.pass_fds,
        )
        (source / "0002.npy").write_text("second")  # added while the sandbox runs
        out, _ = proc.communicate("go\n", timeout=60)
    assert "firstsecond" in out.replace("\n", "") and "Read-only file system" in out
    assert (source / "0001.npy").read_text() == "first" and not (source / "new").exists()
    assert "No such file or directory" in out  # the archive's own path is not there
    outside = SandboxSpec(world["work"], world["home"], endpoints=[], readonly_mounts=[(source, world["sibling"])])
    with pytest.raises(SandboxError), Sandbox(outside) as sb:
        sb.wrap(["true"])


def test_without_a_sandbox_a_readonly_mount_is_a_link(world, tmp_path):
    source = tmp_path / "archive"
    source.mkdir()
    (world["work"] / "frames").mkdir()
    spec_none = SandboxSpec(
        world["work"], world["home"], endpoints=[], readonly_mounts=[(source, world["work"] / "frames")]
    )
    with Sandbox(spec_none, kind="none") as sb:
        sb.wrap(["true"])
    assert (world["work"] / "frames").is_symlink() and (world["work"] / "frames").resolve() == source.resolve()


def test_a_memory_dir_keeps_on_disk_only_what_it_held_and_its_kept_folders(world):
    """Invocation.memory_dirs (Codex's CODEX_HOME): inside, the folder is a tmpfs; the files the harness wrote
    there before the start and the kept folders are the disk's (read back, written through); everything else the
    CLI writes there is gone with the sandbox, and a folder outside the home is refused."""
    state = world["home"] / ".cli"
    state.mkdir()
    (state / "config.toml").write_text("model = 'x'\n")
    (state / "elsewhere").symlink_to(world["sibling"])  # e.g. left by an older run: never followed
    memory = SandboxSpec(
        world["work"], world["home"], endpoints=[], memory_dirs=(MemoryDir(state, kept=("sessions",)),)
    )
    with Sandbox(memory) as sb:
        r = run(
            sb,
            f"cat {state}/config.toml; echo more >> {state}/config.toml; echo log > {state}/sessions/rollout.jsonl;"
            f" mkdir {state}/skills && echo s > {state}/skills/a && echo db > {state}/state.sqlite;"
            f" ls {state} | tr '\\n' ' '; df --output=fstype {state} | tail -1",
        )
    assert r.returncode == 0, r.stderr
    assert "model = 'x'" in r.stdout and "config.toml sessions skills state.sqlite" in r.stdout  # no elsewhere
    assert r.stdout.split()[-1] == "tmpfs"  # the folder itself: in memory
    assert (state / "config.toml").read_text() == "model = 'x'\nmore\n"
    assert (state / "sessions" / "rollout.jsonl").read_text() == "log\n"
    assert sorted(p.name for p in state.iterdir()) == ["config.toml", "elsewhere", "sessions"]  # nothing new
    outside = SandboxSpec(world["work"], world["home"], endpoints=[], memory_dirs=(MemoryDir(world["sibling"]),))
    with pytest.raises(SandboxError), Sandbox(outside) as sb:
        sb.wrap(["true"])


def test_the_command_starts_only_once_the_items_proxy_is_known_to_answer(world, http_server):
    """wrap(ready_later=True): the sandbox starts at once, its proxy beside it; the command inside runs only after
    ready() has checked the proxy (nothing it sends can reach a port not yet known to be the item's proxy)."""
    allowed = http_server("hello-from-allowed")
    with Sandbox(spec(world, endpoints=[f"http://127.0.0.1:{allowed}"])) as sb:
        command = f"touch ran; curl -s -m 5 http://127.0.0.1:{allowed}/"
        argv, env = sb.wrap(["/bin/sh", "-c", command], ready_later=True)
        proc = subprocess.Popen(
            argv, env=env, stdout=subprocess.PIPE, text=True, pass_fds=sb.pass_fds, cwd=world["work"]
        )
        time.sleep(0.5)
        assert proc.poll() is None and not (world["work"] / "ran").exists()  # waiting for the proxy's check
        sb.ready()
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0 and out == "hello-from-allowed" and (world["work"] / "ran").exists()
