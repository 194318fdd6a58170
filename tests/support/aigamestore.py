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

# A game whose every rule the test knows: START -> Enter -> PLAYING; the score counts frames played; Space ends it
# (GAME_OVER_LOSE) before the next frame counts; R goes back to START; highScore keeps the best.
ENDER = """<!DOCTYPE html><html><body><canvas width="32" height="16"></canvas><script>
const s = {score: 0, highScore: 0, gamePhase: "START"};
addEventListener("keydown", (e) => {
  if (e.key === "Enter" && s.gamePhase === "START") { s.gamePhase = "PLAYING"; s.score = 0; }
  else if (e.key === " " && s.gamePhase === "PLAYING") s.gamePhase = "GAME_OVER_LOSE";
  else if (e.key === "r" && s.gamePhase === "GAME_OVER_LOSE") s.gamePhase = "START";
});
function tick() {
  if (s.gamePhase === "PLAYING") { s.score += 1; s.highScore = Math.max(s.highScore, s.score); }
  const g = document.querySelector("canvas").getContext("2d");
  g.fillStyle = `rgb(${s.score % 256}, ${Math.floor(Math.random() * 256)}, ${s.gamePhase.length * 10})`;
  g.fillRect(0, 0, 32, 16);
  requestAnimationFrame(tick);
}
requestAnimationFrame(tick);
window.getGameState = () => s;
</script></body></html>"""


def ender_game(site: Path):
    folder = site / "games" / "ender"
    folder.mkdir(parents=True)
    (folder / "index.html").write_text(ENDER)
    return load_games(site).items[0]


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
