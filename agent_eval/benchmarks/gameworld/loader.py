"""A user's GameWorld checkout as a dataset: its catalog (catalog/games/*.yaml, catalog/tasks/<game>/*.yaml) and its
game library (games/benchmark/<game>/, a separate repository the user clones there, as GameWorld's README says).

Every task whose game is in the library is one item (`--tasks 01_2048` picks a game's tasks, `--ids 01_01` one
task); the games not installed (their folder missing, or a remote page) are said once, in a note: nothing to fix.
The dataset hash covers each task file, its game file and every file of the game's folder, and run.json records
each game folder's hash: GameWorld's games change between revisions of the library."""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from agent_eval.benchmarks.base import GroupedItems
from agent_eval.benchmarks.games.folder import GameDataset, files_hash
from agent_eval.benchmarks.gameworld.catalog import GameDef, TaskDef, read_game, read_task
from agent_eval.datamodel.jsonl import DataError

LAYOUT = "gameworld"
CATALOG = "catalog"
LIBRARY = Path("games") / "benchmark"
PAGE = "index.html"
LIBRARY_URL = "https://github.com/gameworld-dev/gameworld-games"


@dataclass(frozen=True)
class TaskItem:
    """One GameWorld task: its task file, its game, and where the game's page is."""

    task_def: TaskDef
    game: GameDef
    game_dir: Path  # the library's folder of the game (served on loopback while it plays)
    files_sha256: str  # the game folder's files, names and bytes
    catalog_sha256: str  # the task file and the game file

    @property
    def id(self) -> str:
        return self.task_def.id

    @property
    def task(self) -> str:  # --tasks picks a game's tasks
        return self.game.id

    category = task  # a game's tasks are its category too

    answer = "success"  # what a task's record is graded against (grading.py)

    def describe(self) -> dict:
        return {
            "game": self.game.id,
            "game_files_sha256": self.files_sha256,
            "catalog_sha256": self.catalog_sha256,
            "max_steps": self.task_def.rules.max_steps,
            "target": self.task_def.rules.target_score,
        }


@dataclass
class GameWorldDataset(GroupedItems, GameDataset):
    """The tasks of a checkout (`tasks`: the games, `categories`: the same), with the games not installed."""

    root: Path
    items: list[TaskItem] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)  # the catalog's games not playable here, and how to get them
    layout: str = LAYOUT

    def notes(self, items: list) -> list[str]:
        """Said once by `run`: the games it cannot play here (whatever was selected: nothing to fix)."""
        return list(self.absent)

    def content_hash(self) -> str:
        digest = hashlib.sha256()
        for item in sorted(self.items, key=lambda i: i.id):
            digest.update(f"{item.id}:{item.catalog_sha256}:{item.files_sha256}\n".encode())
        return digest.hexdigest()[:16]


def is_gameworld_dataset(root: Path | str) -> bool:
    games = Path(root) / CATALOG / "games"
    return games.is_dir() and any(games.glob("*.yaml")) and (Path(root) / CATALOG / "tasks").is_dir()


def load_gameworld(root: Path | str) -> GameWorldDataset:
    root = Path(root)
    if not is_gameworld_dataset(root):
        raise DataError(
            f"{root}: not a GameWorld checkout (no {CATALOG}/games/*.yaml beside {CATALOG}/tasks/); clone "
            f"gameworld-project/gameworld and point --data at it, or write the project's own test game with "
            f"`agent-eval sample-data DIR --kind gameworld`"
        )
    games = {path.stem: read_game(path) for path in sorted((root / CATALOG / "games").glob("*.yaml"))}
    dataset = GameWorldDataset(root=root)
    missing: dict[str, int] = {}
    remote: list[str] = []
    game_hash = functools.cache(files_hash)  # a game's folder hashed once, whatever its tasks
    for path in sorted((root / CATALOG / "tasks").glob("*/*.yaml")):
        task = read_task(path)
        game = games.get(task.game_id)
        if game is None:
            raise DataError(f"{path}: game {task.game_id!r} has no {CATALOG}/games/{task.game_id}.yaml")
        if game.url:
            remote.append(task.id)
            continue
        game_dir = root / LIBRARY / game.id
        if not (game_dir / PAGE).is_file():
            missing[game.id] = missing.get(game.id, 0) + 1
            continue
        catalog_sha = hashlib.sha256(path.read_bytes() + game.path.read_bytes()).hexdigest()[:16]
        dataset.items.append(TaskItem(task, game, game_dir, game_hash(game_dir), catalog_sha))
    if missing:
        names = ", ".join(sorted(missing))
        dataset.absent.append(
            f"{len(missing)} of the catalog's games are not installed ({sum(missing.values())} tasks): {names}. "
            f"To play them, put GameWorld's game library's folders in {root / LIBRARY}/ (it holds games already, "
            f"so `git clone` there refuses): git clone {LIBRARY_URL} ~/gameworld-games && "
            f"cp -rn ~/gameworld-games/*/ {root / LIBRARY}/"
        )
    if remote:
        dataset.absent.append(
            f"{len(remote)} task(s) whose game is a remote page are not played (browser games run offline): "
            f"{', '.join(remote)}"
        )
    if not dataset.items:
        raise DataError(
            f"{root}: no task's game is in {root / LIBRARY}/; clone the library there "
            f"(git clone {LIBRARY_URL} {root / LIBRARY}) or use `agent-eval sample-data DIR --kind gameworld`"
        )
    return dataset
