"""Online and competition modes (`--arc-mode`): the games are played at the ARC API on one scorecard per run
(RunCard: opened before the first game or taken over from an earlier session, closed at the end, in run.json's
kind_run), through the toolkit's own client, the user's key kept out of every agent's sandbox.

A game in flight when the harness stops is not continued (docs/kinds/arcgames.md): every replayed action would
count again on the card, and the toolkit's client cannot re-attach to a play. It stands on the card as played, and
its item says so (`benchmark_error`, "interrupted").
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Callable

from agent_eval import __version__
from agent_eval.benchmarks.arcgames.game_process import GameProcess
from agent_eval.benchmarks.arcgames.game_record import GameEnd, read_plays, write_end
from agent_eval.benchmarks.arcgames.toolkit_process import ONLINE_HOST, GameError, Online, ToolkitProcess
from agent_eval.benchmarks.base import ItemError
from agent_eval.benchmarks.games.folder import read_json
from agent_eval.datamodel.config import ConfigError, RunConfig
from agent_eval.datamodel.itemdir import now_iso
from agent_eval.datamodel.run_services import EgressError, RunServices

ONLINE_RECORD = "online.json"  # <item>/game/online.json: the card and the play (guid) this game was made as
INTERRUPTED = "interrupted"


def refuse_what_the_mode_forbids(mode: str, config: RunConfig) -> None:
    """The toolkit's rules for a scorecard, said before anything is opened (one line each)."""
    if config.shard:
        raise ConfigError(
            f"--arc-mode {mode} puts every game of a run on one scorecard; --shard would give each shard its own: "
            f"run the games in one run (--jobs N for parallel games)"
        )
    if mode == "competition" and config.repeats > 1:
        raise ConfigError(
            "--arc-mode competition makes each game once per scorecard (the toolkit's server refuses a second "
            f"make): --repeats must be 1, not {config.repeats}"
        )


class ScorecardHost(ToolkitProcess):
    """The run's scorecard at the API, held by the toolkit's client in a jail of its own (online_host.py)."""

    def __init__(self, online: Online, scratch: Path):
        super().__init__("scorecard", ONLINE_HOST, [], scratch, online=online)
        self.games: list[str] = list(self.ready.get("games") or [])
        self.listing_failed: str | None = self.ready.get("listing_failed")

    def ask(self, op: str, **fields) -> dict:
        """The answer to one request: its fields, or {"failed": one line} when the API refused it."""
        return self._request({"op": op, **fields}, 60.0, op.replace("_", " "))


class RunCard:
    """The run's scorecard for one session of the run. A context manager (Benchmark.run_scope)."""

    def __init__(self, access: Online, services: RunServices, game_ids: list[str]):
        self.access, self.services, self.game_ids = access, services, game_ids
        self.play: Online | None = None  # the way to the API and the run's card
        self._stack = contextlib.ExitStack()
        self._host: ScorecardHost | None = None
        self.state: dict = {}

    def __enter__(self) -> "RunCard":
        try:
            self._open()
        except BaseException:
            self._stack.close()
            raise
        return self

    def _open(self) -> None:
        access, services = self.access, self.services
        refuse_what_the_mode_forbids(access.mode, services.config)
        services.add_secret(access.key)
        try:
            egress = self._stack.enter_context(contextlib.closing(services.open_egress([access.base_url])))
        except EgressError as error:
            raise ConfigError(f"--arc-mode {access.mode}: {error}") from None
        online = replace(access, net_dir=egress.net_dir, socket_name=egress.socket_name)
        try:
            self._host = self._stack.enter_context(ScorecardHost(online, services.run_root / "arcgames"))
        except GameError as error:
            raise ConfigError(f"--arc-mode {access.mode}: the ARC API's client did not start: {error}") from None
        self._check_games(self._host)
        card_id = self._card_to_play_on(self._host)
        self.play = replace(online, card_id=card_id)

    def _check_games(self, host: ScorecardHost) -> None:
        """Every game of the run must be offered by the API at the run's version (the toolkit would otherwise make
        the API's own version); in competition mode the card scores all the API offers."""
        where = self.access.base_url
        if not host.games:
            raise ConfigError(
                f"the ARC API at {where} offered no games ({host.listing_failed or 'an empty list'}): check "
                f"ARC_API_KEY and ARC_BASE_URL"
            )
        missing = [g for g in self.game_ids if g not in host.games]
        if missing:
            raise ConfigError(
                f"the ARC API at {where} does not offer {', '.join(missing)} at the run's version(s) (it offers "
                f"{', '.join(host.games)}): download its versions into --data (docs/kinds/arcgames.md)"
            )
        unplayed = sorted(set(host.games) - set(self.game_ids))
        if self.access.mode == "competition" and unplayed:
            self.services.say(
                f"competition mode: closing the scorecard scores every game the API offers; the {len(unplayed)} "
                f"this run does not play count 0 ({', '.join(unplayed)})"
            )

    def _card_to_play_on(self, host: ScorecardHost) -> str:
        """The earlier session's card while it is open, else a new one (online; competition refuses)."""
        previous = self.services.previous
        cards = list(previous.get("scorecards") or []) if previous.get("arc_mode") == self.access.mode else []
        self.state = {"arc_mode": self.access.mode, "base_url": self.access.base_url, "scorecards": cards}
        last = cards[-1] if cards else None
        if last is not None and last.get("state") == "open":
            # competition: the API shows nothing before close, so the card is used as it is
            seen = None if self.access.mode == "competition" else host.ask("get_card", card_id=last["card_id"])
            if seen is None or "scorecard" in seen:
                self.services.say(f"resuming on scorecard {last['card_id']} ({last['url']})")
                return str(last["card_id"])
            last.update(state="closed", closed_at=now_iso(), summary=None, error=f"gone at resume: {seen['failed']}")
        elif last is not None and self.access.mode == "competition":
            raise ConfigError(
                f"--arc-mode competition: this run's scorecard {last['card_id']} is closed (the games it did not "
                f"play count 0 on it), and a competition scorecard is never reopened or followed by another: start "
                f"a new run (another --run-name, or --redo)"
            )
        config = self.services.config
        opened = host.ask(
            "open_card",
            tags=["agent", "agent-eval", f"cli:{config.agent}", f"model:{config.model}", f"tools:{config.tools}"],
            opaque={
                "harness": f"agent-eval {__version__}",
                "run": self.services.run_name,
                "agent": config.agent,
                "model": config.model,
                "effort": config.effort,
                "tools": config.tools,
                "kind_options": config.kind_options,
            },
        )
        if "card_id" not in opened:
            raise ConfigError(f"the ARC API at {self.access.base_url} did not open a scorecard: {opened['failed']}")
        card_id = str(opened["card_id"])
        url = self.access.card_url(card_id)
        if cards:
            self.services.say(
                f"the run's earlier scorecard is closed: its remaining games go on a new one, {card_id} (this run "
                f"now spans {len(cards) + 1} scorecards; run.json lists them): {url}"
            )
        else:
            self.services.say(f"{self.access.mode} scorecard {card_id} opened: {url}")
        cards.append({"card_id": card_id, "url": url, "opened_at": now_iso(), "state": "open"})
        self.services.record(self.state)  # on disk before the first game: a killed run knows its card
        return card_id

    def __exit__(self, *exc) -> None:
        try:
            if self._host is not None and self.play is not None:
                self._close(self._host, self.play.card_id)
        finally:
            self._stack.close()

    def _close(self, host: ScorecardHost, card_id: str) -> None:
        entry = self.state["scorecards"][-1]
        try:
            closed = host.ask("close_card", card_id=card_id)
        except GameError as error:
            closed = {"failed": str(error)}
        entry["closed_at"] = now_iso()
        if "scorecard" in closed:
            entry.update(state="closed", summary=closed["scorecard"], error=None)
            summary = closed["scorecard"]
            self.services.say(
                f"scorecard {card_id} closed: score {summary.get('score', 0):.1f}, "
                f"{summary.get('total_levels_completed', 0)}/{summary.get('total_levels', 0)} levels, "
                f"{summary.get('total_actions', 0)} actions over {summary.get('total_environments', 0)} game(s): "
                f"{entry['url']}"
            )
        else:
            entry.update(state="close_failed", error=closed["failed"])
            self.services.say(f"scorecard {card_id} was not closed: {closed['failed']} ({entry['url']})")
        self.services.record(self.state)


class OnlineGame:
    """A game made at the API, as GameSession plays it. Never replayed. Its `scorecard()` is the offline scorecard of
    the same actions replayed locally (`replica`), with this play's entry on the run's card (`online`) and whether the
    local frames equal the API's (`local_replay`)."""

    def __init__(self, process: GameProcess, replica: Callable[[], GameProcess], directory: Path, made: dict):
        self.process, self.replica, self.directory, self.made = process, replica, directory, made

    def __getattr__(self, name: str):
        return getattr(self.process, name)  # step, initial, last_step_s; replay, which refuses online

    def scorecard(self) -> dict:
        online = {**self.made, **self.process.online_result()}
        plays = [p for p in read_plays(self.directory) if p.state != "ERROR"]
        try:
            with self.replica() as local:
                replayed = local.replay([(p.action, p.x, p.y) for p in plays])
                card = local.scorecard()
        except GameError as error:
            return {"online": online, "score_unavailable": f"the local replay of the same actions failed: {error}"}
        differ = next((p.step for p, r in zip(plays, replayed) if list(r.hashes) != list(p.frame_hashes)), None)
        card["online"] = online
        card["local_replay"] = {
            "actions": len(plays),
            "frames_equal": differ is None,
            "first_difference_at_step": differ,
        }
        return card


def start_online(
    item, dataset_root: Path, directory: Path, scratch: Path, play: Online, stack: contextlib.ExitStack
) -> OnlineGame:
    """The item's game made on the run's card (GameError when it cannot be). ItemError when an earlier process of
    the harness already played it: then it stands on the card as played (`interrupted`, result.json says so)."""
    earlier = read_plays(directory)
    if earlier:
        raise ItemError(f"{item.id}-{item.version}: {interrupted(item, directory, earlier)}")
    try:
        process = stack.enter_context(GameProcess(dataset_root, item.id, item.version, scratch=scratch, online=play))
    except GameError as error:
        if play.mode != "competition":
            raise
        why = "in competition mode the API makes a game once per card, and makes none on a closed card"
        raise GameError(f"{error} ({why}: scorecard {play.card_id})") from None
    directory.mkdir(parents=True, exist_ok=True)
    made = {"mode": play.mode, "card_id": play.card_id, "url": play.card_url(play.card_id), "guid": process.guid}
    (directory / ONLINE_RECORD).write_text(json.dumps({**made, "made_at": now_iso()}, indent=1), encoding="utf-8")
    return OnlineGame(
        process, partial(GameProcess, dataset_root, item.id, item.version, scratch=scratch), directory, made
    )


def interrupted(item, directory: Path, plays: list) -> str:
    """Why an online game an earlier process played is not continued, in one line; result.json records it."""
    made = read_json(directory / ONLINE_RECORD) or {}
    last = plays[-1]
    text = (
        f"{INTERRUPTED}: the harness stopped while this game was played online ({last.actions_used} action(s) at "
        f"the ARC API, state {last.state}, on scorecard {made.get('card_id', '?')}); an online game is never "
        f"restored (a replay would count its actions again), so it stands on the scorecard as played"
    )
    end = GameEnd(game=item.id, version=item.version, state=last.state, error=text)
    end.levels_completed, end.win_levels, end.actions_used = last.levels_completed, last.win_levels, last.actions_used
    write_end(directory, end)
    return text
