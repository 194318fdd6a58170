"""The game host: one ARC-AGI-3 game, played offline with the official toolkit, spoken to in JSON lines.

Run by the toolkit's own interpreter (Python >= 3.12, `.venv-arc`) in the jail game_process.py builds; never
imported by agent-eval (3.11). One request per line on stdin, one answer per line on the protocol channel:

    {"op": "step", "action": "ACTION6", "x": 3, "y": 7}
        -> {"ok": true, "state": "NOT_FINISHED", "levels_completed": 0, "win_levels": 3,
            "available_actions": ["ACTION6"], "frames": "<base64 of n x 64 x 64 uint8>"}
            (step_s: seconds in the toolkit's env.step; cpu_s: the host's CPU seconds so far; for perf/)
    {"op": "replay", "actions": [["ACTION6", 3, 7], ["RESET", null, null], ...]}
        -> {"ok": true, "steps": [{"state": ..., ..., "hashes": ["<16 hex>", ...]}, ...]}
    {"op": "scorecard"}  -> {"ok": true, "scorecard": {...}}
    {"op": "online_result"} -> {"ok": true, "online": {...}}   (online: this play's entry on the run's scorecard)
    {"op": "close"}      -> (exits)
    anything failing     -> {"ok": false, "error": "one line"}   (and the host exits)

The first line, unasked, is {"ok": true, "ready": GAME, "initial": {...}}: the observation make() produced, in a
step's form, before any action (VISTA shows it up front). With --mode online or competition (online_host.py) the game
is made at the ARC API on the run's scorecard (--card-id), the ready line names the play's `guid`, and `replay` and
`scorecard` are refused (a replayed action would count again on the scorecard).

The toolkit logs, and games may print, to stdout: the protocol channel is a private copy of fd 1 taken at
start, and fd 1 itself is pointed at stderr.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import importlib.util
import json
import logging
import logging.handlers
import os
import sys
import time
import traceback
import types

PROTOCOL = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr
GAME_FILE = "<string>"  # the toolkit exec()s the game's source: its frames carry this file name
game_file_name = "the game file"  # its real name once metadata.json is read, for messages
ONLINE_REFUSES = {
    "replay": "an online game is never replayed: every replayed action would count again on the run's scorecard",
    "scorecard": "an online game's score is the ARC API's (online_result); its offline scorecard is a local replay's",
}


def describe(exc: BaseException) -> str:
    """'TypeError: message (ae01.py line 12)': the exception and where in the game's source it arose."""
    if isinstance(exc, SyntaxError):
        return f"{game_file_name} has a syntax error at line {exc.lineno} (SyntaxError: {exc.msg})"
    text = f"{type(exc).__name__}: {exc}".rstrip(": ")
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == GAME_FILE]
    return f"{text} ({game_file_name} line {lines[-1]})" if lines else text


def failure(records: list[logging.LogRecord], context: str) -> str:
    """One line from the toolkit's error records: the first with an exception, else the first (the cause;
    later ones are its consequences, such as "Cannot reset: game not loaded")."""
    if not records:
        return f"{context}: the toolkit returned nothing"
    rec = next((r for r in records if r.exc_info), records[0])
    exc = rec.exc_info[1] if rec.exc_info else None
    if exc is None:
        return f"{context}: {rec.getMessage().splitlines()[0]}"
    return describe(exc) if isinstance(exc, SyntaxError) else f"{context}: {describe(exc)}"


def frame_hash(frame) -> str:
    """A frame's identity: sha256 of its 64x64 uint8 bytes, 16 hex digits. The same function as
    agent_eval/benchmarks/arcgames/frames.py's frame_hash (this file cannot import agent-eval)."""
    return hashlib.sha256(frame.tobytes()).hexdigest()[:16]


def send(obj: dict) -> None:
    PROTOCOL.write(json.dumps(obj, separators=(",", ":")) + "\n")


def fail(error: str) -> int:
    """The failure's one line for the client; the host's exit status."""
    send({"ok": False, "error": error})
    return 1


def scorecard(arcade, game_id: str, win_levels: int, baselines: list[int] | None) -> dict:
    """The toolkit's offline scorecard for this play-through, plus the reading of it the kind needs. Random ids
    (card_id, guid) are dropped: they would make equal play-throughs differ. A game without usable baselines gets
    score None (the toolkit writes 0.0 and a message)."""
    dump = arcade.get_scorecard().model_dump(mode="json")
    dump.pop("card_id", None)
    dump.pop("api_key", None)
    for env in dump.get("environments", []):
        for run in env.get("runs", []):
            run.pop("guid", None)
    card = {"game_id": game_id, "win_levels": win_levels, "baseline_actions": baselines, "toolkit_scorecard": dump}
    env = next((e for e in dump.get("environments", []) if e["id"] == game_id), None)
    if env is None:
        nothing = {"score": None, "score_unavailable": "no play recorded", "won": False, "levels_completed": 0}
        return card | nothing | {"actions": 0, "resets": 0, "runs": []}
    runs = env["runs"]
    unavailable = next((r["message"] for r in runs if r.get("message")), None)
    if unavailable and not baselines:
        unavailable = f"its metadata.json gives no baseline_actions (the toolkit: {unavailable})"
    elif unavailable and baselines and len(baselines) < win_levels:
        unavailable = (
            f"its metadata.json gives {len(baselines)} baseline_actions for {win_levels} levels ({unavailable})"
        )
    # The run the toolkit's game score comes from (it takes the best run's); among equals, the most levels.
    best = max(range(len(runs)), key=lambda i: (runs[i]["score"], runs[i]["levels_completed"]))
    return card | {
        "score": None if unavailable else env["score"],
        "score_unavailable": unavailable,
        "won": env["completed"],
        "levels_completed": env["levels_completed"],
        "actions": env["actions"],
        "resets": env["resets"],
        "best_run": best,
        "level_actions": runs[best].get("level_actions"),
        "level_scores": None if unavailable else runs[best].get("level_scores"),
        "runs": runs,
    }


class _Deferred(types.ModuleType):
    """A module whose code runs when it is first asked for an attribute it lacks.

    Not the stdlib's LazyLoader: that loads on any attribute, `__spec__` included, which the `import` statement
    itself reads when the module is already in sys.modules, so the toolkit's `import matplotlib.pyplot` loaded it
    at once."""

    def __getattr__(self, attr: str):
        spec = self.__spec__
        assert spec is not None and spec.loader is not None  # set by defer_plotting
        object.__setattr__(self, "__class__", types.ModuleType)  # an ordinary module from here on
        spec.loader.exec_module(self)
        return getattr(self, attr)


def defer_plotting() -> None:
    """matplotlib's pyplot and animation, loaded on first use, not when the toolkit imports them.

    The toolkit imports both to draw frames on a screen, which an offline game never does, and importing
    pyplot (with the font list matplotlib builds from the fonts in every fresh jail) was about half of a host's
    start-up CPU (perf/arcgames_startup.py). A game that draws anyway loads them then, unchanged."""
    for name in ("matplotlib.pyplot", "matplotlib.animation"):
        try:
            spec = importlib.util.find_spec(name)  # imports matplotlib itself (light), not the module
        except ImportError:
            return  # no matplotlib: the toolkit takes its own path for that
        if spec is None or spec.loader is None or name in sys.modules:
            return
        module = importlib.util.module_from_spec(spec)
        module.__class__ = _Deferred
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        setattr(sys.modules[parent], child, module)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--environments-dir", required=True)
    ap.add_argument("--game", required=True, help="GAME-VERSION, e.g. ae01-v1")
    ap.add_argument("--mode", default="offline", choices=("offline", "online", "competition"))
    ap.add_argument("--card-id", help="online: the run's scorecard at the ARC API")
    ap.add_argument("--proxy-socket", help="online: the unix socket of the run's proxy to the ARC API")
    args = ap.parse_args()
    game_id = args.game
    online: types.ModuleType | None = None
    if args.mode != "offline":
        global PROTOCOL
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        online = importlib.import_module("online_host")  # beside this script, bound in the jail with it
        PROTOCOL = online.connect(args.proxy_socket, PROTOCOL)  # before anything logs: the key is masked
    # The toolkit logs a failing game (syntax error, missing class, an exception in step) at ERROR and returns None
    # rather than raising: its records are kept (read once, as the host exits).
    errors = logging.handlers.BufferingHandler(capacity=1 << 30)
    errors.setLevel(logging.ERROR)
    log = logging.getLogger("agent_eval.game_host")
    log.handlers[:] = [errors, logging.StreamHandler(sys.stderr)]
    log.setLevel(logging.INFO)
    log.propagate = False
    try:
        defer_plotting()
        import numpy as np
        from arc_agi import Arcade, OperationMode
        from arcengine import GameAction
    except Exception as e:  # noqa: BLE001 - any import failure is one line for the client
        return fail(f"the game toolkit does not import: {describe(e)}")
    try:
        if online is not None:  # made at the ARC API, on the run's scorecard: no game file here
            arcade = online.arcade(args.mode, log)
            env, info = online.make_game(arcade, game_id, args.card_id), None
        else:
            arcade = Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=args.environments_dir, logger=log)
            if arcade.operation_mode != OperationMode.OFFLINE:
                return fail(f"the toolkit is not offline ({arcade.operation_mode.value})")
            info = next((e for e in arcade.get_environments() if e.game_id == game_id), None)
            if info is None:
                return fail(f"no metadata.json in {args.environments_dir} declares {game_id}")
            global game_file_name
            game_file_name = f"{(info.class_name or '').lower()}.py"
            env = arcade.make(game_id)
        if env is None or errors.buffer or env.observation_space is None:
            return fail(failure(errors.buffer, "loading the game"))
    except Exception as e:  # noqa: BLE001
        return fail(f"loading the game failed: {describe(e)}")
    state = {"win_levels": env.observation_space.win_levels, "last": env.observation_space}

    def answer_of(frame) -> dict:
        return {
            "ok": True,
            "state": frame.state.name if hasattr(frame.state, "name") else str(frame.state),
            "levels_completed": frame.levels_completed,
            "win_levels": state["win_levels"],
            "available_actions": [GameAction.from_id(a).name for a in frame.available_actions],
        }

    def with_frames(answer: dict, frames: list) -> dict:
        blob = np.stack(frames).tobytes() if frames else b""
        return {**answer, "frames": base64.b64encode(blob).decode("ascii"), "cpu_s": time.process_time()}

    def take(name: str, x, y):
        """One action: (the step's answer without its frames, the frames as uint8 arrays), or an error line."""
        action = GameAction.from_name(name)
        data = {"x": int(x), "y": int(y)} if action is GameAction.ACTION6 else {}
        started = time.perf_counter()
        frame = env.step(action, data=data)
        step_s = time.perf_counter() - started
        if frame is None or errors.buffer:
            return failure(errors.buffer, f"exception in step {action.name}"), None
        frames = list(frame.frame)
        if frames:
            state["last"] = frame
        else:
            # An action after WIN or GAME_OVER: the engine ignores it, returns no frame and a bare state
            # (levels 0 of 0); the toolkit does not count it. The state stands as it was.
            frame = state["last"]
        shapes = [list(np.shape(f)) for f in frames]
        if any(shape != [64, 64] for shape in shapes):
            return f"step {action.name} returned frames of shape {shapes}, not 64x64", None
        state["win_levels"] = frame.win_levels or state["win_levels"]
        answer = {**answer_of(frame), "step_s": step_s}
        return answer, [np.ascontiguousarray(f, dtype=np.uint8) for f in frames]

    first = env.observation_space
    initial = [np.ascontiguousarray(f, dtype=np.uint8) for f in first.frame]
    if any(f.shape != (64, 64) for f in initial):
        return fail(f"the game's first frames have shapes {[list(f.shape) for f in initial]}")
    made = {"guid": first.guid} if online is not None else {}  # the play at the API (online)
    send({"ok": True, "ready": game_id, "initial": with_frames(answer_of(first), initial), **made})

    for line in sys.stdin:
        req = None
        try:
            req = json.loads(line)
            op = req.get("op")
            if op == "close":
                return 0
            if online is not None and op in ("scorecard", "replay"):
                return fail(ONLINE_REFUSES[op])
            if op == "online_result" and online is not None:
                send({"ok": True, "online": online.game_result(arcade, env, game_id, args.card_id, args.mode)})
                continue
            if op == "scorecard":
                assert info is not None  # offline
                send({"ok": True, "scorecard": scorecard(arcade, game_id, state["win_levels"], info.baseline_actions)})
                continue
            if op == "replay":
                steps: list[dict] = []
                for name, x, y in req["actions"]:
                    req = {"op": "step", "action": name}  # names the failing step in an error
                    answer, frames = take(name, x, y)
                    if frames is None:
                        return fail(f"replaying step {len(steps) + 1}: {answer}")
                    for key in ("step_s", "ok"):
                        answer.pop(key)
                    answer["hashes"] = [frame_hash(f) for f in frames]
                    steps.append(answer)
                send({"ok": True, "steps": steps, "cpu_s": time.process_time()})
                continue
            if op != "step":
                return fail(f"unknown request {op!r}")
            answer, frames = take(req["action"], req.get("x"), req.get("y"))
            if frames is None:
                return fail(answer)
            send(with_frames(answer, frames))
        except BaseException as e:  # noqa: BLE001 - a game's failure (even sys.exit) is one line for the item
            what = f"step {req.get('action')}" if isinstance(req, dict) and req.get("op") == "step" else "the host"
            return fail(f"exception in {what}: {describe(e)}")
    return 0


if __name__ == "__main__":
    code = main()
    PROTOCOL.flush()
    sys.stderr.flush()
    # No interpreter teardown: with the toolkit's imports (matplotlib, flask) it takes ~0.9 s on a busy
    # machine and has nothing to save; the game's state ends with the play-through.
    os._exit(code)
