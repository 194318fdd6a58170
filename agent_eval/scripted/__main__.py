"""python -m agent_eval.scripted (--scenario FILE | --play ACTIONS) [--host H] [--port N] [--log FILE] [--delay S]"""

from __future__ import annotations

import argparse
import dataclasses
import signal
import sys

from agent_eval.scripted.game_play import parse_play
from agent_eval.scripted.server import ScriptedServer


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m agent_eval.scripted",
        description="Serve a scripted model (Anthropic Messages + OpenAI Responses).",
    )
    source = ap.add_mutually_exclusive_group(required=True)
    source.add_argument("--scenario", help="scenario YAML file")
    source.add_argument(
        "--play", help="play these game actions through the `play` tool, then DONE: RESET,ACTION4,ACTION6@12:30"
    )
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    ap.add_argument("--log", default=None, help="append every request as JSONL here")
    ap.add_argument("--delay", type=float, default=None, help="override faults.delay (seconds)")
    args = ap.parse_args(argv)
    scenario = parse_play(args.play) if args.play else args.scenario
    server = ScriptedServer(scenario, args.log, host=args.host, port=args.port)
    if args.delay is not None:
        server.faults = dataclasses.replace(server.faults, delay=args.delay)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(server.url, flush=True)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
