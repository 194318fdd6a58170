"""Test games on ARCEngine, written by the tests (third-party games are never committed): one good game whose
winning sequence the tests know, and broken ones for the bad-input tests. The good game's source and
metadata carry a canary: the leak tests look for it from inside the sandbox.

tg01: two levels. Level 1: ACTION4 moves the blue player right; reaching x=3 completes it (baseline 3).
Level 2: a click (ACTION6) at (10, 10) on the green goal completes it (baseline 1). ACTION5 plays a 4-frame
animation that changes nothing; ACTION1 loses the game (GAME_OVER)."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

from agent_eval.benchmarks.arcgames.grading import environment_score
from agent_eval.benchmarks.arcgames.toolkit_process import toolkit_python

WIN = ["RESET", "ACTION4", "ACTION4", "ACTION4", ("ACTION6", 10, 10)]
# VISTA's game tools (src/vista/benchmarks/arc3/claude/tools.py build_tools), written out here rather than read from
# our code, so that a test fails if ours drift from them.
VISTA_TOOLS = [
    "play",
    "inspect",
    "read_pixels",
    "history",
    "read_guide",
    "write_guide",
    "read_working",
    "write_working",
]
ANIMATION_FRAMES = 4
BASELINES = [3, 1]

GAME = """# {canary}
from arcengine import ARCBaseGame, Camera, GameAction, Level, Sprite

GOAL_CLICK = (10, 10)


def level(n):
    player = Sprite([[9]], name="player", x=0, y=32)
    goal = Sprite([[14]], name="goal", x=3 if n == 0 else GOAL_CLICK[0], y=32 if n == 0 else GOAL_CLICK[1])
    spark = Sprite([[11]], name="spark", x=0, y=50)
    return Level(sprites=[player, goal, spark], grid_size=(64, 64), name=f"L{n}")


class {cls}(ARCBaseGame):
    def __init__(self, seed: int = 0):
        super().__init__(game_id="{game}", levels=[level(0), level(1)], camera=Camera(0, 0, 64, 64, 0, 0),
                         available_actions=[1, 4, 5, 6], seed=seed)
        self.flash = 0

    def step(self):
        action = self.action.id
        if action == GameAction.ACTION4:
            player = self.current_level.get_sprites_by_name("player")[0]
            player.move(1, 0)
            if self.current_level_index == 0 and player.x == 3:
                self.next_level()
        elif action == GameAction.ACTION1:
            self.lose()
        elif action == GameAction.ACTION5:      # a 4-frame animation: the player blinks
            self.flash += 1
            self.current_level.get_sprites_by_name("spark")[0].set_position(self.flash * 2, 50)
            if self.flash < 4:
                return
            self.flash = 0
        elif action == GameAction.ACTION6:
            if (self.action.data.get("x"), self.action.data.get("y")) == GOAL_CLICK and self.current_level_index == 1:
                self.next_level()
        self.complete_action()

    @property
    def current_level_index(self):
        return self.level_index
"""

BROKEN = {
    "syntax": "def oops(:\n",
    "no_class": "from arcengine import ARCBaseGame\n\nclass Other(ARCBaseGame):\n    pass\n",
}


def write_game(
    root: Path,
    game: str,
    version: str = "v1",
    canary: str = "no canary",
    baselines=BASELINES,
    source: str | None = None,
    step_patch: str | None = None,
) -> Path:
    """environments dir `root`: root/<game>/<version>/{metadata.json, <game>.py}."""
    folder = Path(root) / game / version
    folder.mkdir(parents=True)
    cls = game[0].upper() + game[1:]
    text = (
        source if source is not None else GAME.replace("{canary}", canary).replace("{cls}", cls).replace("{game}", game)
    )
    if step_patch:
        text = text.replace("        action = self.action.id\n", "        action = self.action.id\n" + step_patch)
    (folder / f"{game}.py").write_text(text)
    meta = {
        "game_id": f"{game}-{version}",
        "title": f"test game {game} {canary}",
        "class_name": cls,
        "date_downloaded": "2026-01-01T00:00:00Z",
    }
    if baselines is not None:
        meta["baseline_actions"] = list(baselines)
    (folder / "metadata.json").write_text(json.dumps(meta))
    return folder


def write_broken_games(root: Path) -> dict[str, str]:
    """One game per way a game can be broken; game id -> what is wrong with it."""
    write_game(root, "bx01", source=BROKEN["syntax"])
    write_game(root, "bx02", source=BROKEN["no_class"])
    write_game(
        root,
        "bx03",
        step_patch="        if action.name == 'ACTION4':\n            raise RuntimeError('boom in step')\n",
    )
    write_game(root, "bx04", step_patch="        while action.name == 'ACTION4':\n            pass\n")
    write_game(root, "bx05", baselines=None)
    return {
        "bx01": "syntax error",
        "bx02": "missing class",
        "bx03": "exception in step",
        "bx04": "step never returns",
        "bx05": "no baselines",
    }


# The scorecard fields a harness's record and the toolkit's own card are compared on.
COMPARED = (
    "score",
    "levels_completed",
    "actions",
    "resets",
    "completed",
    "level_scores",
    "level_actions",
    "level_baseline_actions",
)

DIRECT = textwrap.dedent("""
    import json, sys
    from arc_agi import Arcade, OperationMode
    from arcengine import GameAction
    root, game, actions = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    arcade = Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=root)
    env = arcade.make(game)
    for name, x, y in actions:
        env.step(GameAction.from_name(name), data={} if x is None else {"x": x, "y": y})
    print(json.dumps(arcade.get_scorecard().model_dump(mode="json")))
""")


def toolkit_scorecard(root, game: str, actions, tmp_path) -> dict:
    """The toolkit's scorecard of `actions`, played directly with the toolkit (no harness, no agent)."""
    steps = [list(a) if isinstance(a, tuple) else [a, None, None] for a in actions]
    done = subprocess.run(
        [str(toolkit_python()), "-c", DIRECT, str(root), f"{game}-v1", json.dumps(steps)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"OPERATION_MODE": "OFFLINE"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return environment_score(json.loads(done.stdout.strip().splitlines()[-1]))
