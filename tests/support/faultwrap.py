#!/usr/bin/env python3
"""Fault injection around a REAL agent CLI: run it, pass stdin and stderr through, and corrupt
what reaches the harness on stdout (or the exit code), the way a broken CLI release, a torn
pipe or a crash would.

    faultwrap.py MODE CLI [ARGS...]

Modes:
  garbage    after the CLI's first stdout line, insert two lines that are not JSON objects
             (`GARBAGE_TEXT` and a JSON array)
  unknown    after the CLI's first stdout line, insert {"type": "brand_new_event", ...}
  cut-last   the CLI's last stdout line is written only half, without its newline
  exit3      pass everything through; once the CLI has finished, write `CRASH_MESSAGE` to
             stderr and exit 3 whatever the CLI's exit code was
  die        never start the CLI: write `DIE_MESSAGE` to stderr and exit 3

The wrapper stays in the CLI's process group (no new session), so the harness's timeout and
Ctrl-C handling kill both. It needs nothing but the Python standard library.
"""

from __future__ import annotations

import json
import subprocess
import sys

GARBAGE_TEXT = "faultwrap: this line is not JSON {"
GARBAGE_ARRAY = "[1, 2, 3]"
UNKNOWN_EVENT = {"type": "brand_new_event", "note": "injected by faultwrap"}
CRASH_MESSAGE = "faultwrap: simulated crash after the CLI finished (segfault in the event writer)"
DIE_MESSAGE = "faultwrap: simulated start-up failure: cannot load the CLI bundle"
MODES = ("garbage", "unknown", "cut-last", "exit3", "die")


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in MODES:
        sys.stderr.write(f"usage: faultwrap.py {{{'|'.join(MODES)}}} CLI [ARGS...]\n")
        return 2
    mode, command = argv[0], argv[1:]
    if mode == "die":
        sys.stderr.write(DIE_MESSAGE + "\n")
        return 3
    out = sys.stdout.buffer
    proc = subprocess.Popen(command, stdout=subprocess.PIPE)  # stdin and stderr: inherited
    held: bytes | None = None  # cut-last: one line behind, to know which one is last
    for number, line in enumerate(proc.stdout):
        if mode == "cut-last":
            if held is not None:
                out.write(held)
            held = line
        else:
            out.write(line)
        if number == 0 and mode == "garbage":
            out.write(f"{GARBAGE_TEXT}\n{GARBAGE_ARRAY}\n".encode())
        elif number == 0 and mode == "unknown":
            out.write((json.dumps(UNKNOWN_EVENT) + "\n").encode())
        out.flush()
    if held is not None:
        out.write(held[: len(held.rstrip(b"\n")) // 2])
        out.flush()
    code = proc.wait()
    if mode == "exit3":
        sys.stderr.write(CRASH_MESSAGE + "\n")
        return 3
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
