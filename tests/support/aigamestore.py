"""What the AI GameStore tests share: the project's test games written to a folder (a canary in their files when
asked), the segment sequences the scripted model plays, and the same sequences played directly on the browser host
(no agent) for what the game itself gives."""

from __future__ import annotations

import json
from pathlib import Path

from agent_eval.benchmarks.aigamestore.benchmark import AiGameStore
from agent_eval.benchmarks.aigamestore.loader import load_games
from agent_eval.benchmarks.aigamestore.protocol import checked_segments
from agent_eval.benchmarks.aigamestore.session import Budget, GameStoreSession
from agent_eval.browser.host import PageHost

PLAYS = [
    [["HOLD_LEFT"], ["HOLD_LEFT"], ["NOOP"], ["RIGHT"], ["HOLD_RIGHT"]],
    [["HOLD_RIGHT", "SPACE"], ["HOLD_RIGHT"], ["NOOP"], ["NOOP"], ["HOLD_LEFT"]],
    [["LEFT"], ["NOOP"], ["HOLD_RIGHT"], ["HOLD_RIGHT"], ["SPACE"]],
]


def write_games(root: Path, canary: str | None = None) -> Path:
    AiGameStore().write_samples(root, 0, 1, "")
    if canary:
        for script in root.glob("games/*/game.js"):
            script.write_text(f"// {canary}\n" + script.read_text())
    return root


def keys_reply(segments: list, scratchpad: str) -> str:
    keys = json.dumps(segments)
    return f"<rationale>scripted</rationale>\n<keys>\n{keys}\n</keys>\n<scratchpad>{scratchpad}</scratchpad>"


def official_scenario(plays: list = PLAYS) -> dict:
    """One rule per decision, matched by its request (`decision N of`), each a single reply with its keys."""
    return {
        "rules": [
            {"match": f"This is decision {n} of", "turns": [{"final": keys_reply(segments, f"pad after decision {n}")}]}
            for n, segments in enumerate(plays, start=1)
        ]
    }


def direct(root: Path, game: str, tmp: Path, plays: list = PLAYS, via: str = "tool") -> tuple[list[str], float | None]:
    """The frame hashes and raw score the game gives for the same plays, with no agent (a fresh browser)."""
    item = next(i for i in load_games(root).items if i.id == game)
    with PageHost(item.site, scratch=tmp / "direct-browser") as page:
        session = GameStoreSession(item, page, tmp / "direct-game", Budget(len(plays)))
        for segments in plays:
            session.play(checked_segments(segments), via=via)
        return [h for m in session.moves for h in m.hashes], session.raw_score()


def recorded_hashes(item_dir: Path) -> list[str]:
    lines = (item_dir / "game" / "timeline.jsonl").read_text().splitlines()
    return [h for line in lines for h in json.loads(line)["hashes"]]
