"""Run one agent CLI process: stream its JSONL events to disk as they arrive, enforce the timeout,
and leave nothing running afterwards (the whole process group is killed)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections import deque
from pathlib import Path
from typing import Callable

from agent_eval.datamodel.process_result import ProcessResult

KILL_GRACE_S = 3.0
# How long a failure that a signal from outside may have caused waits for the runner's handler to say the run
# is stopping (a scheduler's SIGTERM reaches every process of the job at once).
STOP_GRACE_S = 2.0


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGTERM the process group, then SIGKILL what is left after a grace period."""
    for sig, wait in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        # The leader is gone; members of its group may not be.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return


TAIL_EVENTS = 1000  # events of a session kept in memory (the last ones)


def run_process(
    argv: list[str],
    env: dict[str, str],
    cwd: Path,
    stdin: bytes | None,
    transcript_path: Path,
    stderr_path: Path,
    timeout_s: float,
    watch: Callable[[dict], str | None] | None = None,
    cancel: threading.Event | None = None,
    pass_fds: tuple[int, ...] = (),
    held: Callable[[], float] | None = None,
    stop_when: Callable[[], str | None] | None = None,
    on_start: Callable[[], None] | None = None,
) -> ProcessResult:
    """Each stdout line is written to `transcript_path` as {"t": seconds, "event": ...} (or "raw" when
    it is not JSON) the moment it arrives, so a crash loses nothing the CLI already said. `held()`: the
    seconds its requests have waited at the gateway for the provider so far; the timeout does not count them.
    `stop_when()`, asked a few times a second: a reason to stop it now (what no event says: a check decided
    elsewhere, a session silent too long), like `watch`'s. `on_start()`, called once it runs (what may be waited for
    meanwhile: its sandbox's proxy): an exception from it stops the process and is raised."""
    started = time.monotonic()
    result = ProcessResult(exit_code=None)
    # Only the last events stay in memory (what ends a session: its result, its error); the whole stream is in
    # transcript.jsonl, read back for the parse, so a game of thousands of actions keeps the harness flat.
    tail: deque[dict] = deque(maxlen=TAIL_EVENTS)
    stop = threading.Event()  # the watcher asked to stop
    wake = threading.Event()  # the CLI exited or the watcher asked to stop: the loop looks at once
    # Appended: an item that goes on after a restart keeps every session's stream in one file.
    with stderr_path.open("ab") as stderr_file, transcript_path.open("a", encoding="utf-8") as transcript:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr_file,
            start_new_session=True,
            pass_fds=pass_fds,
        )
        stdin_pipe, stdout_pipe = proc.stdin, proc.stdout
        assert stdin_pipe is not None and stdout_pipe is not None  # both PIPE

        def feed_stdin() -> None:
            try:
                if stdin:
                    stdin_pipe.write(stdin)
                stdin_pipe.close()
            except (BrokenPipeError, OSError):
                pass

        def read_stdout() -> None:
            for raw in stdout_pipe:
                now = round(time.monotonic() - started, 3)
                line = raw.decode("utf-8", errors="replace").rstrip("\n")
                if not line.strip():
                    continue
                try:
                    event = json.loads(line)
                    if not isinstance(event, dict):
                        raise ValueError("not an object")
                except ValueError:
                    result.malformed_lines += 1
                    transcript.write(json.dumps({"t": now, "raw": line}) + "\n")
                    transcript.flush()
                    continue
                transcript.write(json.dumps({"t": now, "event": event}, ensure_ascii=False) + "\n")
                transcript.flush()
                tail.append(event)
                if watch and not stop.is_set():
                    reason = watch(event)
                    if reason:
                        result.stopped_because = reason
                        stop.set()
                        wake.set()

        def wait_for_exit() -> None:
            proc.wait()
            wake.set()

        threads = [threading.Thread(target=f, daemon=True) for f in (feed_stdin, read_stdout, wait_for_exit)]
        for thread in threads:
            thread.start()
        reader = threads[1]
        if on_start is not None:
            try:
                on_start()
            except BaseException:
                _kill_group(proc)
                reader.join(timeout=10)
                raise
        deadline = started + timeout_s
        while proc.poll() is None:
            if stop.is_set():
                break
            if cancel is not None and cancel.is_set():
                result.interrupted = True
                break
            remaining = deadline + (held() if held else 0.0) - time.monotonic()
            if remaining <= 0:
                result.timed_out = True
                break
            reason = stop_when() if stop_when is not None and not stop.is_set() else None
            if reason:
                result.stopped_because = reason
                stop.set()
                break
            wake.wait(min(0.25, remaining))  # cancel (Ctrl-C) is polled at this pace
        signalled_from_outside = proc.poll() is not None and proc.returncode < 0  # nothing here killed it
        if proc.poll() is None:
            _kill_group(proc)
        else:
            _kill_group_leftovers(proc)
        reader.join(timeout=10)
        result.events = list(tail)
        result.exit_code = proc.wait()
    if signalled_from_outside and cancel is not None and not result.interrupted:
        # A scheduler's SIGTERM (Slurm requeue, preemption) reaches the agent and the runner at once: give
        # the runner's handler a moment to say the run is stopping, so the item is left for the resume
        # instead of being recorded as an agent error.
        result.interrupted = cancel.wait(STOP_GRACE_S)
    result.elapsed_s = round(time.monotonic() - started, 3)
    result.stderr_tail = _tail(stderr_path)
    return result


def _kill_group_leftovers(proc: subprocess.Popen) -> None:
    # The CLI exited on its own; anything it left in its group (MCP servers, shells) goes too.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _tail(path: Path, limit: int = 2000) -> str:
    try:
        data = path.read_bytes()[-limit:]
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")
