"""The ARC API side of the toolkit's hosts (online and competition modes), run by the toolkit's interpreter in the
jail toolkit_process.py builds; never imported by agent-eval itself.

As a module, game_host.py imports it to play a game made at the API (`connect`, `make_game`, `game_result`).
Run as a script, it keeps a run's remote scorecard: one request per line on stdin, one answer per line on stdout:

    {"op": "games"}                                   -> {"ok": true, "games": ["ls20-cb3b57cc", ...]}
    {"op": "open_card", "tags": [...], "opaque": {}}  -> {"ok": true, "card_id": "..."}
    {"op": "get_card", "card_id": "..."}              -> {"ok": true, "scorecard": {...}}   (online mode only)
    {"op": "close_card", "card_id": "..."}            -> {"ok": true, "scorecard": {...}}
    {"op": "close"}                                   -> (exits)
    a request the API refuses                         -> {"ok": true, "failed": "one line"}   (the host goes on)

Every call is the toolkit's own client (`arc_agi.Arcade`), the key and base URL from the environment. The jail's
one way out is a unix socket to the run's proxy (`connect` relays a loopback port to it, set as HTTP(S)_PROXY). The
key is replaced by [ARC_API_KEY] in everything this process writes: the API's error bodies can quote it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import logging.handlers
import os
import socket
import sys
import threading

MASK = "[ARC_API_KEY]"
COMPETITION_HIDES = (
    "competition mode: the ARC API shows no scorecard before it is closed (the toolkit's server refuses to), "
    "so this game's entry is known when the run's scorecard closes"
)


class Scrubbed:
    """A text stream that never writes the key."""

    def __init__(self, stream, key: str):
        self._stream, self._key = stream, key

    def write(self, text: str) -> int:
        return self._stream.write(text.replace(self._key, MASK) if self._key else text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def connect(proxy_socket: str, protocol):
    """Before the toolkit is imported: the key masked in all output (`protocol`, the answer channel, returned
    wrapped) and the relay to the run's proxy."""
    key = os.environ.get("ARC_API_KEY", "")
    sys.stderr = Scrubbed(sys.stderr, key)
    sys.stdout = sys.stderr
    relay(proxy_socket)
    return Scrubbed(protocol, key)


def relay(proxy_socket: str) -> str:
    """A loopback port carrying each connection to the proxy's unix socket, set as the toolkit's HTTP(S) proxy."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)

    def pump(src: socket.socket, dst: socket.socket, answers: bool = False) -> None:
        head = b""  # an answer's bytes until its status line has passed
        try:
            while data := src.recv(65536):
                if answers:
                    head += data
                    if b"\r\n" not in head:
                        continue
                    data, head, answers = _closing(head), b"", False
                dst.sendall(data)
            dst.sendall(head)
        except OSError:
            pass
        finally:
            for s, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
                with contextlib.suppress(OSError):
                    s.shutdown(how)

    def serve() -> None:
        while True:
            inside, _ = listener.accept()
            outside = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                outside.connect(proxy_socket)
            except OSError:
                inside.close()
                continue
            threading.Thread(target=pump, args=(inside, outside), daemon=True).start()
            threading.Thread(target=pump, args=(outside, inside, True), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        os.environ[name] = url
    for name in ("NO_PROXY", "no_proxy"):
        os.environ.pop(name, None)
    return url


def _closing(answer: bytes) -> bytes:
    """The proxy's answer saying that its connection ends with it (`Connection: close` after the status line).
    The run's proxy (tinyproxy) serves one request on each connection and then closes it without saying so; the
    toolkit's HTTP library keeps the connection and sends the next request (a game's next action) into it while
    it closes, where it never reaches the API: RemoteDisconnected, an action lost (seen under load). Told, it
    opens a new connection for each request, as the agents' MCP clients do (agent_eval/tools/toolset.py). The
    header is read first, before any the answer has; a CONNECT's answer (https: the tunnel) ignores it."""
    end = answer.index(b"\r\n") + 2
    return answer[:end] + b"Connection: close\r\n" + answer[end:]


def arcade(mode: str, logger: logging.Logger):
    """The toolkit's client in `mode` (its constructor asks the API for its games)."""
    from arc_agi import Arcade, OperationMode

    client = Arcade(operation_mode=OperationMode(mode), environments_dir="/nonexistent", logger=logger)
    if client.operation_mode.value != mode:
        raise RuntimeError(f"the toolkit is in mode {client.operation_mode.value}, not {mode}")
    return client


def offered(client) -> list[str]:
    return sorted(e.game_id for e in client.get_environments())


def make_game(client, game_id: str, card_id: str):
    """The game made at the API on the run's scorecard (the toolkit's RESET that starts a play). Refused before
    anything reaches the scorecard when the API does not offer exactly this version: the toolkit would make the
    API's own version instead, silently."""
    games = offered(client)
    if game_id not in games:
        same = [g for g in games if g.split("-", 1)[0] == game_id.split("-", 1)[0]]
        why = f"it serves {', '.join(same)}" if same else f"it offers {len(games)} game(s), not this one"
        raise LookupError(f"the ARC API does not offer {game_id} ({why}); the run's --data must hold the API's version")
    return client.make(game_id, scorecard_id=card_id)


def game_result(client, env, game_id: str, card_id: str, mode: str) -> dict:
    """This play's entry on the run's scorecard as the API computes it (our runs picked by guid), or why not yet."""
    guid = getattr(env.observation_space, "guid", None)
    out: dict = {"card_id": card_id, "guid": guid, "game_id": game_id}
    if mode == "competition":
        return {**out, "unavailable": COMPETITION_HIDES}
    try:
        card = client.get_scorecard(card_id)
    except Exception as e:  # noqa: BLE001 - the API's refusal is this result's one line
        return {**out, "unavailable": f"the ARC API did not give the scorecard: {one_line(e)}"}
    if card is None:
        return {**out, "unavailable": "the ARC API gave no scorecard"}
    entry = next((e for e in card.model_dump(mode="json")["environments"] if e["id"] == game_id), None)
    runs = [r for r in (entry or {}).get("runs") or [] if r.get("guid") == guid]
    if not runs:
        return {**out, "unavailable": f"the scorecard holds no play {guid} of {game_id}"}
    return {**out, **play_totals(runs)}


def play_totals(runs: list[dict]) -> dict:
    """One play's entry from its runs on the card (a RESET of the whole game opens another run), totalled as the
    toolkit totals a game's runs (EnvironmentScoreList), with the best run's per-level lists."""
    best = max(runs, key=lambda r: (r.get("score") or 0.0, r.get("levels_completed") or 0))
    return {
        "score": best.get("score"),
        "levels_completed": max(r.get("levels_completed") or 0 for r in runs),
        "actions": sum(r.get("actions") or 0 for r in runs),
        "resets": sum(r.get("resets") or 0 for r in runs),
        "completed": any(r.get("completed") for r in runs),
        "level_actions": best.get("level_actions"),
        "level_scores": best.get("level_scores"),
        "message": best.get("message"),
        "runs": runs,
    }


def one_line(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}".strip()
    return text.splitlines()[0][:400] if text else type(error).__name__


def last_error(errors: logging.handlers.BufferingHandler) -> str | None:
    """The toolkit logs a failed request (and returns None) rather than raising: the last error it logged."""
    return errors.buffer[-1].getMessage().splitlines()[0][:400] if errors.buffer else None


def card_answer(client, mode: str, req: dict, errors: logging.handlers.BufferingHandler) -> dict:
    op, card_id = req.get("op"), req.get("card_id")
    errors.flush()  # (forgets the records)
    try:
        if op == "games":
            return {"ok": True, "games": offered(client)}
        if op == "open_card":
            return {"ok": True, "card_id": client.open_scorecard(tags=req.get("tags"), opaque=req.get("opaque"))}
        if op == "get_card":
            if mode == "competition":
                return {"ok": True, "failed": COMPETITION_HIDES}
            card = client.get_scorecard(card_id)
        elif op == "close_card":
            card = client.close_scorecard(card_id)
        else:
            return {"ok": False, "error": f"unknown request {op!r}"}
    except Exception as e:  # noqa: BLE001 - the API's refusal, said in one line; the host goes on
        return {"ok": True, "failed": one_line(e)}
    if card is None:
        return {"ok": True, "failed": last_error(errors) or "the ARC API gave no scorecard"}
    dump = card.model_dump(mode="json")
    dump.pop("api_key", None)
    return {"ok": True, "scorecard": dump}


def main() -> int:
    ap = argparse.ArgumentParser(description="a run's scorecard at the ARC API")
    ap.add_argument("--mode", required=True, choices=("online", "competition"))
    ap.add_argument("--proxy-socket", required=True)
    args = ap.parse_args()
    protocol = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    protocol = connect(args.proxy_socket, protocol)
    errors = logging.handlers.BufferingHandler(capacity=1 << 30)
    errors.setLevel(logging.ERROR)
    log = logging.getLogger("agent_eval.scorecard_host")
    log.handlers[:] = [errors, logging.StreamHandler(sys.stderr)]
    log.setLevel(logging.INFO)
    log.propagate = False

    def send(obj: dict) -> None:
        protocol.write(json.dumps(obj, separators=(",", ":")) + "\n")

    try:
        client = arcade(args.mode, log)
    except Exception as e:  # noqa: BLE001
        send({"ok": False, "error": f"the toolkit's client did not start: {one_line(e)}"})
        return 1
    send({"ok": True, "ready": "scorecard", "games": offered(client), "listing_failed": last_error(errors)})
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("op") == "close":
            return 0
        send(card_answer(client, args.mode, req, errors))
    return 0


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    os._exit(code)
