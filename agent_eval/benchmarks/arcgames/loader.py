"""An ARC-AGI-3 games directory (the toolkit's `environment_files/<game>/<version>/metadata.json` layout), read
without running any game. Every game is one item at its newest version (the toolkit's rule: the latest
`date_downloaded`, then the version's name) unless pinned with `--tasks game@version`. Versions and baselines change
over time, so the dataset hash covers each game's files and run.json records each game's version, baselines and
file hash. The game files hold the rules and the solution: they never enter a sandbox."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from agent_eval.benchmarks.games.folder import GameDataset, files_hash
from agent_eval.datamodel.jsonl import DataError

TASK = "arcgames"
LAYOUT = "arcgames"
METADATA = "metadata.json"
ENVIRONMENT_FILES = "environment_files"


@dataclass(frozen=True)
class GameItem:
    id: str  # the game id, e.g. "ls20"
    version: str  # its version directory, e.g. "9607627b"
    game_dir: Path  # environments_dir/<game>/<version>
    title: str | None
    baseline_actions: tuple[int, ...] | None  # None: the metadata holds none (no game score then)
    files_sha256: str  # every file of the version, names and bytes
    date_downloaded: str | None = None

    @property
    def task(self) -> str:  # `--tasks` picks games
        return self.id

    @property
    def category(self) -> str:
        return TASK

    @property
    def answer(self) -> str:
        return "win"

    def describe(self) -> dict:
        return {
            "version": self.version,
            "baseline_actions": list(self.baseline_actions or []) or None,
            "files_sha256": self.files_sha256,
            "title": self.title,
        }


@dataclass
class GamesDataset(GameDataset):
    root: Path  # the environments dir (what the game process reads)
    items: list[GameItem] = field(default_factory=list)
    versions_of: dict[str, dict[str, GameItem]] = field(default_factory=dict)  # game -> version -> item
    layout: str = LAYOUT

    @property
    def tasks(self) -> list[str]:
        pins = [f"{game}@{version}" for game, versions in self.versions_of.items() for version in versions]
        return [item.id for item in self.items] + pins

    @property
    def categories(self) -> list[str]:
        return [TASK]

    def pin(self, tasks: list[str]) -> list[str]:
        """`--tasks game@version`: that version instead of the newest (the items change in place, so the dataset hash
        and the recorded versions follow); returns the task names to select."""
        chosen = []
        for task in tasks:
            game, at, version = task.partition("@")
            if at:
                versions = self.versions_of.get(game)
                if versions is None or version not in versions:
                    known = ", ".join(f"{g}@{v}" for g, vs in self.versions_of.items() for v in vs)
                    raise DataError(f"unknown game version {task!r} in {self.root}; present: {known or 'none'}")
                self.items = [versions[version] if item.id == game else item for item in self.items]
            chosen.append(game)
        return chosen

    def content_hash(self) -> str:
        digest = hashlib.sha256()
        for item in sorted(self.items, key=lambda i: i.id):
            digest.update(f"{item.id}@{item.version}:{item.files_sha256}\n".encode())
        return digest.hexdigest()[:16]


def environments_dir(root: Path) -> Path | None:
    root = Path(root)
    for candidate in (root, root / ENVIRONMENT_FILES):
        if candidate.is_dir() and any(candidate.glob(f"*/*/{METADATA}")):
            return candidate
    return None


def is_games_dataset(root: Path | str) -> bool:
    return environments_dir(Path(root)) is not None


def _read_metadata(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DataError(f"{path}: not readable JSON ({error}); fix the file or download the game again") from None
    if not isinstance(data, dict):
        raise DataError(f"{path}: a game's metadata is a JSON object, not {type(data).__name__}")
    return data


def _baselines(data: dict, path: Path) -> tuple[int, ...] | None:
    raw = data.get("baseline_actions")
    if raw in (None, []):
        return None
    if not isinstance(raw, list) or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in raw):
        raise DataError(f"{path}: baseline_actions must be a list of positive integers (one per level), got {raw!r}")
    return tuple(raw)


def _newest_first(item: GameItem) -> tuple:
    when = item.date_downloaded or ""
    try:
        stamp = datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp() if when else 0.0
    except ValueError:
        stamp = 0.0
    return (-stamp, tuple(-ord(ch) for ch in item.version))  # the latest, then the last name


def load_games(root: Path | str) -> GamesDataset:
    base = environments_dir(Path(root))
    if base is None:
        raise DataError(
            f"{root}: holds no ARC-AGI-3 games (<game>/<version>/{METADATA}, or the same under "
            f"{ENVIRONMENT_FILES}/); write the project's own with `agent-eval sample-data DIR --kind arcgames`"
        )
    dataset = GamesDataset(root=base)
    for metadata in sorted(base.glob(f"*/*/{METADATA}")):
        game_dir = metadata.parent
        game, version = game_dir.parent.name, game_dir.name
        data = _read_metadata(metadata)
        declared = data.get("game_id")
        if declared not in (None, game, f"{game}-{version}"):
            raise DataError(
                f"{metadata}: game_id {declared!r} does not match its folder {game}/{version} "
                f"(expected {game}-{version!s}); move the files or fix the metadata"
            )
        when = data.get("date_downloaded")
        item = GameItem(
            id=game,
            version=version,
            game_dir=game_dir,
            title=data.get("title"),
            baseline_actions=_baselines(data, metadata),
            files_sha256=files_hash(game_dir),
            date_downloaded=str(when) if when is not None else None,
        )
        dataset.versions_of.setdefault(game, {})[version] = item
    for _, versions in sorted(dataset.versions_of.items()):
        dataset.items.append(min(versions.values(), key=_newest_first))
    return dataset
