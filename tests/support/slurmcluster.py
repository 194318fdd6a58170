"""A real single-node Slurm cluster for the tests, started without systemd.

Debian's `slurmctld`, `slurmd`, `slurm-client` and `munge` (installed here when missing and we
are root). `munged` runs as user munge with its own key and socket, then `slurmctld` and `slurmd`
run directly with a private slurm.conf: proctrack/linuxproc, task/none, select/cons_tres with
CR_Core, no accounting, the node line from `slurmd -C`, and everything on 127.0.0.1. A second
partition, `urgent`, preempts (requeues) jobs of the default one, as a lab's priority queue would.
Two settings keep the tests short: `cred_expire=5` (a requeued job is held for the credential
lifetime plus one second, 121 s by default) and `sched_interval=2` (the main scheduler pass that
starts a requeued job).

Idempotent: a cluster already running from the same directory is reused and left running; only
daemons this process started are stopped, by their pids.

By hand: `python tests/support/slurmcluster.py start` prints the `export SLURM_CONF=...` line; `stop` ends it.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

PACKAGES = ("slurmctld", "slurmd", "slurm-client", "munge")
DEFAULT_DIR = Path("/tmp/agent-eval-slurm")


class ClusterUnavailable(Exception):
    """This machine cannot run the cluster; the message says why."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _alive(pid_file: Path) -> int | None:
    try:
        pid = int(pid_file.read_text().split()[0])
        os.kill(pid, 0)
    except (OSError, ValueError, IndexError):
        return None
    return pid


def install_packages() -> None:
    missing = [
        p
        for p in PACKAGES
        if subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], capture_output=True, text=True).stdout.strip()
        != "install ok installed"
    ]
    if not missing:
        return
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise ClusterUnavailable(
            f"Slurm packages missing ({', '.join(missing)}) and cannot install them here "
            f"(needs root and apt-get): apt-get install {' '.join(missing)}"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env, capture_output=True)
    done = subprocess.run(
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise ClusterUnavailable(f"apt-get install {' '.join(missing)} failed: {done.stderr[-500:]}")


class SlurmCluster:
    def __init__(self, root: Path = DEFAULT_DIR):
        self.root = root
        self.conf = root / "slurm.conf"
        self.started: list[tuple[str, int]] = []  # (name, pid) of the daemons we started

    @property
    def pid_files(self) -> dict[str, Path]:
        """In start order."""
        return {
            "munged": self.root / "munge" / "munged.pid",
            "slurmctld": self.root / "slurmctld.pid",
            "slurmd": self.root / "slurmd.pid",
        }

    @property
    def env(self) -> dict[str, str]:
        """What a client (sbatch, squeue, scontrol, agent-eval slurm) needs to reach this cluster."""
        return {"SLURM_CONF": str(self.conf)}

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(
            argv, capture_output=True, text=True, check=check, env={**os.environ, **self.env}, timeout=60
        )

    # -- start --------------------------------------------------------------------------------
    def start(self) -> "SlurmCluster":
        if os.geteuid() != 0:
            raise ClusterUnavailable("slurmd must run as root to launch jobs; this user is not root")
        install_packages()
        if all(_alive(path) for path in self.pid_files.values()) and self._node_up(5):
            self.cancel_orphans()
            return self  # already running from this directory: reuse, and leave it running
        self._stop_stale()
        self._write_files()
        self._daemon(
            "munged",
            [
                "runuser",
                "-u",
                "munge",
                "--",
                "munged",
                f"--socket={self.root}/munge/socket",
                f"--key-file={self.root}/munge/munge.key",
                f"--pid-file={self.root}/munge/munged.pid",
                f"--log-file={self.root}/munge/munged.log",
                f"--seed-file={self.root}/munge/seed",
                "--force",
            ],
            self.pid_files["munged"],
        )
        # -c: a fresh cluster forgets jobs queued by an earlier, crashed session
        self._daemon("slurmctld", ["slurmctld", "-f", str(self.conf), "-c"], self.pid_files["slurmctld"])
        self._daemon("slurmd", ["slurmd", "-f", str(self.conf)], self.pid_files["slurmd"])
        if not self._node_up(30):
            state = self.run("sinfo", "-N", "-o", "%N %T %E", check=False)
            self.stop()
            raise RuntimeError(f"the Slurm node did not become idle: {state.stdout}{state.stderr}; logs in {self.root}")
        return self

    def _write_files(self) -> None:
        munge_dir = self.root / "munge"
        for sub in ("state", "spool", "munge"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)
        munge = pwd.getpwnam("munge")
        if not (munge_dir / "munge.key").exists():
            subprocess.run(
                ["mungekey", "--create", f"--keyfile={munge_dir}/munge.key"], check=True, capture_output=True
            )
        for path in (munge_dir, *munge_dir.iterdir()):
            os.chown(path, munge.pw_uid, munge.pw_gid)
        munge_dir.chmod(0o755)  # root (the daemons) and munge reach the socket
        (munge_dir / "munge.key").chmod(0o600)
        node = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
        host = node.split()[0].split("=", 1)[1]
        r = self.root
        self.conf.write_text(
            "\n".join(
                [
                    "ClusterName=agenteval",
                    f"SlurmctldHost={host}(127.0.0.1)",
                    f"SlurmctldPort={_free_port()}",
                    f"SlurmdPort={_free_port()}",
                    "SlurmUser=root",
                    "SlurmdUser=root",
                    "AuthType=auth/munge",
                    "CredType=cred/munge",
                    f"AuthInfo=socket={r}/munge/socket,cred_expire=5",
                    "ProctrackType=proctrack/linuxproc",
                    "TaskPlugin=task/none",
                    "SelectType=select/cons_tres",
                    "SelectTypeParameters=CR_Core",
                    "SchedulerParameters=sched_interval=2",
                    "AccountingStorageType=accounting_storage/none",
                    "JobAcctGatherType=jobacct_gather/none",
                    "JobCompType=jobcomp/none",
                    "MpiDefault=none",
                    "ReturnToService=2",
                    "KillWait=10",
                    "MinJobAge=600",
                    f"StateSaveLocation={r}/state",
                    f"SlurmdSpoolDir={r}/spool",
                    f"SlurmctldPidFile={r}/slurmctld.pid",
                    f"SlurmdPidFile={r}/slurmd.pid",
                    f"SlurmctldLogFile={r}/slurmctld.log",
                    f"SlurmdLogFile={r}/slurmd.log",
                    f"{node} NodeAddr=127.0.0.1 State=UNKNOWN",
                    # A job in `urgent` preempts (requeues) jobs in `debug` when it needs their cores.
                    "PreemptType=preempt/partition_prio",
                    "PreemptMode=REQUEUE",
                    f"PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP PriorityTier=1",
                    f"PartitionName=urgent Nodes={host} MaxTime=INFINITE State=UP PriorityTier=10",
                ]
            )
            + "\n"
        )

    def _daemon(self, name: str, argv: list[str], pid_file: Path) -> None:
        pid_file.unlink(missing_ok=True)
        done = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, **self.env})
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            pid = _alive(pid_file)
            if pid:
                self.started.append((name, pid))
                return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{name} did not start (exit {done.returncode}): {done.stderr[-800:]}; logs in {self.root}")

    def _node_up(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.conf.exists():
                state = self.run("sinfo", "-h", "-N", "-o", "%T", check=False).stdout.split()
                if state and all(s in ("idle", "mixed", "allocated") for s in state):
                    return True
            time.sleep(0.3)
        return False

    # -- stop ---------------------------------------------------------------------------------
    # -- jobs left behind ---------------------------------------------------------------------
    def _queued_scripts(self) -> list[tuple[str, str]]:
        """(job id, batch script) of every queued or running job."""
        out = self.run("squeue", "-h", "-o", "%F %o", check=False).stdout
        return [tuple(line.split(None, 1)) for line in out.splitlines() if len(line.split(None, 1)) == 2]

    def cancel_jobs_under(self, folder: Path) -> None:
        """Cancels the jobs whose batch script lies under `folder` (a test's own): a test that failed or timed out
        leaves nothing queued in front of the next test's jobs."""
        jobs = {job for job, script in self._queued_scripts() if Path(script).is_relative_to(folder)}
        if jobs:
            self.run("scancel", *sorted(jobs), check=False)

    def cancel_orphans(self) -> None:
        """Jobs whose batch script is gone (their test's temp folder was removed): an earlier, killed session's,
        which would otherwise hold the node forever."""
        jobs = {job for job, script in self._queued_scripts() if script.startswith("/") and not Path(script).exists()}
        if jobs:
            self.run("scancel", *sorted(jobs), check=False)

    def _stop_stale(self) -> None:
        """Daemons left by an earlier session from this directory (a crash): stopped by pid file."""
        for name, path in self.pid_files.items():
            pid = _alive(path)
            if pid:
                self.started.append((name, pid))
        self.stop()

    def stop(self) -> None:
        """Ends the daemons we started (slurmd first), by pid; SIGKILL after 10 s."""
        for _name, pid in reversed(self.started):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            else:
                os.kill(pid, signal.SIGKILL)
        self.started.clear()


if __name__ == "__main__":
    cluster = SlurmCluster()
    if sys.argv[1:] == ["start"]:
        cluster.start()
        print(f"export SLURM_CONF={cluster.conf}")
    elif sys.argv[1:] == ["stop"]:
        cluster._stop_stale()
    else:
        sys.exit("usage: slurmcluster.py start|stop")
